package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// rowsText is a result's rows as text, one row per entry, columns joined
// by commas, in the order the backend returned them.
func rowsText(r *backend.Rows) string {
	if r == nil {
		return "<no rows>"
	}
	var rows []string
	for _, row := range r.Rows {
		var cols []string
		for _, v := range row {
			cols = append(cols, fmt.Sprint(v))
		}
		rows = append(rows, strings.Join(cols, ","))
	}
	return strings.Join(rows, " ")
}

// A LIMIT without ORDER BY on one table with a key keeps the first rows in
// key order, in a block and on the read path, whatever the rows' physical
// order (here the reverse of the key's): Django's .get() (LIMIT 21),
// OFFSET, FETCH FIRST, a subquery of DELETE ... WHERE id IN, a CTE and an
// alias. A table without a key refuses the statement in the block, saying
// what to add; a primary key added by an earlier tx of the same block
// counts, and so does a unique index of NOT NULL columns (one of nullable
// columns does not).
func TestLimitWithoutOrderByUsesTheKey(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	tx := 0
	run := func(sql string) (*backend.Rows, error) {
		t.Helper()
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: tx}); err != nil {
			t.Fatal(err)
		}
		tx++
		rows, err := blk.Exec(ctx(t), sql, nil)
		end := blk.Release
		if err != nil {
			if backend.AsError(err) == nil {
				t.Fatalf("%s: %v", sql, err)
			}
			end = blk.RollbackTo
		}
		if err := end(ctx(t)); err != nil {
			t.Fatal(err)
		}
		return rows, err
	}
	must := func(sql, want string) {
		t.Helper()
		rows, err := run(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if want != "" && rowsText(rows) != want {
			t.Fatalf("%s: rows %q, want %q", sql, rowsText(rows), want)
		}
	}
	refused := func(sql, want string) {
		t.Helper()
		_, err := run(sql)
		if e := backend.AsError(err); e == nil || !strings.Contains(e.Message, want) {
			t.Fatalf("%s: %v, want a statement error with %q", sql, err, want)
		}
	}
	must(`CREATE TABLE k (id int PRIMARY KEY, v text NOT NULL)`, "")
	// Physical order 5, 4, 3, 2, 1.
	for i := 5; i >= 1; i-- {
		must(fmt.Sprintf(`INSERT INTO k VALUES (%d, 'v%d')`, i, i), "")
	}
	must(`SELECT id, v FROM k WHERE v <> '' LIMIT 21`, "1,v1 2,v2 3,v3 4,v4 5,v5")
	must(`SELECT id FROM k LIMIT 2`, "1 2")
	must(`SELECT id FROM k OFFSET 3`, "4 5")
	must(`SELECT id FROM k FETCH FIRST 1 ROW ONLY`, "1")
	must(`SELECT x.v AS id FROM k AS x LIMIT 1`, "v1")
	must(`WITH w AS (SELECT id FROM k LIMIT 2) SELECT count(*), max(id) FROM w`, "2,2")
	must(`SELECT (SELECT v FROM k LIMIT 1) AS first`, "v1")
	must(`DELETE FROM k WHERE id IN (SELECT id FROM k LIMIT 2) RETURNING id`, "1 2")
	must(`UPDATE k SET v = 'first' WHERE id = (SELECT id FROM k OFFSET 1 LIMIT 1) RETURNING id`, "4")

	refused(`SELECT a FROM nosuch LIMIT 1`, `relation "nosuch" does not exist`)
	refused(`SELECT a FROM public.nosuch LIMIT 1`, `relation "public.nosuch" does not exist`)
	must(`CREATE TABLE nk (a int NOT NULL, b int)`, "")
	must(`INSERT INTO nk VALUES (3, 3), (1, 1), (2, 2)`, "")
	refused(`SELECT a FROM nk LIMIT 1`, "add ORDER BY, or a primary key to nk")
	refused(`DELETE FROM nk WHERE a IN (SELECT a FROM nk LIMIT 1)`, "add ORDER BY, or a primary key to nk")
	must(`CREATE UNIQUE INDEX nk_b ON nk (b)`, "")
	refused(`SELECT a FROM nk LIMIT 1`, "add ORDER BY, or a primary key to nk") // b may be NULL
	must(`CREATE UNIQUE INDEX nk_a ON nk (a)`, "")
	must(`SELECT b FROM nk LIMIT 2`, "1 2")
	must(`ALTER TABLE nk ADD PRIMARY KEY (b)`, "")
	must(`SELECT a FROM nk OFFSET 1 LIMIT 1`, "2")
	// Django's select_related().get(): a join, ordered by both tables' keys.
	must(`SELECT k.id, nk.b FROM k LEFT JOIN nk ON nk.a = k.id OFFSET 1 LIMIT 21`, "4,<nil> 5,<nil>")
	must(`SELECT x.id, y.b FROM k AS x, nk AS y WHERE y.a <= x.id LIMIT 2`, "3,1 3,2")

	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ sql, want string }{
		{`SELECT id FROM k LIMIT 2`, "3 4"},
		{`SELECT id, v FROM k OFFSET 1`, "4,first 5,v5"},
		{`SELECT * FROM (SELECT id FROM k LIMIT 1) s`, "3"},
		{`SELECT a FROM nk LIMIT 1`, "1"},
	} {
		rows, _, err := b.Query(ctx(t), c.sql, nil)
		if err != nil {
			t.Fatalf("read %s: %v", c.sql, err)
		}
		if got := rowsText(rows); got != c.want {
			t.Fatalf("read %s: rows %q, want %q", c.sql, got, c.want)
		}
	}
}

// BenchmarkKeyOrderedRead measures what the key lookup adds to Django's
// .get() on the read path: the same point read with LIMIT 21 and no ORDER
// BY (ordered by the key, looked up first) and with ORDER BY id written
// out (no lookup):
//
//	RELCHAIN_TEST_PG=<server> go test ./backend/postgres -run '^$' -bench KeyOrderedRead
func BenchmarkKeyOrderedRead(b *testing.B) {
	be := mustOpen(b, pgtest.DSN(b))
	defer be.Close()
	runSetupBlock(b, be, 1, `CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL)`,
		`INSERT INTO item SELECT i, 'n' || i FROM generate_series(1, 1000) AS i`)
	for _, q := range []struct{ name, sql string }{
		{"limit-without-order-by", `SELECT id, name FROM item WHERE id = $1 LIMIT 21`},
		{"order-by-id", `SELECT id, name FROM item WHERE id = $1 ORDER BY id LIMIT 21`},
	} {
		b.Run(q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := be.QueryLatest(context.Background(), q.sql, []any{int64(i%1000 + 1)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
