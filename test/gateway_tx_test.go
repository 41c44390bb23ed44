package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// Client transactions as ORMs and drivers run them, through a node's
// listener on a 4-validator network: savepoints (pgx's nested
// transactions, the SAVEPOINTs of SQLAlchemy's begin_nested and Django's
// nested atomic()), catalog reads inside transactions and SQLAlchemy's
// ORM (PostgreSQL; SQLAlchemy through the standalone gateway with
// SCRAM), and psycopg2's session calls. Every validator ends with the same state.
func TestGatewayTransactions(t *testing.T) {
	onBackends(t, notOn{"mysql": gatewayNotOnMySQL}, testGatewayTransactions)
}

func testGatewayTransactions(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	other, err := pgx.Connect(ctx, c.pgURL(1, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	mustPgxExec(t, conn, `CREATE TABLE acct (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`)
	mustPgxExec(t, conn, `INSERT INTO acct (id, v) VALUES (1, 10), (2, 20)`)

	checkPgxSavepoints(t, ctx, conn)
	checkRolledBackReadsLeaveValidation(t, ctx, conn, other)
	if backend == "postgres" {
		checkCatalogReadsInTransaction(t, ctx, conn)
	}
	runPsycopg2Session(t, ctx, c.pgURL(2, "alice"), backend)
	if backend == "postgres" {
		// Through the standalone gateway (SCRAM, reads and rehearsals over
		// the nodes' RPC) in front of nodes 2 and 3.
		gctx, gcancel := context.WithTimeout(ctx, 30*time.Second)
		gw, err := gateway.Start(gctx, gateway.Config{Classifier: pgclass.Classifier{}, Listen: "127.0.0.1:0", Nodes: []string{c.nodes[2].RPC, c.nodes[3].RPC},
			UsersFile: node.PGConfig{}.UsersFile(c.nodes[0].Home)})
		gcancel()
		if err != nil {
			t.Fatal(err)
		}
		defer gw.Close()
		runPython(t, ctx, "SQLAlchemy", sqlalchemyNested, "URL=postgresql+psycopg2://alice:"+pgPassword("alice")+"@"+gw.Addr().String()+"/relchain")
	}

	want := map[string][][]any{
		`SELECT id, v FROM acct ORDER BY id`: {{1, 13}, {2, 23}, {3, 31}},
		`SELECT id, v FROM py ORDER BY id`:   {{1, 1}, {3, 3}, {4, 4}},
	}
	if backend == "postgres" {
		want[`SELECT id, v FROM acct ORDER BY id`] = [][]any{{1, 14}, {2, 23}, {3, 31}}
		want[`SELECT id, v FROM py ORDER BY id`] = [][]any{{1, 11}, {3, 3}, {4, 4}}
		want[`SELECT id, n FROM item ORDER BY id`] = [][]any{{1, 1}, {2, 2}}
	}
	queries := make([]string, 0, len(want))
	for q := range want {
		queries = append(queries, q)
	}
	h, rows := c.consistentRead(ctx, queries...)
	for i, q := range queries {
		c.requireSameRows(h, q, rows[i])
		got := make([][]any, len(rows[i][0]))
		for r, row := range rows[i][0] {
			got[r] = make([]any, len(row))
			for k, v := range row {
				got[r][k] = int(asInt(t, v))
			}
		}
		if !reflect.DeepEqual(got, want[q]) {
			t.Errorf("%s at height %d: %v, want %v", q, h, got, want[q])
		}
	}
}

// checkPgxSavepoints: pgx's nested transactions are SAVEPOINT sp_N,
// ROLLBACK TO SAVEPOINT sp_N and RELEASE SAVEPOINT sp_N. A rolled-back
// write is gone for the statements after it and from the commit; a
// statement that failed inside a savepoint is rolled back with it and
// the transaction goes on.
func checkPgxSavepoints(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	mustTxExec(t, tx, `UPDATE acct SET v = v + 1 WHERE id = 1`)
	sp, err := tx.Begin(ctx)
	if err != nil {
		t.Fatalf("SAVEPOINT: %v", err)
	}
	mustTxExec(t, sp, `UPDATE acct SET v = 1000 WHERE id = 2`)
	if v := queryInt(t, ctx, sp, `SELECT v FROM acct WHERE id = 2`); v != 1000 {
		t.Fatalf("inside the savepoint id 2 has v = %d, want 1000", v)
	}
	if err := sp.Rollback(ctx); err != nil {
		t.Fatalf("ROLLBACK TO SAVEPOINT: %v", err)
	}
	if v := queryInt(t, ctx, tx, `SELECT v FROM acct WHERE id = 2`); v != 20 {
		t.Fatalf("after ROLLBACK TO SAVEPOINT id 2 has v = %d, want 20 (the rolled-back write is still seen)", v)
	}
	sp, err = tx.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustTxExec(t, sp, `INSERT INTO acct (id, v) VALUES (3, 30)`)
	inner, err := sp.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustTxExec(t, inner, `UPDATE acct SET v = v + 1 WHERE id = 2`)
	if err := sp.Commit(ctx); err != nil { // RELEASE of the outer releases the inner
		t.Fatalf("RELEASE SAVEPOINT: %v", err)
	}
	sp, err = tx.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sp.Exec(ctx, `INSERT INTO acct (id, v) VALUES (1, 0)`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("a duplicate key inside a savepoint: %v, want an error", err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1`); err == nil || !strings.Contains(err.Error(), "25P02") {
		t.Fatalf("after a failed statement the transaction answers %v, want 25P02", err)
	}
	if err := sp.Rollback(ctx); err != nil {
		t.Fatalf("ROLLBACK TO SAVEPOINT in a failed transaction: %v", err)
	}
	mustTxExec(t, tx, `UPDATE acct SET v = v + 1 WHERE id = 3`)
	mustTxExec(t, tx, `SAVEPOINT mine`)
	if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT nope`); err == nil || !strings.Contains(err.Error(), "3B001") {
		t.Fatalf("ROLLBACK TO an unknown savepoint: %v, want 3B001", err)
	}
	if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT mine`); err != nil {
		t.Fatalf("ROLLBACK TO the open savepoint after a failed statement: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT: %v", err)
	}
	if got := queryRows(t, ctx, conn, `SELECT id, v FROM acct ORDER BY id`); got != "[[1 11] [2 21] [3 31]]" {
		t.Fatalf("after COMMIT: %s, want [[1 11] [2 21] [3 31]]", got)
	}
	if _, err := conn.Exec(ctx, `SAVEPOINT a`); err == nil || !strings.Contains(err.Error(), "25P01") {
		t.Fatalf("SAVEPOINT outside a transaction: %v, want 25P01", err)
	}
}

// checkRolledBackReadsLeaveValidation: a read rolled back to a savepoint
// is no longer validated at COMMIT (another client's change of what it
// read does not conflict); a released one still is (40001, and the retry
// succeeds).
func checkRolledBackReadsLeaveValidation(t *testing.T, ctx context.Context, conn, other *pgx.Conn) {
	t.Helper()
	for _, release := range []bool{false, true} {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustTxExec(t, tx, `SAVEPOINT probe`)
		queryInt(t, ctx, tx, `SELECT v FROM acct WHERE id = 2`)
		if release {
			mustTxExec(t, tx, `RELEASE SAVEPOINT probe`)
		} else {
			mustTxExec(t, tx, `ROLLBACK TO SAVEPOINT probe`)
		}
		mustTxExec(t, tx, `UPDATE acct SET v = v + 1 WHERE id = 1`)
		// Committed before this COMMIT is sent: its block comes first.
		if _, err := other.Exec(ctx, `UPDATE acct SET v = v + 1 WHERE id = 2`); err != nil {
			t.Fatal(err)
		}
		err = tx.Commit(ctx)
		switch {
		case !release && err != nil:
			t.Fatalf("COMMIT after the read was rolled back to its savepoint: %v", err)
		case release && (err == nil || !strings.Contains(err.Error(), "40001")):
			t.Fatalf("COMMIT after another client changed a released read: %v, want 40001", err)
		case release:
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			queryInt(t, ctx, tx, `SELECT v FROM acct WHERE id = 2`)
			mustTxExec(t, tx, `UPDATE acct SET v = v + 1 WHERE id = 1`)
			if err := tx.Commit(ctx); err != nil {
				t.Fatalf("the retried transaction: %v", err)
			}
		}
	}
	// id 1: +1, then +1 by the retry only; id 2: +1 twice by the other client.
	if got := queryRows(t, ctx, conn, `SELECT id, v FROM acct ORDER BY id`); got != "[[1 13] [2 23] [3 31]]" {
		t.Fatalf("after the validation checks: %s, want [[1 13] [2 23] [3 31]]", got)
	}
}

// checkCatalogReadsInTransaction: catalog reads inside a transaction
// (SQLAlchemy's probes read pg_class with oid, knex's hasTable reads
// information_schema) are answered on the read path and leave the
// transaction's writes alone; a read of user data the block gate refuses
// stays refused; after the transaction's own DDL a catalog read is
// refused with a hint.
func checkCatalogReadsInTransaction(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	var oid int64
	var name string
	if err := tx.QueryRow(ctx, `SELECT c.oid::bigint, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relname = $1 AND pg_catalog.pg_table_is_visible(c.oid)`, "acct").Scan(&oid, &name); err != nil || name != "acct" || oid == 0 {
		t.Fatalf("SQLAlchemy's catalog probe inside a transaction: %q %d, %v", name, oid, err)
	}
	if n := queryInt(t, ctx, tx, `SELECT count(*) FROM information_schema.tables WHERE table_name = $1 AND table_schema = current_schema()`, "acct"); n != 1 {
		t.Fatalf("knex's hasTable inside a transaction: %d tables, want 1", n)
	}
	if lvl := queryText(t, ctx, tx, `SHOW TRANSACTION ISOLATION LEVEL`); lvl != "serializable" {
		t.Fatalf("SHOW TRANSACTION ISOLATION LEVEL inside a transaction: %q", lvl)
	}
	mustTxExec(t, tx, `UPDATE acct SET v = v + 1 WHERE id = 1`)
	if n := queryInt(t, ctx, tx, `SELECT count(*) FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = (SELECT c.oid FROM pg_catalog.pg_class c WHERE c.relname = 'acct') AND a.attnum > 0`); n != 2 {
		t.Fatalf("a catalog read after a write of the transaction: %d columns, want 2", n)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT of a transaction with catalog reads: %v", err)
	}
	// A catalog read the read path refuses too fails the transaction, as
	// any error does in PostgreSQL.
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT rolname FROM pg_catalog.pg_authid`); err == nil {
		t.Fatal("a read of pg_authid inside a transaction succeeded")
	}
	if _, err := tx.Exec(ctx, `SELECT 1`); err == nil || !strings.Contains(err.Error(), "25P02") {
		t.Fatalf("after a failed catalog read the transaction answers %v, want 25P02", err)
	}
	_ = tx.Rollback(ctx)
	// A read of user data the block gate refuses is not taken out of the
	// transaction's validation.
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT ctid FROM acct`); err == nil || !strings.Contains(err.Error(), "0A000") {
		t.Fatalf("a user-table read with a system column inside a transaction: %v, want 0A000", err)
	}
	_ = tx.Rollback(ctx)
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustTxExec(t, tx, `CREATE TABLE ddl_in_tx (id INTEGER PRIMARY KEY)`)
	// After the transaction's DDL the read is the rehearsal's probe
	// (gateway_probe_test.go): it sees the uncommitted table.
	if name := queryText(t, ctx, tx, `SELECT c.relname::text FROM pg_catalog.pg_class c WHERE c.relname = 'ddl_in_tx'`); name != "ddl_in_tx" {
		t.Fatalf("a catalog read after the transaction's DDL: %q, want ddl_in_tx", name)
	}
	_ = tx.Rollback(ctx)
}

// psycopg2Session is run by /usr/bin/python3 with psycopg2: the implicit
// transactions psycopg2 opens, savepoints as SQLAlchemy and Django name
// them, the session calls drivers make, and conn.reset() (DISCARD ALL).
const psycopg2Session = `
import os, psycopg2, psycopg2.errors
dsn, backend = os.environ["DSN"], os.environ["BACKEND"]
conn = psycopg2.connect(dsn)
cur = conn.cursor()
def one(sql, args=None):
    cur.execute(sql, args)
    return cur.fetchone()[0]
def fails(code, sql):
    try:
        cur.execute(sql)
    except psycopg2.Error as e:
        assert e.pgcode.startswith(code), (sql, e.pgcode, str(e))
        return
    raise AssertionError(sql + " did not fail")

assert one("SHOW TRANSACTION ISOLATION LEVEL") == "serializable"
cur.execute("CREATE TABLE py (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
conn.commit()
cur.execute("SET TIME ZONE 'UTC'")
cur.execute("SET extra_float_digits = 3")
assert one("SHOW extra_float_digits") == "3"
assert one("SHOW TIME ZONE") == "UTC"
conn.commit()

cur.execute("INSERT INTO py (id, v) VALUES (1, 1)")
cur.execute('SAVEPOINT "s140_x1"')
cur.execute("INSERT INTO py (id, v) VALUES (2, 2)")
assert one("SELECT count(*) FROM py") == 2
cur.execute('ROLLBACK TO SAVEPOINT "s140_x1"')
assert one("SELECT count(*) FROM py") == 1
cur.execute("SAVEPOINT sa_savepoint_1")
fails("23", "INSERT INTO py (id, v) VALUES (1, 9)")
cur.execute("ROLLBACK TO SAVEPOINT sa_savepoint_1")
cur.execute("SAVEPOINT sa_savepoint_2")
cur.execute("INSERT INTO py (id, v) VALUES (3, 3)")
cur.execute("RELEASE SAVEPOINT sa_savepoint_2")
conn.commit()
assert one("SELECT count(*) FROM py") == 2
conn.rollback()

conn.set_session(isolation_level="SERIALIZABLE", readonly=True)
fails("25006", "INSERT INTO py (id, v) VALUES (5, 5)")
conn.rollback()
conn.set_session(isolation_level="REPEATABLE READ", readonly=False)
fails("0A000", "SELECT 1")
conn.rollback()
conn.set_session(isolation_level="DEFAULT", readonly="DEFAULT")
conn.set_session(autocommit=True)
fails("25P01", "SAVEPOINT x")
cur.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE")
assert one("SHOW default_transaction_isolation") == "serializable"
cur.execute("INSERT INTO py (id, v) VALUES (4, 4)")
assert one("SELECT count(*) FROM py") == 3

cur.execute("SET application_name = 'pyapp'")
assert conn.get_parameter_status("application_name") == "pyapp", conn.get_parameter_status("application_name")
conn.reset()
cur = conn.cursor()
assert one("SHOW application_name") == ""
assert one("SHOW extra_float_digits") == "1"
assert conn.get_parameter_status("application_name") == "", conn.get_parameter_status("application_name")

if backend == "postgres":
    conn.rollback()
    conn.autocommit = False
    # SQLAlchemy's has_table, inside the transaction psycopg2 opens.
    n = one("select count(*) from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid=c.relnamespace "
            "where pg_catalog.pg_table_is_visible(c.oid) and c.relname=%s and c.oid > 0", ("py",))
    assert n == 1, n
    cur.execute("UPDATE py SET v = v + 10 WHERE id = 1")
    conn.commit()
print("ok")
`

// sqlalchemyNested is SQLAlchemy 1.4's ORM, unmodified: its dialect's
// catalog probes and create_all's has_table inside the transaction
// psycopg2 opens, session CRUD, and a nested transaction (begin_nested:
// SAVEPOINT sa_savepoint_1) rolled back.
const sqlalchemyNested = `
import os
from sqlalchemy import create_engine, Column, Integer, select
from sqlalchemy.orm import declarative_base, Session
engine = create_engine(os.environ["URL"])
Base = declarative_base()
class Item(Base):
    __tablename__ = "item"
    id = Column(Integer, primary_key=True, autoincrement=False)
    n = Column(Integer, nullable=False)
Base.metadata.create_all(engine)
Base.metadata.create_all(engine)  # has_table now finds it
with Session(engine) as s:
    s.add(Item(id=1, n=1))
    s.commit()
    with s.begin():
        s.add(Item(id=2, n=2))
        nested = s.begin_nested()
        s.add(Item(id=3, n=3))
        s.flush()
        assert s.scalar(select(Item.n).where(Item.id == 3)) == 3
        nested.rollback()
    got = sorted((i.id, i.n) for i in s.scalars(select(Item)))
    assert got == [(1, 1), (2, 2)], got
print("ok")
`

func runPsycopg2Session(t *testing.T, ctx context.Context, dsn, backend string) {
	t.Helper()
	runPython(t, ctx, "psycopg2 session", psycopg2Session, "DSN="+dsn, "BACKEND="+backend)
}

// runPython runs script with /usr/bin/python3; it must print only "ok".
func runPython(t *testing.T, ctx context.Context, what, script string, env ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
}

// pgxQuerier is a connection or a transaction.
type pgxQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func mustTxExec(t *testing.T, q pgxQuerier, sql string, args ...any) {
	t.Helper()
	if _, err := q.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func queryInt(t *testing.T, ctx context.Context, q pgxQuerier, sql string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := q.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func queryText(t *testing.T, ctx context.Context, q pgxQuerier, sql string) string {
	t.Helper()
	var v string
	if err := q.QueryRow(ctx, sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func queryRows(t *testing.T, ctx context.Context, q pgxQuerier, sql string) string {
	t.Helper()
	rows, err := q.Query(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return fmt.Sprint(all)
}
