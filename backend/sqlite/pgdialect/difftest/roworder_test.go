package difftest

import (
	"path/filepath"

	"github.com/ncruces/go-sqlite3"
	"slices"
	"testing"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// TestAnswersIgnoreRowOrder: SQLite meets rows in its scan order, which
// is not replicated state (pgdialect/DESIGN.md, "Equal values of several
// stored forms"), so a translated query that chooses among rows the
// query does not order (a group's or a DISTINCT row's display scale, a
// min of equal numerics, DISTINCT ON's ties) must choose by value: the
// same rows inserted in opposite orders give the same answer, forms and
// all. It needs no PostgreSQL.
func TestAnswersIgnoreRowOrder(t *testing.T) {
	rows := []string{
		"INSERT INTO g VALUES (1.00, 'a', 1, 'x ')", "INSERT INTO g VALUES (1.0, 'a', 2, 'x')",
		"INSERT INTO g VALUES (1, 'b', 1, 'x  ')", "INSERT INTO g VALUES (2.50, 'b', 3, 'y')",
		"INSERT INTO g VALUES (2.5, 'c', 3, 'y ')", "INSERT INTO g VALUES (NULL, 'c', 4, NULL)",
		"INSERT INTO h VALUES (1.000, 'a')", "INSERT INTO h VALUES (2.5000, 'b')",
	}
	queries := []string{
		"SELECT n, count(*) FROM g GROUP BY n",
		"SELECT n, count(*) FROM g GROUP BY 1 HAVING n > 0 ORDER BY n",
		"SELECT s, max(n), min(n) FROM g GROUP BY s",
		"SELECT b, count(*) FROM g GROUP BY b",
		"SELECT DISTINCT n FROM g",
		"SELECT DISTINCT n, s FROM g ORDER BY 1, 2",
		"SELECT DISTINCT b FROM g",
		"SELECT n FROM g UNION SELECT n FROM h",
		"SELECT n FROM h UNION SELECT n FROM g",
		"SELECT n FROM g INTERSECT SELECT n FROM h",
		"SELECT n, s FROM g EXCEPT SELECT n, s FROM h",
		"SELECT DISTINCT ON (n) n, s, k FROM g ORDER BY n",
		"SELECT DISTINCT ON (k) k, n FROM g ORDER BY k, s",
		"SELECT DISTINCT ON (s) s, b FROM g ORDER BY s",
		"SELECT n, (SELECT g.n) FROM g GROUP BY n",
		"SELECT (SELECT CAST(g.n AS text) FROM h WHERE h.n = g.n) FROM g GROUP BY n",
		"SELECT n, (SELECT CAST(g.n AS text) FROM h WHERE CAST(g.n AS text) <> h.s ORDER BY h.s LIMIT 1) FROM g GROUP BY n",
		"SELECT b, (SELECT g.b || '|') FROM g GROUP BY b",
	}
	answers := func(order []string) []string {
		lite, err := newLiteEngine()
		if err != nil {
			t.Fatal(err)
		}
		defer lite.close()
		var out []string
		run := func(sql string) outcome {
			st := translated{sql: sql}
			st.tr, st.err = pgdialect.Translate(sql, lite.cat)
			return lite.run(st)
		}
		for _, sql := range append([]string{"CREATE TABLE g (n numeric, s text, k int4, b bpchar)", "CREATE TABLE h (n numeric, s text)"}, order...) {
			if o := run(sql); o.failed() {
				t.Fatalf("%s: %s", sql, o)
			}
		}
		for _, q := range queries {
			o := run(q)
			if o.failed() {
				t.Errorf("%s: %s", q, o)
			}
			rows := renderRows(o.Rows)
			slices.Sort(rows)
			out = append(out, q+" => "+firstLine(o.String())+" "+joinRows(rows))
		}
		return out
	}
	reversed := slices.Clone(rows)
	slices.Reverse(reversed)
	a, b := answers(rows), answers(reversed)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("the answer depends on the rows' physical order:\n  inserted in one order: %s\n  in the other:          %s", a[i], b[i])
		}
	}
}

func joinRows(rows []string) string {
	out := ""
	for _, r := range rows {
		out += r + " "
	}
	return out
}

// TestVacuumIntoKeepsRowOrder: the argument that SQLite's scan order is
// the same on every node (pgdialect/DESIGN.md, "Row order") rests on
// checkpoints, taken with VACUUM INTO, keeping every rowid; and on a
// plain VACUUM, which SQLite's documentation lets renumber the rowids of
// tables without INTEGER PRIMARY KEY, keeping their relative order.
func TestVacuumIntoKeepsRowOrder(t *testing.T) {
	dir := t.TempDir()
	src, err := sqlite3.Open(filepath.Join(dir, "src.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rowids := func(c *sqlite3.Conn, table string) []int64 {
		stmt, _, err := c.Prepare("SELECT rowid FROM " + table + " ORDER BY rowid")
		if err != nil {
			t.Fatal(err)
		}
		defer stmt.Close()
		var out []int64
		for stmt.Step() {
			out = append(out, stmt.ColumnInt64(0))
		}
		if err := stmt.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, sql := range []string{
		"CREATE TABLE plain (n TEXT)", "CREATE TABLE indexed (n TEXT)", "CREATE INDEX ix ON indexed (n)",
		"INSERT INTO plain VALUES ('a'), ('b'), ('c'), ('d')", "INSERT INTO indexed SELECT n FROM plain",
		"DELETE FROM plain WHERE n = 'b'", "DELETE FROM indexed WHERE n = 'b'",
		"VACUUM INTO '" + filepath.Join(dir, "copy.db") + "'",
	} {
		if err := src.Exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	cp, err := sqlite3.Open(filepath.Join(dir, "copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	for _, table := range []string{"plain", "indexed"} {
		if got, want := rowids(cp, table), rowids(src, table); !slices.Equal(got, want) {
			t.Errorf("%s: VACUUM INTO gives rowids %v, the source %v", table, got, want)
		}
	}
	order := func(c *sqlite3.Conn) []string {
		stmt, _, err := c.Prepare("SELECT n FROM plain ORDER BY rowid")
		if err != nil {
			t.Fatal(err)
		}
		defer stmt.Close()
		var out []string
		for stmt.Step() {
			out = append(out, stmt.ColumnText(0))
		}
		return out
	}
	before := order(src)
	if err := src.Exec("VACUUM"); err != nil {
		t.Fatal(err)
	}
	if after := order(src); !slices.Equal(before, after) {
		t.Errorf("VACUUM changed the rows' rowid order: %v, then %v", before, after)
	}
}
