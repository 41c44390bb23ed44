package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// block runs statements in one block on b, as the executor does (change
// digest, state digest, commit), and returns each statement's result and
// the block's digest; it fails on any error.
func block(t testing.TB, b backend.Backend, height int64, stmts ...string) ([]*backend.Rows, []byte) {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var out []*backend.Rows
	for _, s := range stmts {
		rows, err := blk.Exec(ctx(t), s, nil)
		if err != nil {
			blk.Rollback(ctx(t))
			t.Fatalf("Exec %q: %v", s, err)
		}
		out = append(out, rows)
	}
	c, err := blk.ChangeDigest(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	d := c.Block
	if err := blk.Commit(ctx(t), backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
		t.Fatal(err)
	}
	return out, d
}

// BenchmarkQuery measures a point SELECT by primary key through the query
// path (the gate, the read-only transaction, its height and the
// statement) and reports the median latency as p50-µs:
//
//	go test ./backend/postgres -run '^$' -bench BenchmarkQuery -benchtime 20000x
func BenchmarkQuery(b *testing.B) {
	be := mustOpen(b, pgtest.DSN(b))
	defer be.Close()
	block(b, be, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t SELECT i, 'v' || i FROM generate_series(1, 1000) i`)
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, _, err := be.Query(b.Context(), `SELECT v FROM t WHERE id = $1`, []any{int64(i%1000 + 1)}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
}

func TestDigestAndRowsIgnorePhysicalOrder(t *testing.T) {
	a := mustOpen(t, pgtest.DSN(t))
	defer a.Close()
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	_, da := block(t, a, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`,
		`INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')`)
	_, db := block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`,
		`INSERT INTO t VALUES (3, 'c')`, `INSERT INTO t VALUES (2, 'b')`, `INSERT INTO t VALUES (1, 'a')`)
	if !bytes.Equal(da, db) {
		t.Errorf("block 1: same rows inserted in another order give another digest")
	}
	ra, da := block(t, a, 2, `UPDATE t SET v = v || 'x' RETURNING id, v`, `SELECT * FROM t`)
	rb, db := block(t, b, 2, `UPDATE t SET v = v || 'x' RETURNING id, v`, `SELECT * FROM t`)
	if !bytes.Equal(da, db) {
		t.Errorf("block 2: a multi-row UPDATE gives different digests for tables in different physical order")
	}
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("rows differ with physical order:\n%v\n%v", ra, rb)
	}
}

func TestDigestCoversDDLTruncateAndCreateTableAs(t *testing.T) {
	digest := func(stmts ...string) []byte {
		b := mustOpenUngated(t, pgtest.DSN(t))
		defer b.Close()
		block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t VALUES (1, 'a'), (2, 'b')`)
		_, d := block(t, b, 2, stmts...)
		return d
	}
	empty := digest()
	for _, s := range []string{
		`ALTER TABLE t ADD COLUMN w int DEFAULT 7`,
		`CREATE INDEX t_v ON t (v)`,
		`TRUNCATE t`,
		`DROP TABLE t`,
		`CREATE TABLE u AS SELECT * FROM t`,
	} {
		if bytes.Equal(digest(s), empty) {
			t.Errorf("%s: digest equals that of an empty block", s)
		}
	}
	// The rows a table is born with count.
	if bytes.Equal(digest(`CREATE TABLE u AS SELECT * FROM t`), digest(`CREATE TABLE u AS SELECT * FROM t WHERE false`)) {
		t.Error("CREATE TABLE AS: digest does not depend on the rows copied")
	}
	// And later changes to it are captured.
	if bytes.Equal(digest(`CREATE TABLE u AS SELECT * FROM t`, `UPDATE u SET v = 'z'`),
		digest(`CREATE TABLE u AS SELECT * FROM t`, `UPDATE u SET v = 'y'`)) {
		t.Error("UPDATE of a table created by CREATE TABLE AS is not captured")
	}
}

func TestExecSeesDDLWithoutStaleCache(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`, `INSERT INTO t VALUES (1)`, `SELECT * FROM t`)
	rows, _ := block(t, b, 2, `SELECT * FROM t`, `ALTER TABLE t ADD COLUMN v text DEFAULT 'x'`, `SELECT * FROM t`)
	if got := rows[2].Columns; !reflect.DeepEqual(got, []string{"id", "v"}) {
		t.Fatalf("columns after ALTER = %v, want [id v]", got)
	}
	rows, _ = block(t, b, 3, `ALTER TABLE t ALTER COLUMN id TYPE bigint`, `SELECT * FROM t`)
	if got := rows[1].Rows; !reflect.DeepEqual(got, [][]any{{int64(1), "x"}}) {
		t.Fatalf("rows = %#v", got)
	}
}

func TestValueTextForms(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	rows, _ := block(t, b, 1, `SELECT 12.50::numeric, true, '2024-01-02 03:04:05+02'::timestamptz, '2024-01-02'::date,
		'{"b": 1, "a": [1, 2]}'::jsonb, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, ARRAY[1, 2, NULL],
		'1 day 02:00'::interval, 0.1::float4, 1e300::float8, 'NaN'::float8 = 'NaN'::float8, '\x00ff'::bytea, 5::int2`)
	want := []any{"12.50", true, "2024-01-02 01:04:05+00", "2024-01-02", `{"a": [1, 2], "b": 1}`,
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{1,2,NULL}", "1 day 02:00:00", 0.1, 1e300, true, []byte{0, 0xff}, int64(5)}
	if got := rows[0].Rows[0]; !reflect.DeepEqual(got, want) {
		t.Fatalf("values =\n%#v\nwant\n%#v", got, want)
	}
}

func TestArgumentsTypedLikeLiterals(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, d date, n numeric, j jsonb, f real, ok boolean, b bytea)`)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	_, err = blk.Exec(ctx(t), `INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		[]any{int64(1), "2024-02-29", "10.25", `{"k": "v"}`, 2.5, true, []byte("hi")})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := blk.Exec(ctx(t), `SELECT id + $1, d, n * 2, j->>'k', f, ok, b FROM t WHERE id = $2`, []any{int64(1), int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(2), "2024-02-29", "20.50", "v", 2.5, true, []byte("hi")}
	if !reflect.DeepEqual(rows.Rows[0], want) {
		t.Fatalf("row = %#v, want %#v", rows.Rows[0], want)
	}
	_, err = blk.Exec(ctx(t), `SELECT $1`, []any{struct{}{}})
	if e := backend.AsError(err); e == nil || e.Class != backend.ClassInvalid {
		t.Fatalf("unsupported argument type: %v, want ClassInvalid", err)
	}
}

func TestExecRejectsSessionAndTransactionControl(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	for _, s := range []string{`COMMIT`, `ROLLBACK`, `SAVEPOINT x`, `RELEASE SAVEPOINT relchain_tx`,
		`SET TimeZone = 'Europe/Berlin'`, `SET LOCAL search_path = x`, `RESET ALL`, `PREPARE p AS SELECT 1`,
		`DECLARE c CURSOR WITH HOLD FOR SELECT 1`, `DISCARD ALL`} {
		_, err := blk.Exec(ctx(t), s, nil)
		if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission {
			t.Errorf("Exec(%q) = %v, want a permission error", s, err)
		}
		if _, _, err := b.Query(ctx(t), s, nil); backend.AsError(err) == nil {
			t.Errorf("Query(%q) = %v, want a statement error", s, err)
		}
	}
}

func TestNodeFaultsAreNotTxFailures(t *testing.T) {
	b := mustOpenUngated(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`)

	// A cancelled context: not the statement's fault.
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = blk.Exec(short, `SELECT pg_sleep(5)`, nil)
	cancel()
	if err == nil || backend.AsError(err) != nil {
		t.Fatalf("Exec with a cancelled context = %v, want an ordinary error", err)
	}
	blk.Rollback(ctx(t))

	// The writer's connection is killed: an ordinary error, and the next
	// Begin reconnects.
	blk, err = b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), `INSERT INTO t VALUES (1)`, nil); err != nil {
		t.Fatal(err)
	}
	db, _, err := b.Query(ctx(t), `SELECT current_database()`, nil)
	if err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'relchain' AND datname = '`+db.Rows[0][0].(string)+`'`)
	_, err = blk.Exec(ctx(t), `INSERT INTO t VALUES (2)`, nil)
	if err == nil || backend.AsError(err) != nil {
		t.Fatalf("Exec on a killed connection = %v, want an ordinary error", err)
	}
	blk.Rollback(ctx(t))
	block(t, b, 2, `INSERT INTO t VALUES (3)`)
	rows, h, err := b.Query(ctx(t), `SELECT id FROM t`, nil)
	if err != nil || h != 2 || !reflect.DeepEqual(rows.Rows, [][]any{{int64(3)}}) {
		t.Fatalf("after reconnect: %v %d %v", rows, h, err)
	}
}

func TestQueryTimesOut(t *testing.T) {
	// Without the gate, which refuses pg_sleep: the timeout alone.
	b, err := postgres.Open(ctx(t), pgtest.DSN(t), postgres.WithQueryTimeout(200*time.Millisecond), postgres.WithoutGate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Without the timeout pg_sleep(5) would succeed; an error proves the
	// statement_timeout stopped it (no wall-clock assertion needed).
	if _, _, err := b.Query(ctx(t), `SELECT pg_sleep(5)`, nil); err == nil || !strings.Contains(err.Error(), "statement timeout") {
		t.Errorf("Query of pg_sleep(5) with a 200ms timeout: %v, want a statement timeout error", err)
	}
	// The pool still works.
	if _, _, err := b.Query(ctx(t), `SELECT 1`, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCommitOfFailedTransactionReportsError(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	// A failure outside a savepoint aborts the whole db-transaction.
	if _, err := blk.Exec(ctx(t), `SELECT 1/0`, nil); backend.AsError(err) == nil {
		t.Fatalf("division by zero: %v", err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: 1}); err == nil {
		t.Fatal("Commit of an aborted db-transaction succeeded")
	}
	if s, err := b.LoadState(ctx(t)); err != nil || s.Height != 0 {
		t.Fatalf("state after failed commit = %+v, %v", s, err)
	}
	if _, err := b.Begin(ctx(t)); errors.Is(err, backend.ErrBlockOpen) {
		t.Fatal("block still open after a failed Commit")
	}
}

// A bulk block leaves its change records dead in relchain.changes; every
// later block's ChangeDigest would scan them until autovacuum came by, so
// Commit vacuums the table after a large block.
func TestCommitVacuumsChangeRecordsAfterABulkBlock(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	block(t, b, 1, `CREATE TABLE bulk (id int PRIMARY KEY, v text NOT NULL)`)
	block(t, b, 2, `INSERT INTO bulk SELECT i, 'row ' || i FROM generate_series(1, 20000) AS s(i)`)
	conn, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	var pages int64
	if err := conn.QueryRow(ctx(t), `SELECT pg_relation_size('relchain.changes') / current_setting('block_size')::int`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if pages > 4 {
		t.Fatalf("relchain.changes still has %d pages after a block that consumed 20,000 records: not vacuumed", pages)
	}
}

// The query path prepares each text once per connection; a DDL that
// changes a cached statement's result type, a failing query and the same
// text with other argument types must all still give what an unprepared
// statement would.
func TestQueryPreparedStatementsFollowDDLAndArgumentTypes(t *testing.T) {
	b, err := postgres.Open(ctx(t), pgtest.DSN(t), postgres.WithMaxReaders(1)) // one connection: every query reuses its statements
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	block(t, b, 1, `CREATE TABLE q (id int PRIMARY KEY, v text)`, `INSERT INTO q VALUES (1, 'a'), (2, 'b')`)
	query := func(sql string, args ...any) *backend.Rows {
		t.Helper()
		rows, _, err := b.Query(ctx(t), sql, args)
		if err != nil {
			t.Fatalf("Query(%q, %v): %v", sql, args, err)
		}
		return rows
	}
	for i := 0; i < 3; i++ {
		r := query(`SELECT * FROM q WHERE id = $1`, int64(2))
		if !reflect.DeepEqual(r.Columns, []string{"id", "v"}) || !reflect.DeepEqual(r.Rows, [][]any{{int64(2), "b"}}) {
			t.Fatalf("run %d: %v %v", i, r.Columns, r.Rows)
		}
	}
	// A failing query does not poison the connection or its statements.
	if _, _, err := b.Query(ctx(t), `SELECT 1 / (id - $1) FROM q`, []any{int64(1)}); backend.AsError(err) == nil {
		t.Fatalf("division by zero: %v, want a statement error", err)
	}
	// The cached SELECT * changes its result type with the table.
	block(t, b, 2, `ALTER TABLE q ADD COLUMN w int DEFAULT 7`)
	r := query(`SELECT * FROM q WHERE id = $1`, int64(2))
	if !reflect.DeepEqual(r.Columns, []string{"id", "v", "w"}) || !reflect.DeepEqual(r.Rows, [][]any{{int64(2), "b", int64(7)}}) {
		t.Fatalf("after ALTER TABLE: %v %v", r.Columns, r.Rows)
	}
	// One text, two argument types: each is typed as its literal would be.
	if r := query(`SELECT $1 * 2`, 1.5); !reflect.DeepEqual(r.Rows, [][]any{{3.0}}) {
		t.Fatalf("float argument: %v", r.Rows)
	}
	if r := query(`SELECT $1 * 2`, int64(4)); !reflect.DeepEqual(r.Rows, [][]any{{int64(8)}}) {
		t.Fatalf("integer argument: %v", r.Rows)
	}
	// More distinct texts than a connection keeps: the oldest are
	// deallocated and every answer is still right.
	for i := 0; i < 300; i++ {
		if r := query(fmt.Sprintf(`SELECT %d + $1`, i), int64(1)); !reflect.DeepEqual(r.Rows, [][]any{{int64(i + 1)}}) {
			t.Fatalf("text %d: %v", i, r.Rows)
		}
	}
	if r := query(`SELECT count(*) FROM q`); !reflect.DeepEqual(r.Rows, [][]any{{int64(2)}}) {
		t.Fatalf("count: %v", r.Rows)
	}
}
