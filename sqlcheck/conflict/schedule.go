package conflict

import (
	"cmp"
	"fmt"
	"slices"
)

// Plan is a block's schedule: Groups partitions the indices of its txs
// into the connected components of the conflict graph. Within a group the
// indices are in block order (the order the group must run in); groups are
// ordered by their first index. Two txs of different groups touch nothing
// in common.
type Plan struct {
	Groups [][]int
}

// Schedule groups txs (one Access per bc-transaction, in block order) so
// that any two that conflict share a group: one writes a key the other
// reads or writes (a whole relation overlapping each of its rows; reads
// never conflict with reads), or either is All. A tx with All puts every
// tx into one group, and the block runs serially.
func Schedule(txs []Access) Plan {
	if slices.ContainsFunc(txs, func(a Access) bool { return a.All }) {
		every := make([]int, len(txs))
		for i := range every {
			every[i] = i
		}
		return Plan{Groups: [][]int{every}}
	}
	u := newUnion(len(txs))
	rels := map[string]*relUse{}
	for i, a := range txs {
		for _, k := range a.Reads {
			use(rels, k.Rel).add(i, k, false)
		}
		for _, k := range a.Writes {
			use(rels, k.Rel).add(i, k, true)
		}
	}
	names := make([]string, 0, len(rels))
	for name := range rels {
		names = append(names, name)
	}
	slices.Sort(names) // the partition does not depend on it; the work's order does
	for _, name := range names {
		rels[name].join(u)
	}
	byRoot := map[int]int{} // root -> index in groups
	var groups [][]int
	for i := range txs {
		r := u.find(i)
		g, ok := byRoot[r]
		if !ok {
			g = len(groups)
			byRoot[r] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return Plan{Groups: groups}
}

// relUse is who touches one relation.
type relUse struct {
	wholeReaders, wholeWriters []int
	rowReaders, rowWriters     map[rowID][]int
	rows                       []rowID  // the rows named, in first-use order
	vias                       []string // the Via of the rows named, without repeats
	writers                    []int    // every tx writing any part of it
	all                        []int    // every tx touching it
}

// rowID is a row key's identity within its relation.
type rowID struct{ via, row string }

func use(rels map[string]*relUse, rel string) *relUse {
	r := rels[rel]
	if r == nil {
		r = &relUse{rowReaders: map[rowID][]int{}, rowWriters: map[rowID][]int{}}
		rels[rel] = r
	}
	return r
}

func (r *relUse) add(tx int, k Key, write bool) {
	r.all = append(r.all, tx)
	if write {
		r.writers = append(r.writers, tx)
	}
	switch {
	case k.Whole() && write:
		r.wholeWriters = append(r.wholeWriters, tx)
	case k.Whole():
		r.wholeReaders = append(r.wholeReaders, tx)
	default:
		id := rowID{k.Via, k.Row}
		if _, seen := r.rowReaders[id]; !seen {
			if _, seen := r.rowWriters[id]; !seen {
				r.rows = append(r.rows, id)
			}
		}
		if !slices.Contains(r.vias, k.Via) {
			r.vias = append(r.vias, k.Via)
		}
		if write {
			r.rowWriters[id] = append(r.rowWriters[id], tx)
		} else {
			r.rowReaders[id] = append(r.rowReaders[id], tx)
		}
	}
}

// join unites the txs that conflict over this relation. A whole writer
// conflicts with everyone touching it; a whole reader with every writer;
// a row's writers with everyone touching that row. Rows named through
// different Via (a key value and a looked-up one, or lookups through
// different unique keys) may be one row: where they meet a writer,
// everyone touching the relation is united.
func (r *relUse) join(u *union) {
	switch {
	case len(r.wholeWriters) > 0 || len(r.vias) > 1 && len(r.writers) > 0:
		u.joinAll(r.all)
		return
	case len(r.wholeReaders) > 0 && len(r.writers) > 0:
		u.joinAll(r.wholeReaders)
		u.joinAll(r.writers)
		u.join(r.wholeReaders[0], r.writers[0])
	}
	for _, row := range r.rows {
		w := r.rowWriters[row]
		if len(w) == 0 {
			continue
		}
		u.joinAll(w)
		for _, tx := range r.rowReaders[row] {
			u.join(w[0], tx)
		}
	}
}

// union is a disjoint-set forest over tx indices; a set's root is its
// smallest index.
type union struct{ parent []int }

func newUnion(n int) *union {
	u := &union{parent: make([]int, n)}
	for i := range u.parent {
		u.parent[i] = i
	}
	return u
}

func (u *union) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

func (u *union) join(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
}

func (u *union) joinAll(txs []int) {
	for _, tx := range txs[1:] {
		u.join(txs[0], tx)
	}
}

// Assign spreads a plan's groups over lanes connections and returns, for
// each lane, the indices of the txs it runs, in block order (its groups
// touch nothing in common, so merging them in block order keeps each
// group's order). weights[i] is tx i's expected cost (its statement
// count, say; at least 0). The largest group goes first to the least
// loaded lane, ties broken by the group's first index and by the lane's
// index: the same plan and weights give the same lanes on every node.
// A lane may be empty when there are fewer groups than lanes.
func Assign(p Plan, weights []int, lanes int) [][]int {
	if lanes < 1 {
		panic(fmt.Sprintf("conflict.Assign: %d lanes", lanes))
	}
	type group struct{ first, weight, index int }
	gs := make([]group, len(p.Groups))
	for i, g := range p.Groups {
		gs[i] = group{first: g[0], index: i}
		for _, tx := range g {
			if weights[tx] < 0 {
				panic(fmt.Sprintf("conflict.Assign: tx %d has weight %d", tx, weights[tx]))
			}
			gs[i].weight += weights[tx]
		}
	}
	slices.SortFunc(gs, func(a, b group) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	load := make([]int, lanes)
	out := make([][]int, lanes)
	for _, g := range gs {
		lane := 0
		for l := 1; l < lanes; l++ {
			if load[l] < load[lane] {
				lane = l
			}
		}
		load[lane] += g.weight
		out[lane] = append(out[lane], p.Groups[g.index]...)
	}
	for _, txs := range out {
		slices.Sort(txs)
	}
	return out
}
