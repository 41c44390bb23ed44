package mysql

import (
	"context"
	"strings"
	"sync"

	"github.com/relchain/relchain/backend/mysql/pgdialect"
)

// pgCacheSize bounds the translation cache (it starts over when full).
const pgCacheSize = 4096

// translations caches pgdialect's translations by PostgreSQL text and
// parameter types for one schema generation: a translation is a function
// of the text, the types and the schema, and the schema changes only by
// the block's DDL (execPostgres bumps the generation before and after
// one), so a cached translation is reused on the schema it was made on
// only. A schema change outside the chain (an operator's ALTER) is not
// seen until the node restarts, as the SQLite backend's cache.
type translations struct {
	mu  sync.Mutex
	gen int64
	m   map[string]*pgdialect.Translation
}

// bump starts a new generation: every cached translation is dropped.
func (c *translations) bump() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m = nil
}

// lookup is the cached translation of key and the generation a
// translation made now must be stored under.
func (c *translations) lookup(key string) (*pgdialect.Translation, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key], c.gen
}

// put caches tr under key if the schema generation is still gen (no DDL
// began while it was made).
func (c *translations) put(key string, gen int64, tr *pgdialect.Translation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil || len(c.m) >= pgCacheSize {
		c.m = make(map[string]*pgdialect.Translation)
	}
	c.m[key] = tr
}

// translationKey is the cache key of text with parameter types.
func translationKey(text string, types []pgdialect.Type) string {
	var b strings.Builder
	b.WriteString(text)
	for _, t := range types {
		b.WriteByte(0)
		b.WriteString(t.Name)
	}
	return b.String()
}

// translate is translateOn through the backend's cache. Refusals and
// failures are not cached: they are translated again (a table an earlier
// statement creates, a schema read that failed).
func (b *Backend) translate(ctx context.Context, q pgdialect.Querier, text string, types []pgdialect.Type) (*pgdialect.Translation, error) {
	key := translationKey(text, types)
	tr, gen := b.pgTr.lookup(key)
	if tr != nil {
		return tr, nil
	}
	tr, err := translateOn(ctx, q, text, types)
	if err != nil {
		return nil, err
	}
	b.pgTr.put(key, gen, tr)
	return tr, nil
}
