package e2e

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Issue 33, item 3: LIMIT without ORDER BY on one table with a key keeps
// the first rows in key order, in blocks, rehearsals and reads alike, so
// every node answers the same rows whatever its heap order. Django's
// .get() adds LIMIT 21 without ORDER BY, inside atomic() and outside.
// Here node 3's heap order differs from the others' (a node-local
// CLUSTER rewrote it in key order, 1, 2, 3, where the others hold 1, 3, 2
// after a delete and a re-insert; a node-local VACUUM can do the same, as
// in TestFloatAggregatesIgnoreNodeLocalVacuum_Postgres): an OFFSET 1 LIMIT
// 1 that kept the heap's second row would answer 3 on nodes 0 to 2 and 2
// on node 3, and a write built on it would stop the network.
func TestLimitWithoutOrderByIsKeyOrdered_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: "postgres", pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExecEverywhere(ctx, 0, stmt("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER NOT NULL)"),
		stmt("CREATE TABLE res (k TEXT PRIMARY KEY, v INTEGER)"))
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO items VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3)"))
	c.mustExecEverywhere(ctx, 0, stmt("DELETE FROM items WHERE id = 2"))
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO items VALUES (2, 'two', 2)"))
	// Node-local maintenance that changes no row: node 3 rewrites its heap
	// in key order (a VACUUM that reclaims the deleted row's slot does the
	// same, when no snapshot holds it).
	c.tamper(victim, "CLUSTER items USING items_pkey")
	if a, b := c.heapOrder(0, "items"), c.heapOrder(victim, "items"); reflect.DeepEqual(a, b) {
		t.Fatalf("the VACUUM did not change node 3's heap order (%v and %v): the test cannot show anything", a, b)
	}

	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// Django's .get() outside a transaction: a read.
	if got := pgxIDs(t, conn, `SELECT id, name FROM items WHERE n >= $1 LIMIT 21`, 0); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf(".get() outside a transaction: ids %v, want [1 2 3]", got)
	}
	// Inside atomic(): .get(), then writes whose rows a LIMIT chooses.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := pgxIDs(t, tx.Conn(), `SELECT id, name FROM items WHERE n >= $1 LIMIT 21`, 0); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf(".get() inside a transaction: ids %v, want [1 2 3]", got)
	}
	// select_related().get(): a join, ordered by both tables' keys.
	if got := pgxIDs(t, tx.Conn(), `SELECT i.id, r.k FROM items i LEFT JOIN res r ON r.v = i.id WHERE i.n >= $1 LIMIT 21`, 0); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf("a join's .get() inside a transaction: ids %v, want [1 2 3]", got)
	}
	for _, sql := range []string{
		`INSERT INTO res SELECT 'first', id FROM items LIMIT 1`,
		`INSERT INTO res SELECT 'second', id FROM items OFFSET 1 FETCH FIRST 1 ROW ONLY`,
		`UPDATE items SET n = n + 10 WHERE id = (SELECT id FROM items LIMIT 1)`,
	} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatalf("%s in a transaction: %v", sql, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	// Outside a transaction: a write of its own.
	if tag := mustPgxExec(t, conn, `DELETE FROM items WHERE id IN (SELECT id FROM items WHERE n < 100 LIMIT 1)`); tag.String() != "DELETE 1" {
		t.Fatalf("DELETE … WHERE id IN (SELECT … LIMIT 1): %s", tag)
	}
	// A table without a key: refused, saying what to add.
	mustPgxExec(t, conn, `CREATE TABLE nokey (a INTEGER)`)
	_, err = conn.Exec(ctx, `INSERT INTO res SELECT 'nokey', a FROM nokey LIMIT 1`)
	if err == nil || !strings.Contains(err.Error(), "add ORDER BY, or a primary key to nokey") {
		t.Fatalf("LIMIT on a table without a key: %v, want a refusal naming what to add", err)
	}

	readCtx, cancelRead := context.WithTimeout(ctx, 90*time.Second)
	defer cancelRead()
	queries := []string{
		"SELECT k, v FROM res ORDER BY k",
		"SELECT id, n FROM items ORDER BY id",
		"SELECT id FROM items LIMIT 1",
		"SELECT id, name FROM items WHERE n >= 0 LIMIT 21",
		"SELECT i.id, r.k FROM items i LEFT JOIN res r ON r.v = i.id OFFSET 1",
	}
	h, rows := c.consistentRead(readCtx, queries...)
	for q, sql := range queries {
		c.requireSameRows(h, sql, rows[q])
	}
	want := []string{"[[first 1] [second 2]]", "[[2 2] [3 3]]", "[[2]]", "[[2 two] [3 three]]", "[[3 <nil>]]"}
	for q := range queries {
		if got := fmt.Sprint(rows[q][0]); got != want[q] {
			t.Fatalf("%s: %s, want %s", queries[q], got, want[q])
		}
	}
}

// pgxIDs runs a query through q and returns the first column of its rows.
func pgxIDs(t *testing.T, q *pgx.Conn, sql string, args ...any) []int64 {
	t.Helper()
	rows, err := q.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	ids, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (int64, error) {
		v, err := r.Values()
		if err != nil {
			return 0, err
		}
		switch x := v[0].(type) {
		case int32:
			return int64(x), nil
		case int64:
			return x, nil
		}
		return 0, fmt.Errorf("id %v is a %T", v[0], v[0])
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return ids
}

// Issue 33, items 1 and 6: the session functions drivers call answer the
// network's values on every node, in reads and in blocks (the names of the
// database and the role in blocks: reads leave them to the node, as its
// catalogs show them), and version() answers what the listener answers
// for SELECT version() itself; pgbench
// -i's DDL (a multi-table DROP TABLE IF EXISTS, CREATE TABLE … WITH
// (fillfactor=100), VACUUM ANALYZE, ALTER TABLE … ADD PRIMARY KEY) passes
// as pgbench sends it, with the tags PostgreSQL gives.
func TestSessionFunctionsAndPgbenchDDL_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: "postgres", pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var answers []string
	for i := range c.nodes {
		conn, err := pgx.Connect(ctx, c.pgURL(i, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		var schema, version, listener, schemas string
		var pid int32
		err = conn.QueryRow(ctx, `select current_schema(), pg_catalog.version(), current_schemas(false)::text, pg_backend_pid()`).
			Scan(&schema, &version, &schemas, &pid)
		if err != nil {
			t.Fatalf("%s: session functions: %v", c.nodes[i].Name, err)
		}
		if err := conn.QueryRow(ctx, `SELECT version()`).Scan(&listener); err != nil {
			t.Fatal(err)
		}
		conn.Close(context.Background())
		if version != listener || !strings.HasPrefix(version, "PostgreSQL ") {
			t.Fatalf("%s: version() %q, the listener's SELECT version() %q", c.nodes[i].Name, version, listener)
		}
		answers = append(answers, fmt.Sprint(schema, " ", schemas, " ", pid))
	}
	for i := range answers {
		if answers[i] != answers[0] || answers[0] != "public {public} 0" {
			t.Fatalf("session values per node: %q", answers)
		}
	}

	conn, err := pgx.Connect(ctx, c.pgURL(1, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	pc := conn.PgConn()
	for _, s := range []struct{ sql, tag string }{
		{"drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers", "DROP TABLE"},
		{"create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))", "CREATE TABLE"},
		{"create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)", "CREATE TABLE"},
		{"create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)", "CREATE TABLE"},
		{"create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)", "CREATE TABLE"},
		{"insert into pgbench_branches(bid,bbalance) values(1,0)", "INSERT 0 1"},
		{"insert into pgbench_tellers(tid,bid,tbalance) values (1,1,0)", "INSERT 0 1"},
		// pgbench -i empties the tables before loading them (PostgreSQL's
		// tag is TRUNCATE TABLE; the listener's tag is not checked here).
		{"truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers", ""},
		{"insert into pgbench_branches(bid,bbalance) values(1,0)", "INSERT 0 1"},
		{"vacuum analyze pgbench_branches", "VACUUM"},
		{"vacuum analyze pgbench_tellers", "VACUUM"},
		{"vacuum analyze pgbench_accounts", "VACUUM"},
		{"vacuum analyze pgbench_history", "VACUUM"},
		{"alter table pgbench_branches add primary key (bid)", "ALTER TABLE"},
		{"alter table pgbench_tellers add primary key (tid)", "ALTER TABLE"},
		{"alter table pgbench_accounts add primary key (aid)", "ALTER TABLE"},
		{"drop table if exists pgbench_accounts, pgbench_history", "DROP TABLE"},
		// A session value inside a block.
		{"create table who (db name primary key, u name, s name)", "CREATE TABLE"},
		{"insert into who values (current_database(), current_user, current_schema())", "INSERT 0 1"},
	} {
		res, err := pc.Exec(ctx, s.sql).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
		if tag := res[0].CommandTag.String(); s.tag != "" && tag != s.tag {
			t.Fatalf("%s: tag %q, want %q", s.sql, tag, s.tag)
		}
	}
	readCtx, cancelRead := context.WithTimeout(ctx, 90*time.Second)
	defer cancelRead()
	queries := []string{
		"SELECT db, u, s FROM who",
		"SELECT (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_tellers)",
		"SELECT c.relname, c.reloptions::text FROM pg_catalog.pg_class c WHERE c.relname LIKE 'pgbench%' AND c.relkind = 'r' ORDER BY 1",
	}
	h, rows := c.consistentRead(readCtx, queries...)
	for q, sql := range queries {
		c.requireSameRows(h, sql, rows[q])
	}
	want := []string{"[[relchain relchain public]]", "[[1 0]]", "[[pgbench_branches {fillfactor=100}] [pgbench_tellers {fillfactor=100}]]"}
	for q := range queries {
		if got := fmt.Sprint(rows[q][0]); got != want[q] {
			t.Fatalf("%s: %s, want %s", queries[q], got, want[q])
		}
	}
}
