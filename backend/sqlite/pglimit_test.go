package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/relchain/relchain/backend"
)

// A SELECT with LIMIT and no ORDER BY over a keyed table, which PostgreSQL's
// gate accepts (knex's .first(), Django's .get() inside a transaction),
// runs in a block ordered by the table's key, as on PostgreSQL storage; a
// table without a key is the statement's error naming what to add.
func TestPostgresDialectLimitWithoutOrderByRunsInKeyOrder(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1,
		pgStmt{sql: `create table "knex_counter" ("id" integer, "n" integer not null, constraint "knex_counter_pkey" primary key ("id"))`},
		pgStmt{sql: `CREATE TABLE u (a int4 NOT NULL, b text NOT NULL, UNIQUE (b), UNIQUE (a))`},
		pgStmt{sql: `CREATE TABLE nokey (v int4)`},
		pgStmt{sql: `INSERT INTO "knex_counter" VALUES (3, 30), (1, 10), (2, 20)`},
		pgStmt{sql: `INSERT INTO u VALUES (2, 'a'), (1, 'b')`},
		pgStmt{sql: `INSERT INTO nokey VALUES (1)`})
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	for _, c := range []struct {
		sql  string
		args []any
		want string
	}{
		{`select * from "knex_counter" where "id" > $1 limit $2`, []any{int64(0), int64(2)}, "[[1 10] [2 20]]"},
		{`SELECT n FROM knex_counter LIMIT 1 OFFSET 2`, nil, "[[30]]"},
		{`SELECT a FROM u LIMIT 1`, nil, "[[1]]"}, // ordered by a (UNIQUE (a) and UNIQUE (b) are both one column; ties by index name)
	} {
		rows, err := blk.Exec(ctx, c.sql, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := fmt.Sprint(rows.Rows); got != c.want {
			t.Errorf("%s = %s, want %s", c.sql, got, c.want)
		}
	}
	_, err = blk.Exec(ctx, `SELECT v FROM nokey LIMIT 1`, nil)
	if e := backend.AsError(err); e == nil || e.SQLState != "42P10" {
		t.Errorf("LIMIT over a table without a key = %v, want 42P10 naming the missing key", err)
	}
	got, _, err := b.Query(ctx, `SELECT id FROM knex_counter LIMIT 2`, nil)
	if err != nil || fmt.Sprint(got.Rows) != "[[1] [2]]" {
		t.Errorf("a read with LIMIT: %v, %v; want the first two keys", got, err)
	}
}
