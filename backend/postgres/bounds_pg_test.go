package postgres_test

import (
	"context"

	"errors"
	"github.com/jackc/pgx/v5"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// wantRefused asserts that the gate refuses sql (what CheckTx runs) with a
// permission error whose message contains want.
func wantRefused(t *testing.T, b backend.Backend, sql, want string) {
	t.Helper()
	_, err := b.Gate().Analyze(ctx(t), sql)
	e := backend.AsError(err)
	if e == nil || e.Class != backend.ClassPermission {
		t.Fatalf("Analyze(%.80q) = %v, want a permission error", sql, err)
	}
	if !strings.Contains(e.Message, want) {
		t.Fatalf("Analyze(%.80q) = %q, want it to mention %q", sql, e.Message, want)
	}
}

// txResult runs sql as bc-transaction i of an open block and returns its
// statement error (nil on success); the savepoint is released or rolled
// back as the executor does.
func txResult(t *testing.T, blk backend.Block, i int, sql string) error {
	t.Helper()
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
		t.Fatal(err)
	}
	_, err := blk.Exec(ctx(t), sql, nil)
	if err != nil {
		if backend.AsError(err) == nil {
			t.Fatalf("tx %d %q: node fault %v, want a tx result", i, sql, err)
		}
		if rerr := blk.RollbackTo(ctx(t)); rerr != nil {
			t.Fatal(rerr)
		}
		return err
	}
	if err := blk.Release(ctx(t)); err != nil {
		t.Fatal(err)
	}
	return nil
}

// Repro 4: a cartesian product of four 1,000-row relations ran into the
// writer's statement timeout in a decided block (a permanent halt). The
// gate must refuse it at CheckTx, with its variants.
func TestCartesianJoinsRefusedAtCheckTx(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t1 (id int PRIMARY KEY, v int)`, `CREATE TABLE kv (k text PRIMARY KEY, v int)`,
		`INSERT INTO t1 SELECT i, i % 7 FROM generate_series(1, 1000) AS g(i)`)
	for _, sql := range []string{
		`INSERT INTO kv SELECT 'x'||count(*),1 FROM t1 a, t1 b, t1 c, t1 d`,
		`SELECT count(*) FROM t1 a, t1 b, t1 c`,
		`SELECT count(*) FROM t1 a CROSS JOIN t1 b CROSS JOIN t1 c`,
		`SELECT count(*) FROM t1 a JOIN t1 b ON true JOIN t1 c ON a.v > c.v`,
		`SELECT count(*) FROM t1 a, t1 b, t1 c WHERE a.id = b.id OR b.id = c.id`,
		`SELECT count(*) FROM (SELECT 1 FROM t1 a, t1 b) x, (SELECT 1 FROM t1 c, t1 d) y`,
		`WITH c AS (SELECT a.id FROM t1 a, t1 b) SELECT count(*) FROM c x, c y`,
		`UPDATE t1 SET v = 1 FROM t1 a, t1 b`,
	} {
		wantRefused(t, b, sql, "cartesian product")
	}
	// Joined by equality, or one cross product of two: accepted.
	for _, sql := range []string{
		`SELECT count(*) FROM t1 a, t1 b, t1 c, t1 d WHERE a.id = b.id AND b.id = c.id AND d.id = a.id`,
		`SELECT count(*) FROM t1 a JOIN t1 b ON a.id = b.id JOIN t1 c USING (id)`,
		`SELECT count(*) FROM t1 a, t1 b`,
		`UPDATE t1 SET v = a.v FROM t1 a WHERE t1.id = a.id`,
	} {
		if _, err := b.Gate().Analyze(ctx(t), sql); err != nil {
			t.Errorf("Analyze(%q) = %v, want it accepted", sql, err)
		}
	}
}

// Repro 8: nested replace (and other size multipliers) built hundreds of
// MB per statement.
func TestSizeMultiplyingStringFunctionsRefused(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	for _, sql := range []string{
		`SELECT length(replace(replace(lpad('a',1000000,'b'),'b','bbbbbbbbbb'),'b','bbbbbbbbbb'))`,
		`SELECT length(replace(lpad('a',1000000,'b'),'b',lpad('c',1000,'c')))`,
		`SELECT length(replace(s, 'b', s)) FROM (SELECT lpad('a',1000000,'b') AS s) q`,
		`SELECT length(encode(encode(encode(encode(lpad('a',1000000,'b')::bytea,'hex')::bytea,'hex')::bytea,'hex')::bytea,'hex'))`,
		`SELECT length(rpad('a', (SELECT count(*)::int FROM generate_series(1,10)), 'b'))`,
		`SELECT length(string_agg(lpad('a', 1000000, 'b'), '' ORDER BY g)) FROM generate_series(1, 1000) AS g`,
		`SELECT length(lpad('a', 600000, 'b') || rpad('a', 600000, 'b'))`,
		`SELECT length(to_json(to_json(to_json(to_json(lpad(E'\\', 100000, E'\\'))::text)::text)::text))`,
	} {
		wantRefused(t, b, sql, "allow")
	}
	wantRefused(t, b, `SELECT replace(replace(lpad('a',1000000,'b'),'b','bbbbbbbbbb'),'b','bbbbbbbbbb')`, "size-multiplying calls")
	wantRefused(t, b, `SELECT replace(lpad('a',1000000,'b'),'b',lpad('c',1000,'c'))`, "replacement that is not a string constant")
	for _, sql := range []string{
		`SELECT replace(replace('a,b c', ',', ''), ' ', '')`,
		`SELECT replace('a&b', '&', '&amp;')`,
		`SELECT lpad('7', 5, '0')`,
	} {
		if _, err := b.Gate().Analyze(ctx(t), sql); err != nil {
			t.Errorf("Analyze(%q) = %v, want it accepted", sql, err)
		}
	}
}

// Repro 5: a DEFERRABLE INITIALLY DEFERRED constraint fired at the block's
// COMMIT, failing the whole block (a permanent halt). The violation must
// fail the tx alone, inside its savepoint, and the block must commit.
func TestDeferredConstraintsFailTheirTxNotTheBlock(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1,
		`CREATE TABLE dc (id int PRIMARY KEY, v int UNIQUE DEFERRABLE INITIALLY DEFERRED)`,
		`CREATE TABLE parent (id int PRIMARY KEY)`,
		`CREATE TABLE child (id int PRIMARY KEY, p int REFERENCES parent DEFERRABLE INITIALLY DEFERRED)`)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	results := []error{
		txResult(t, blk, 0, `INSERT INTO dc VALUES (1,5),(2,5)`),
		txResult(t, blk, 1, `INSERT INTO dc VALUES (3,6)`),
		txResult(t, blk, 2, `INSERT INTO dc VALUES (4,6)`),
		txResult(t, blk, 3, `INSERT INTO child VALUES (1, 42)`),
		txResult(t, blk, 4, `INSERT INTO parent VALUES (1)`),
		txResult(t, blk, 5, `INSERT INTO child VALUES (2, 1)`),
		// Created in this block, after the block's SET CONSTRAINTS.
		txResult(t, blk, 6, `CREATE TABLE dc2 (id int PRIMARY KEY, v int, CONSTRAINT dc2_v UNIQUE (v) DEFERRABLE INITIALLY DEFERRED)`),
		txResult(t, blk, 7, `INSERT INTO dc2 VALUES (1, 1), (2, 1)`),
		txResult(t, blk, 8, `CREATE TABLE child2 (id int PRIMARY KEY, p int, CONSTRAINT c2p FOREIGN KEY (p) REFERENCES parent NOT DEFERRABLE)`),
		txResult(t, blk, 9, `ALTER TABLE child2 ALTER CONSTRAINT c2p DEFERRABLE INITIALLY DEFERRED`),
		txResult(t, blk, 10, `INSERT INTO child2 VALUES (1, 99)`),
		txResult(t, blk, 11, `INSERT INTO child2 VALUES (2, 1)`),
	}
	for i, wantFail := range []bool{true, false, true, true, false, false, false, true, false, false, true, false} {
		if (results[i] != nil) != wantFail {
			t.Errorf("tx %d: result %v, want failure %v", i, results[i], wantFail)
		}
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
		t.Fatalf("commit: %v (a deferred constraint fired at the block's COMMIT)", err)
	}
	rows, _, err := b.Query(ctx(t), `SELECT id, v FROM dc ORDER BY id`, nil)
	if err != nil || !reflect.DeepEqual(rows.Rows, [][]any{{int64(3), int64(6)}}) {
		t.Fatalf("dc after the block: %v %v", rows, err)
	}
}

// Repro 9: sum(float8) depended on the heap order of its input, which
// node-local maintenance (VACUUM) changes: the same rows gave 0 on one
// node and 1 on another.
func TestFloatAggregatesIgnoreHeapOrder(t *testing.T) {
	run := func(order string) []any {
		b := mustOpen(t, pgtest.DSN(t))
		defer b.Close()
		block(t, b, 1, `CREATE TABLE fs (id int PRIMARY KEY, f float8, g int)`, `CREATE TABLE res (k text PRIMARY KEY, v float8)`)
		ins := map[string][]string{
			"big first":   {`INSERT INTO fs VALUES (1, 1e16, 1)`, `INSERT INTO fs VALUES (3, -1e16, 1)`, `INSERT INTO fs VALUES (2, 1, 1)`},
			"small first": {`INSERT INTO fs VALUES (2, 1, 1)`, `INSERT INTO fs VALUES (1, 1e16, 1)`, `INSERT INTO fs VALUES (3, -1e16, 1)`},
		}[order]
		block(t, b, 2, ins...)
		block(t, b, 3,
			`INSERT INTO res SELECT 'sum', sum(f) FROM fs`,
			`INSERT INTO res SELECT 'avg', avg(f) FROM fs`,
			`INSERT INTO res SELECT 'sumg', sum(f ORDER BY g) FROM fs`,
			`INSERT INTO res SELECT 'sumf', sum(f) FILTER (WHERE g = 1) FROM fs GROUP BY g`)
		rows, _, err := b.Query(ctx(t), `SELECT k, v FROM res ORDER BY k`, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []any
		for _, r := range rows.Rows {
			out = append(out, r...)
		}
		return out
	}
	a, c := run("big first"), run("small first")
	if !reflect.DeepEqual(a, c) {
		t.Fatalf("float aggregates depend on heap order:\n%v\n%v", a, c)
	}
}

// Repro 10: relchain's own scan (row_to_json(x) FROM ONLY t x) resolved x
// to the user's column x: an ordinary CREATE TABLE halted every node.
func TestStateDigestOfColumnsNamedLikeRelchainAliases(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	for _, sql := range []string{
		`CREATE TABLE f (id int PRIMARY KEY, x double precision NOT NULL)`,
		`INSERT INTO f VALUES (1, 1.5)`,
		`CREATE TABLE g AS SELECT 1 AS x, 2.5::float8 AS rel`,
	} {
		if _, err := blk.Exec(ctx(t), sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatalf("state digest after CREATE TABLE with a column x: %v", err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	assertScanMatches(t, b)
}

// The lead's rule for node-local limits: a deadlined Exec returns
// promptly with an error wrapping context.DeadlineExceeded, the block rolls
// back, and the writer goes on; the writer itself has no statement timeout
// that could fire in a decided block.
func TestDeadlinedExecReturnsPromptlyAndWriterStaysUsable(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpenUngated(t, dsn)
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t1 (id int PRIMARY KEY)`, `INSERT INTO t1 SELECT generate_series(1, 1000)`)
	rows, _ := block(t, b, 2, `SHOW statement_timeout`)
	if got := rows[0].Rows[0][0]; got != "0" {
		t.Errorf("writer statement_timeout = %v, want 0 (a timeout must not fire inside a decided block)", got)
	}
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	start := time.Now()
	_, err = blk.Exec(short, `SELECT count(*) FROM t1 a, t1 b, t1 c, t1 d`, nil)
	cancel()
	// Uncancelled, the 4-way cross join runs for hours: 30 s tells the
	// two apart on a loaded machine without timing anything finer.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("deadlined Exec took %v", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) || backend.AsError(err) != nil {
		t.Fatalf("deadlined Exec = %v, want a node fault wrapping context.DeadlineExceeded", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback after a deadlined Exec: %v", err)
	}
	block(t, b, 3, `INSERT INTO t1 VALUES (1001)`)
	// The cancelled statement does not go on running on the server.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, _, err := b.Query(ctx(t), `SELECT count(*)::int8 FROM t1`, nil)
		if err != nil || r.Rows[0][0] != int64(1001) {
			t.Fatalf("after the deadlined block: %v %v", r, err)
		}
		if activeQueries(t, "%t1 d%") == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled statement still runs on the server")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// activeQueries counts the server's sessions running a query LIKE pattern.
func activeQueries(t *testing.T, pattern string) int64 {
	t.Helper()
	return countActivity(t, `query LIKE $1 AND state = 'active'`, pattern)
}

// countActivity counts the server's other sessions (pg_stat_activity)
// matching where, with its one argument.
func countActivity(t *testing.T, where string, arg any) int64 {
	t.Helper()
	c, err := pgx.Connect(ctx(t), pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int64
	if err := c.QueryRow(ctx(t), `SELECT count(*) FROM pg_stat_activity WHERE `+where+` AND pid <> pg_backend_pid()`, arg).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
