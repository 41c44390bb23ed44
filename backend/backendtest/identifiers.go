package backendtest

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
)

// Restore checkpoints b, whose last committed block is height (it may
// commit one more, empty block first and return its height), restores that
// checkpoint into a database of its own and returns a Backend open on it
// with the height of the restored state. The suite closes it.
type Restore func(t *testing.T, b backend.Backend, height int64) (backend.Backend, int64)

// Option adds to what Run tests.
type Option func(*config)

type config struct{ restore Restore }

// WithRestore lets Run check a checkpoint's restore (a backend-specific
// mechanism the Backend interface does not cover).
func WithRestore(r Restore) Option { return func(c *config) { c.restore = r } }

// internalNames are identifiers relchain's own SQL uses on some backend:
// aliases, columns of its tables, helper and function names, trigger row
// names, and words that look reserved. A user's table or column of that
// name must not be able to capture relchain's statements (issue 14: a
// column x made PostgreSQL's row_to_json(x) scan fail on every node).
var internalNames = []string{
	"x", "t", "r", "c", "n", "d", "s", "q", "id", "height", "app_hash", "k", "v", "key", "value",
	"tbl", "op", "img", "tx", "old", "new", "row", "seq", "data", "digest", "sum", "rel",
	"existing_rows", "meta", "changes", "system", "json", "quote", "max", "select", "from", "where",
	"order", "group", "table", "relchain", "relchain_tx", "row_to_json", "format", "coalesce",
	"record_out", "textin", "images",
}

// mixedNames are names that differ from internalNames only by case or hold
// blanks and quotes; they live in a table of their own, since SQLite and
// MySQL compare column names without case.
var mixedNames = []string{"Select", "KEY", "x y", "OLD", "NEW", "Row", "X", `a"b`, "a`b", "Id"}

// identTable is a table of the test: its name and columns (the first is
// the integer key, the second a float, the rest text).
type identTable struct {
	name string
	cols []string
}

func (it identTable) create(sp Spelling) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + sp.quote(it.name) + " (")
	for i, c := range it.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sp.quote(c))
		switch i {
		case 0:
			b.WriteString(" INTEGER PRIMARY KEY")
		case 1:
			b.WriteString(" {FRACTION} NOT NULL")
		default:
			b.WriteString(" VARCHAR(40)")
		}
	}
	return b.String() + ")"
}

// insert is an INSERT of row id: the float id/2, each text column its
// name and the id, or NULL for every third column.
func (it identTable) insert(sp Spelling, id int) string {
	cols := make([]string, len(it.cols))
	vals := make([]string, len(it.cols))
	for i, c := range it.cols {
		cols[i] = sp.quote(c)
		switch {
		case i == 0:
			vals[i] = itoa(id)
		case i == 1:
			vals[i] = itoa(id) + ".5"
		case (i+id)%3 == 0:
			vals[i] = "NULL"
		default:
			vals[i] = "'" + strings.ReplaceAll(strings.ReplaceAll(c, "'", "''"), "\\", "") + "-" + itoa(id) + "'"
		}
	}
	return "INSERT INTO " + sp.quote(it.name) + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")"
}

func itoa(i int) string { return strconv.Itoa(i) }

// identTables are the test's tables in spelling sp.
func identTables(sp Spelling) []identTable {
	lower := append([]string{"id", "x"}, without(internalNames, "id", "x")...)
	lower = append(lower, sp.SystemNames...)
	return []identTable{
		{name: "x", cols: lower},
		{name: "Select", cols: append([]string{"Id", "X"}, without(mixedNames, "Id", "X")...)},
	}
}

func without(names []string, drop ...string) []string {
	var out []string
	for _, n := range names {
		keep := true
		for _, d := range drop {
			keep = keep && n != d
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}

// testIdentifiers runs capture, ChangeDigest, StateDigest (with the rescan
// of a schema change), a reopen and, where the backend's test provides
// one, a checkpoint's restore over tables whose names and columns are
// relchain's own internal identifiers.
func testIdentifiers(t *testing.T, sub subject, restore Restore) {
	n := mustOpen(t, sub)
	tables := identTables(n.sp)
	// DDL first in its block (MySQL commits DDL implicitly).
	blk := n.begin()
	for _, it := range tables {
		n.exec(blk, it.create(n.sp))
	}
	n.finish(blk, 1)
	blk = n.begin()
	for _, it := range tables {
		for id := 1; id <= 5; id++ {
			n.exec(blk, it.insert(n.sp, id))
		}
	}
	n.finish(blk, 2)

	blk = n.begin()
	for _, it := range tables {
		key, f, txt := n.sp.quote(it.cols[0]), n.sp.quote(it.cols[1]), n.sp.quote(it.cols[2])
		tbl := n.sp.quote(it.name)
		if err := n.tx(blk, "UPDATE "+tbl+" SET "+f+" = "+f+" + 1, "+txt+" = 'changed' WHERE "+key+" <= 2",
			"DELETE FROM "+tbl+" WHERE "+key+" = 3", it.insert(n.sp, 6)); err != nil {
			t.Fatalf("block 3 on %s: %v", it.name, err)
		}
	}
	n.finish(blk, 3)

	// A schema change: StateDigest rescans every table.
	blk = n.begin()
	for _, it := range tables {
		n.exec(blk, "ALTER TABLE "+n.sp.quote(it.name)+" ADD COLUMN "+n.sp.quote("img2")+" INTEGER DEFAULT 7")
	}
	want := n.finish(blk, 4)
	rows, _ := n.query("SELECT " + n.sp.quote("Id") + ", " + n.sp.quote("x y") + " FROM " + n.sp.quote("Select") + " ORDER BY " + n.sp.quote("Id"))
	if len(rows.Rows) != 5 {
		t.Fatalf("Select holds %d rows, want 5: %v", len(rows.Rows), rows.Rows)
	}

	n.close()
	n = mustOpen(t, sub)
	n.requireStateMatchesScan(4, want)
	if restore == nil {
		return
	}
	r, h := restore(t, n.Backend, 4)
	defer r.Close()
	src, sh, err := n.StoredState(ctx(t))
	if err != nil || sh != h {
		t.Fatalf("source state: height %d (want %d), %v", sh, h, err)
	}
	stored, rh, err := r.StoredState(ctx(t))
	if err != nil || rh != h {
		t.Fatalf("restored StoredState: height %d (want %d), %v", rh, h, err)
	}
	scanned, _, err := r.ScanState(ctx(t))
	if err != nil {
		t.Fatalf("restored ScanState: %v", err)
	}
	if !bytes.Equal(stored.Digest(), src.Digest()) || !bytes.Equal(scanned.Digest(), src.Digest()) {
		t.Fatal("the restored checkpoint's state differs from the source's")
	}
}
