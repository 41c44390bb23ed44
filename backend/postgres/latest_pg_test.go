package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// QueryLatest (the PostgreSQL listener's one-round-trip read) answers what
// Query answers: the same rows in the same order (unordered results sorted
// by their text), the same types, and the same refusals by the gate and
// the read policy.
func TestQueryLatestAnswersAsQuery(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, v text, f float8, ok bool, d date, raw bytea)`,
		`INSERT INTO t VALUES (3, 'c', 1.5, true, '2024-01-02', '\x00ff'), (1, 'a', 'NaN', false, NULL, NULL), (2, NULL, -0.25, NULL, '1999-12-31', '\x')`)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`SELECT * FROM t`, nil},
		{`SELECT v, id FROM t WHERE id >= $1`, []any{int64(2)}},
		{`SELECT * FROM t ORDER BY id DESC`, nil},
		{`SELECT count(*), sum(f) FROM t WHERE v <> $1`, []any{"zz"}},
		{`SELECT id FROM t WHERE f > $1`, []any{0.5}},
		{`SELECT id FROM t WHERE false`, nil},
		{`SELECT $1::text IS NULL`, []any{nil}},
	} {
		want, _, werr := b.Query(ctx(t), q.sql, q.args)
		got, gerr := b.QueryLatest(ctx(t), q.sql, q.args)
		if werr != nil || gerr != nil {
			t.Fatalf("%s: Query error %v, QueryLatest error %v", q.sql, werr, gerr)
		}
		if fmt.Sprintf("%#v", want) != fmt.Sprintf("%#v", got) { // NaN: not DeepEqual to itself
			t.Errorf("%s:\nQuery       %+v\nQueryLatest %+v", q.sql, want, got)
		}
	}
	for _, sql := range []string{
		`DELETE FROM t`,
		`SELECT * FROM relchain.meta`,
		`SELECT pg_sleep(1)`,
		`SELECT pg_read_file('/etc/passwd')`,
		`SELECT * FROM missing`,
		`SELEC 1`,
	} {
		_, _, werr := b.Query(ctx(t), sql, nil)
		_, gerr := b.QueryLatest(ctx(t), sql, nil)
		we, ge := backend.AsError(werr), backend.AsError(gerr)
		if we == nil || ge == nil || we.Class != ge.Class || we.SQLState != ge.SQLState || we.Message != ge.Message {
			t.Errorf("%s: Query %v, QueryLatest %v: want the same classified refusal", sql, werr, gerr)
		}
	}
}

// QueryLatest reads the latest committed block: never the open one's
// writes, and every committed block's.
func TestQueryLatestSeesCommittedStateOnly(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`, `INSERT INTO t VALUES (1)`)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), `INSERT INTO t VALUES (2)`, nil); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, b); n != 1 {
		t.Fatalf("during an open block: %d rows, want 1 (the committed state)", n)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	block(t, b, 2, `INSERT INTO t VALUES (3)`)
	if n := countRows(t, b); n != 2 {
		t.Fatalf("after block 2: %d rows, want 2", n)
	}
}

func countRows(t *testing.T, b *postgres.Backend) int64 {
	t.Helper()
	rows, err := b.QueryLatest(ctx(t), `SELECT count(*) FROM t`, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rows.Rows[0][0].(int64)
}

// A result over the node's bounds fails as Query's does, and a cancelled
// read stops on the server; neither leaves its connection to the next read
// (one pool connection: the next read would fail or see the cancel).
func TestQueryLatestBoundsAndCancel(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithoutGate(), postgres.WithQueryLimits(10, 1000), postgres.WithMaxReaders(1),
		postgres.WithQueryTimeout(time.Minute))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`, `INSERT INTO t SELECT i FROM generate_series(1, 20) i`)
	_, err := b.QueryLatest(ctx(t), `SELECT id FROM t`, nil)
	if e := backend.AsError(err); e == nil || e.Class != backend.ClassResource || !strings.Contains(e.Message, "more than 10 rows") {
		t.Fatalf("20 rows over a bound of 10: %v, want a resource error", err)
	}
	cctx, cancel := context.WithTimeout(ctx(t), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = b.QueryLatest(cctx, `SELECT count(*) FROM generate_series(1, 10000000000)`, nil)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the cancelled read returned after %s", d)
	}
	for range 3 {
		if rows, err := b.QueryLatest(ctx(t), `SELECT id FROM t WHERE id <= 10`, nil); err != nil || len(rows.Rows) != 10 {
			t.Fatalf("the next read on the pool's one connection: %v, %v", rows, err)
		}
	}
}
