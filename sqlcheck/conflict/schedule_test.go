package conflict

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

func TestScheduleComponents(t *testing.T) {
	txs := []Access{
		writes(row("a", "1")),           // 0
		reads(row("a", "2")),            // 1
		reads(row("a", "1")),            // 2: reads 0's row
		reads(row("a", "2")),            // 3: read/read with 1
		writes(whole("b")),              // 4
		reads(row("b", "9")),            // 5: under 4's whole write
		Access{},                        // 6
		rw(keys(whole("c")), nil),       // 7
		writes(row("c", "5"), seq("s")), // 8: under 7's whole read
		writes(seq("s")),                // 9: same sequence as 8
		reads(whole("d"), whole("d")),   // 10
		reads(whole("d")),               // 11: read/read
	}
	want := [][]int{{0, 2}, {1}, {3}, {4, 5}, {6}, {7, 8, 9}, {10}, {11}}
	if got := Schedule(txs).Groups; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestScheduleAll(t *testing.T) {
	got := Schedule([]Access{reads(row("a", "1")), all, writes(row("b", "1"))}).Groups
	if want := [][]int{{0, 1, 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := Schedule(nil).Groups; len(got) != 0 {
		t.Fatalf("empty block: %v", got)
	}
}

func TestAssign(t *testing.T) {
	p := Plan{Groups: [][]int{{0, 3}, {1}, {2, 4, 5}, {6}}}
	weights := []int{1, 2, 1, 1, 1, 1, 2}
	// Group weights 2, 2, 3, 2. Heaviest first: {2,4,5} to lane 0 (3);
	// then by first index: {0,3} to lane 1 (2), {1} to lane 1 (4), {6} to
	// lane 0 (5).
	want := [][]int{{2, 4, 5, 6}, {0, 1, 3}}
	for range 3 {
		if got := Assign(p, weights, 2); !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if got := Assign(p, weights, 6); len(got) != 6 || len(got[4]) != 0 || len(got[5]) != 0 {
		t.Fatalf("more lanes than groups: %v", got)
	}
}

// conflicting is the reference conflict rule, pair by pair.
func conflicting(a, b Access) bool {
	if a.All || b.All {
		return true
	}
	hit := func(ws, other []Key) bool {
		for _, w := range ws {
			for _, o := range other {
				// Rows named through different lookups may be one row.
				if w.Rel == o.Rel && (w.Row == o.Row || w.Via != o.Via || w.Whole() || o.Whole()) {
					return true
				}
			}
		}
		return false
	}
	return hit(a.Writes, b.Writes) || hit(a.Writes, b.Reads) || hit(b.Writes, a.Reads)
}

// randomStatement is a statement over the test catalog, with arguments.
func randomStatement(r *rand.Rand) (string, []any) {
	id := func() any {
		switch r.Intn(4) {
		case 0:
			return fmt.Sprint(r.Intn(4))
		case 1:
			return fmt.Sprintf("0%d", r.Intn(4))
		}
		return int64(r.Intn(4))
	}
	tables := []string{"savings", "checking", "parent", "child", "uniq", "history"}
	tbl := tables[r.Intn(len(tables))]
	col := map[string]string{"savings": "custid", "checking": "custid"}[tbl]
	if col == "" {
		col = map[string]string{"history": "h_id"}[tbl]
	}
	if col == "" {
		col = "id"
	}
	name := func() any { return fmt.Sprintf("n%d", r.Intn(3)) }
	switch r.Intn(12) {
	case 9:
		return fmt.Sprintf("UPDATE %s SET x = 1 WHERE %s = (SELECT custid FROM customers WHERE name = $1)", tbl, col), []any{name()}
	case 10:
		if r.Intn(4) == 0 {
			return "UPDATE customers SET name = $1 WHERE custid = $2", []any{name(), id()}
		}
		return "SELECT * FROM customers a JOIN savings s ON s.custid = a.custid WHERE a.name = $1", []any{name()}
	case 11:
		return fmt.Sprintf("DELETE FROM %s WHERE %s = (SELECT custid FROM customers WHERE code = $1)", tbl, col), []any{id()}
	case 0:
		return fmt.Sprintf("SELECT * FROM %s WHERE %s = $1", tbl, col), []any{id()}
	case 1:
		return fmt.Sprintf("UPDATE %s SET x = 1 WHERE %s = $1", tbl, col), []any{id()}
	case 2:
		return fmt.Sprintf("DELETE FROM %s WHERE %s IN ($1, $2)", tbl, col), []any{id(), id()}
	case 3:
		return fmt.Sprintf("INSERT INTO %s (%s, x) VALUES ($1, 0)", tbl, col), []any{id()}
	case 4:
		return fmt.Sprintf("SELECT * FROM %s WHERE %s = $1 FOR UPDATE", tbl, col), []any{id()}
	case 5:
		return fmt.Sprintf("SELECT count(*) FROM %s", tbl), nil
	case 6:
		return "SELECT nextval('s" + fmt.Sprint(r.Intn(2)) + "')", nil
	case 7:
		if r.Intn(20) == 0 {
			return "TRUNCATE " + tbl, nil
		}
		return "SELECT * FROM savings s JOIN checking c USING (custid) WHERE s.custid = $1", []any{id()}
	}
	return fmt.Sprintf("UPDATE %s SET x = 1 WHERE %s = $1 OR x = 2", tbl, col), []any{id()}
}

// TestScheduleSound: for random blocks over the test catalog, txs of
// different groups never conflict by the reference rule, groups are in
// block order and Schedule is deterministic.
func TestScheduleSound(t *testing.T) {
	cat := testCatalog()
	r := rand.New(rand.NewSource(38))
	for round := range 300 {
		n := 1 + r.Intn(12)
		txs := make([]Access, n)
		for i := range txs {
			for range 1 + r.Intn(3) {
				sql, args := randomStatement(r)
				txs[i].Add(Analyze(sql, args, cat))
			}
		}
		p := Schedule(txs)
		group := make([]int, n)
		seen := 0
		for g, idx := range p.Groups {
			for k, i := range idx {
				if k > 0 && idx[k-1] >= i {
					t.Fatalf("round %d: group %v not in block order", round, idx)
				}
				group[i] = g
				seen++
			}
			if g > 0 && p.Groups[g-1][0] >= idx[0] {
				t.Fatalf("round %d: groups not ordered by first index: %v", round, p.Groups)
			}
		}
		if seen != n {
			t.Fatalf("round %d: %d of %d txs scheduled: %v", round, seen, n, p.Groups)
		}
		for i := range txs {
			for j := i + 1; j < n; j++ {
				if group[i] != group[j] && conflicting(txs[i], txs[j]) {
					t.Fatalf("round %d: txs %d and %d conflict but run apart:\n%+v\n%+v\n%v", round, i, j, txs[i], txs[j], p.Groups)
				}
			}
		}
		if again := Schedule(txs); !reflect.DeepEqual(again, p) {
			t.Fatalf("round %d: two schedules of one block differ", round)
		}
	}
}

// TestScheduleLookups: keys found through one lookup with different
// values run apart; a key found by lookup and one given by value, or two
// lookups through different unique columns, may be one row and run
// together where one writes; a write to the looked-up table joins them.
func TestScheduleLookups(t *testing.T) {
	cat := testCatalog()
	deposit := func(name string) Access {
		return Analyze("UPDATE checking SET bal = bal + 1 WHERE custid = (SELECT custid FROM customers WHERE name = $1)", args(name), cat)
	}
	byValue := Analyze("UPDATE checking SET bal = 0 WHERE custid = 7", nil, cat)
	byCode := Analyze("UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers WHERE code = 7)", nil, cat)
	rename := Analyze("UPDATE customers SET name = 'b' WHERE custid = 9", nil, cat)
	balance := Analyze("SELECT s.bal FROM customers a JOIN savings s ON s.custid = a.custid WHERE a.name = 'a'", nil, cat)
	cases := []struct {
		name string
		txs  []Access
		want [][]int
	}{
		{"different names", []Access{deposit("a"), deposit("b"), deposit("c")}, [][]int{{0}, {1}, {2}}},
		{"one name", []Access{deposit("a"), deposit("b"), deposit("a")}, [][]int{{0, 2}, {1}}},
		{"a key by value", []Access{deposit("a"), deposit("b"), byValue}, [][]int{{0, 1, 2}}},
		{"a lookup by another column", []Access{deposit("a"), byCode}, [][]int{{0, 1}}},
		{"a write to the looked-up table", []Access{deposit("a"), deposit("b"), rename}, [][]int{{0, 1, 2}}},
		{"reads by lookup", []Access{balance, deposit("a"), balance}, [][]int{{0}, {1}, {2}}},
	}
	for _, c := range cases {
		if got := Schedule(c.txs).Groups; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: groups %v, want %v", c.name, got, c.want)
		}
	}
}
