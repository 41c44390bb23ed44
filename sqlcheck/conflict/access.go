package conflict

import (
	"cmp"
	"slices"
)

// Key names what a statement reads or writes: a relation, or one row of a
// table by its primary key.
type Key struct {
	// Rel is "t:<table>" or "s:<sequence>", the name spelled as
	// Table.Name is.
	Rel string
	// Via is "" when Row is the primary key's value itself; otherwise Row
	// is a value looked up through a unique key of another table (see
	// pinned): rows of different Via may be one row, rows of one Via and
	// different Row are not.
	Via string
	// Row is the row's primary-key value, encoded by rowKey; "" is the
	// whole relation.
	Row string
}

// Whole reports whether k stands for its whole relation.
func (k Key) Whole() bool { return k.Row == "" }

// Access is what a statement or a bc-transaction may touch. Reads and
// Writes are sorted and without duplicates; a key in Writes is not
// repeated in Reads, and a relation written (or read) whole lists no row
// of it in Writes (or Reads). All: the analysis could not bound it; it
// conflicts with every tx (Reads and Writes are then empty).
type Access struct {
	Reads, Writes []Key
	All           bool
}

// Add adds what b touches to a: a tx's Access is the union of its
// statements'.
func (a *Access) Add(b Access) {
	if a.All || b.All {
		*a = Access{All: true}
		return
	}
	a.Reads = append(a.Reads, b.Reads...)
	a.Writes = append(a.Writes, b.Writes...)
	a.normalize()
}

// normalize sorts and deduplicates Reads and Writes, drops rows of a
// relation listed whole and reads of what is written.
func (a *Access) normalize() {
	a.Writes = compact(a.Writes)
	var reads []Key
	for _, k := range compact(a.Reads) {
		if !covers(a.Writes, k) {
			reads = append(reads, k)
		}
	}
	a.Reads = reads
}

// compact is keys sorted, without duplicates and without the rows of a
// relation that keys hold whole.
func compact(keys []Key) []Key {
	slices.SortFunc(keys, compareKeys)
	keys = slices.Compact(keys)
	out := keys[:0]
	for _, k := range keys {
		// Sorted: a relation's whole key ("") comes before its rows.
		if len(out) > 0 && out[len(out)-1].Rel == k.Rel && out[len(out)-1].Whole() {
			continue
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func compareKeys(a, b Key) int {
	if c := cmp.Compare(a.Rel, b.Rel); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Via, b.Via); c != 0 {
		return c
	}
	return cmp.Compare(a.Row, b.Row)
}

// covers reports whether sorted keys hold k or k's whole relation.
func covers(keys []Key, k Key) bool {
	if _, ok := slices.BinarySearchFunc(keys, Key{Rel: k.Rel}, compareKeys); ok {
		return true
	}
	_, ok := slices.BinarySearchFunc(keys, k, compareKeys)
	return ok
}
