package sqlcheck

import "sync"

// Bounds of a VerdictCache. Texts longer than maxCachedText are checked
// every time; when the cache is full it is emptied (verdicts are cheap to
// recompute, and the hot statements of a workload come back at once).
const (
	maxCachedEntries = 4096
	maxCachedText    = 16 << 10
)

// VerdictCache memoizes a verdict (V) that is a pure function of a
// statement text (a checker's, a parser's): a cached verdict is the one
// that would be computed again, so the cache changes only how fast it
// answers.
// The zero value is ready to use and safe for concurrent use.
type VerdictCache[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

// Get returns the verdict for sql, computing it with compute (outside the
// lock) and caching it when it is not cached.
func (c *VerdictCache[V]) Get(sql string, compute func(string) V) V {
	if v, ok := c.Lookup(sql); ok {
		return v
	}
	v := compute(sql)
	c.Put(sql, v)
	return v
}

// Lookup returns the cached verdict for sql, if any.
func (c *VerdictCache[V]) Lookup(sql string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[sql]
	return v, ok
}

// Put caches v as the verdict for sql (unless the text is too long to
// keep).
func (c *VerdictCache[V]) Put(sql string, v V) {
	if len(sql) > maxCachedText {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedEntries {
		c.m = make(map[string]V)
	}
	c.m[sql] = v
}
