package proxy

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/rowcanon"
)

// describeCacheSize bounds the Describe cache: at this many statements it
// is emptied and fills again (an application's statements are few; a
// client that sends ever new texts only refills it).
const describeCacheSize = 1024

// describeCache holds a node's description of each statement text a
// proven read answered (provenResponse), so that a repeated read costs no
// Describe round trip. A description is only a hint, as untrusted cached
// as fresh: every value is the proven one, matched by name. Safe for
// concurrent use.
type describeCache struct {
	mu sync.Mutex
	m  map[string][]api.ColumnType
}

func (d *describeCache) get(sql string) ([]api.ColumnType, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cols, ok := d.m[sql]
	return cols, ok
}

func (d *describeCache) put(sql string, cols []api.ColumnType) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil || len(d.m) >= describeCacheSize {
		d.m = make(map[string][]api.ColumnType)
	}
	d.m[sql] = cols
}

func (d *describeCache) drop(sql string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.m, sql)
}

// describe is sql's result columns, from the cache or the first node
// (then cached); cached says which.
func (p *Verifier) describe(ctx context.Context, sql string) ([]api.ColumnType, bool, error) {
	if cols, ok := p.descs.get(sql); ok {
		return cols, true, nil
	}
	d, err := p.clients[0].Describe(ctx, sql)
	if err != nil {
		return nil, false, fmt.Errorf("describe %q: %w", sql, err)
	}
	p.descs.put(sql, d.Columns)
	return d.Columns, false, nil
}

// errDescribedOther: a description names columns the proven rows do not
// have (a lie, or a cached description a DDL made stale).
var errDescribedOther = errors.New("described columns the proven rows do not have")

// typesFit reports whether every non-NULL value of rows (in resp's
// column order, idx) is of the kind its described type holds (for the
// types client.KindOfType knows): a cached description whose type does
// not is stale, a DDL changed the column's type since.
func typesFit(cols []api.ColumnType, idx []int, rows [][]rowcanon.Value) bool {
	for _, row := range rows {
		for i, j := range idx {
			want, known := client.KindOfType(cols[i].Type)
			if k := row[j].Kind(); known && k != rowcanon.KindNull && k != want {
				return false
			}
		}
	}
	return true
}
