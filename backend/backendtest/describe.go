package backendtest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
)

// describeTests check the read path's column types (Rows.Types) and
// Describe: the types a PostgreSQL wire front end sends to its clients.
var describeTests = []struct {
	name string
	fn   func(*testing.T, subject)
}{
	{"QueryReportsColumnTypes", testQueryTypes},
	{"DescribeReadsAndParams", testDescribeReads},
	{"DescribeWritesChangesNothing", testDescribeWrites},
	{"DescribeRefusesWhatQueryRefuses", testDescribeRefusals},
}

// typedColumns are the columns of table typed (Spelling.Typed).
var typedColumns = []string{"i", "b", "r", "tx", "vc", "ok", "bl", "n", "d", "ts"}

// setupTyped commits block 1: table typed with one row.
func (n *node) setupTyped() {
	n.t.Helper()
	blk := n.begin()
	n.exec(blk, n.sp.Typed.Create)
	n.exec(blk, `INSERT INTO typed (i, b, r, tx, vc, ok, bl, n, d, ts) VALUES (1, 2, 1.5, 't', 'v', TRUE, $1, 3.25, '2024-01-02', '2024-01-02 03:04:05')`, []byte{1, 2})
	n.commit(blk, 1)
}

func (n *node) describe(sql string) *backend.Description {
	n.t.Helper()
	d, err := n.Describe(ctx(n.t), n.q(sql))
	if err != nil {
		n.t.Fatalf("Describe %q: %v", sql, err)
	}
	return d
}

func columnsOf(d *backend.Description) (names, types []string) {
	for _, c := range d.Columns {
		names = append(names, c.Name)
		types = append(types, c.Type)
	}
	return names, types
}

func testQueryTypes(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setupTyped()
	rows, _ := n.query(`SELECT * FROM typed`)
	if want := n.sp.Typed.Types; !reflect.DeepEqual(rows.Types, want) {
		t.Errorf("SELECT * types = %q, want %q", rows.Types, want)
	}
	// Expressions: SQLite types them by their values, the servers by
	// their result metadata.
	rows, _ = n.query(`SELECT count(*) AS c, max(tx) AS m FROM typed`)
	if want := []string{"int8", "text"}; !reflect.DeepEqual(rows.Types, want) {
		t.Errorf("expression types = %q, want %q", rows.Types, want)
	}
	if len(rows.Types) != len(rows.Columns) {
		t.Errorf("%d types for %d columns", len(rows.Types), len(rows.Columns))
	}
	// A block's results carry no types: they enter the AppHash.
	blk := n.begin()
	defer blk.Rollback(ctx(t))
	if r := n.exec(blk, `SELECT * FROM typed`); r.Types != nil {
		t.Errorf("Exec's rows carry types %q, want none", r.Types)
	}
}

func testDescribeReads(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setupTyped()
	d := n.describe(`SELECT * FROM typed`)
	names, types := columnsOf(d)
	if !reflect.DeepEqual(names, typedColumns) || !reflect.DeepEqual(types, n.sp.Typed.Types) {
		t.Errorf("Describe SELECT * = %q %q, want %q %q", names, types, typedColumns, n.sp.Typed.Types)
	}
	if d.Height != 1 || len(d.Params) != 0 {
		t.Errorf("Describe SELECT *: height %d, params %q; want 1, none", d.Height, d.Params)
	}

	d = n.describe(`SELECT i, tx, count(*) AS c FROM typed WHERE b > $1 AND tx <> $2 GROUP BY i, tx`)
	names, types = columnsOf(d)
	if want := []string{"i", "tx", "c"}; !reflect.DeepEqual(names, want) {
		t.Errorf("columns = %q, want %q", names, want)
	}
	want := n.sp.Grouped
	if !reflect.DeepEqual(d.Params, want.Params) || !reflect.DeepEqual(types, want.Types) {
		t.Errorf("params %q, types %q; want %q, %q", d.Params, types, want.Params, want.Types)
	}
}

func testDescribeWrites(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setupTyped()
	writes := []struct {
		sql    string
		params int
	}{
		{`INSERT INTO typed (i, tx) VALUES ($1, $2)`, 2},
		{`UPDATE typed SET tx = $1 WHERE i = $2`, 2},
		{`DELETE FROM typed WHERE i = $1`, 1},
		{`DELETE FROM typed`, 0},
		{`CREATE TABLE described (id INTEGER PRIMARY KEY)`, 0},
	}
	for _, w := range writes {
		d := n.describe(w.sql)
		if len(d.Params) != w.params || len(d.Columns) != 0 || d.Height != 1 {
			t.Errorf("Describe %q = params %q, columns %v, height %d; want %d params, no columns, height 1", w.sql, d.Params, d.Columns, d.Height, w.params)
		}
	}
	if want := n.sp.UpdateParams; want != nil {
		d := n.describe(`UPDATE typed SET tx = $1 WHERE i = $2`)
		if !reflect.DeepEqual(d.Params, want) {
			t.Errorf("UPDATE params = %q, want %q", d.Params, want)
		}
	}
	if n.sp.InsertReturning == nil {
		// MySQL 8 has no RETURNING (a syntax error); MariaDB's cannot be
		// described without running the write (the MySQL backend's
		// Describe).
		_, err := n.Describe(ctx(t), `DELETE FROM typed WHERE i = 1 RETURNING i`)
		if e := backend.AsError(err); e == nil || (e.Class != backend.ClassSyntax && e.Class != backend.ClassNotImplemented) {
			t.Errorf("Describe of DELETE ... RETURNING: %v, want a syntax or not-implemented error", err)
		}
	} else {
		d := n.describe(`INSERT INTO typed (i, tx) VALUES ($1, 'x') RETURNING i, tx`)
		names, types := columnsOf(d)
		want := n.sp.InsertReturning
		if !reflect.DeepEqual(names, []string{"i", "tx"}) || !reflect.DeepEqual(types, want) || len(d.Params) != 1 {
			t.Errorf("Describe INSERT ... RETURNING = %q %q params %q; want [i tx] %q, one param", names, types, d.Params, want)
		}
	}
	// Nothing was written, and no lock outlived a call: a block can
	// still change the schema of the described table at once.
	if got := n.ids(`SELECT i FROM typed ORDER BY i`); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("rows after Describe of writes = %v, want [1]", got)
	}
	if _, _, err := n.Query(ctx(t), n.q(`SELECT id FROM described`), nil); err == nil {
		t.Fatal("Describe of CREATE TABLE created the table")
	}
	if st, err := n.LoadState(ctx(t)); err != nil || st.Height != 1 {
		t.Fatalf("state after Describe = %+v, %v; want height 1", st, err)
	}
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	blk, err := n.Begin(c)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	if _, err := blk.Exec(c, `DROP TABLE typed`, nil); err != nil {
		t.Fatalf("DROP TABLE after Describe (a lock left behind?): %v", err)
	}
	n.commit(blk, 2)
}

func testDescribeRefusals(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setupTyped()
	c := ctx(t)
	_, err := n.Describe(c, `SELEC * FROM typed`)
	wantClass(t, "Describe of a syntax error", err, backend.ClassSyntax)
	if _, err := n.Describe(c, ``); backend.AsError(err) == nil {
		t.Errorf("Describe of empty text: %v, want a *backend.Error", err)
	}
	if _, err := n.Describe(c, n.q(`SELECT 1; SELECT 2`)); backend.AsError(err) == nil {
		t.Errorf("Describe of two statements: %v, want a *backend.Error", err)
	}
	if _, err := n.Describe(c, `SELECT * FROM no_such_table`); backend.AsError(err) == nil {
		t.Errorf("Describe of a missing table: %v, want a *backend.Error", err)
	}
	// relchain's own tables are no more describable than readable: a
	// read Query refuses, Describe refuses; and where they are hidden
	// (every gated backend), writes to them are not describable either.
	meta := n.sp.Meta
	hidden := false
	for _, s := range []string{`SELECT * FROM ` + meta, `SELECT height FROM ` + meta + ` WHERE id = 1`} {
		_, _, qerr := n.Query(c, s, nil)
		hidden = hidden || qerr != nil
		d, err := n.Describe(c, s)
		switch {
		case qerr != nil && err == nil:
			t.Errorf("Describe(%q) = %+v, but Query refuses it (%v)", s, d, qerr)
		case qerr == nil && err != nil:
			t.Errorf("Describe(%q): %v, but Query runs it", s, err)
		case err != nil && backend.AsError(err) == nil:
			t.Errorf("Describe(%q): %v, want a *backend.Error", s, err)
		}
	}
	for _, s := range []string{`UPDATE ` + meta + ` SET height = 99`, `DELETE FROM ` + meta} {
		d, err := n.Describe(c, s)
		if hidden && err == nil {
			t.Errorf("Describe(%q) = %+v, want refused: relchain's tables are hidden", s, d)
		} else if err != nil && backend.AsError(err) == nil {
			t.Errorf("Describe(%q): %v, want a *backend.Error", s, err)
		}
	}
	if st, err := n.LoadState(c); err != nil || st.Height != 1 {
		t.Fatalf("state after refused Describes = %+v, %v; want height 1", st, err)
	}
}
