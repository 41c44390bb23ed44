package conflict

import (
	"slices"
	"sync"
)

// Memo is a Catalog that remembers the analyses it served which depend on
// no argument: a statement text that pins no key by a parameter ($n) has
// one Access under one catalog, and a block repeats a few texts (every
// Smallbank transfer finds its accounts by name: the same table-wide
// Access each time). A backend makes one Memo per schema it reads and
// hands it out until the schema changes; Analyze finds it by type. It
// changes no answer: what it returns is what Analyze would compute.
type Memo struct {
	Catalog
	mu sync.RWMutex
	m  map[string]Access
}

// maxMemo bounds a Memo: past it, it starts again empty.
const maxMemo = 4096

// NewMemo wraps cat, a catalog that does not change.
func NewMemo(cat Catalog) *Memo { return &Memo{Catalog: cat} }

func (m *Memo) get(sql string) (Access, bool) {
	m.mu.RLock()
	acc, ok := m.m[sql]
	m.mu.RUnlock()
	if !ok {
		return Access{}, false
	}
	return acc.clone(), true
}

func (m *Memo) put(sql string, acc Access) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= maxMemo {
		m.m = make(map[string]Access)
	}
	m.m[sql] = acc.clone()
}

// clone is a with slices of its own.
func (a Access) clone() Access {
	return Access{Reads: slices.Clone(a.Reads), Writes: slices.Clone(a.Writes), All: a.All}
}
