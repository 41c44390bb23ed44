package postgres_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// A text computed at run time and cast to a date/time type reaches
// PostgreSQL's date/time input, which reads each node's own clock for
// 'now', 'today', 'tomorrow' and 'yesterday'. The gate rewrites such casts
// to go through relchain.clock_guard, which refuses a clock word with
// 22007 (pggate/clockcast.go, clockcast.go); casts of other types and of
// ordinary dates keep working, and reads may still say 'now'.
func TestBlockRefusesClockWordCasts(t *testing.T) {
	b, blk, run, must := clockBlock(t)
	refused := func(value, sql string, args ...any) {
		t.Helper()
		rows, err := run(sql, args...)
		e := backend.AsError(err)
		if e == nil {
			t.Fatalf("%s %q: accepted (rows %q), want the clock word refused", sql, args, rowsText(rows))
		}
		if e.SQLState != "22007" || !strings.Contains(e.Message, "'"+value+"'") || !strings.Contains(e.Message, "each node's clock") {
			t.Fatalf("%s %q: %v (%s), want 22007 naming %q", sql, args, e, e.SQLState, value)
		}
	}
	must("", `CREATE TABLE t (id int PRIMARY KEY, ts timestamptz)`)
	must("", `CREATE TABLE src (id int PRIMARY KEY, s text, v varchar(20), a text[])`)
	// (the gate refuses 'now' as a constant: the words come as arguments)
	must("", `INSERT INTO src VALUES (1, $1, $2, $3), (2, '2026-01-01', '2026-01-02', '{2026-01-03}')`, "now", "Today", "{now}")
	must("", `INSERT INTO t VALUES (1, '2026-01-01 10:00:00+00')`)

	refused("now", `SELECT ('no' || 'w')::timestamptz`)
	refused("now", `SELECT $1::text::timestamptz`, "now")
	refused("now", `INSERT INTO t (id, ts) SELECT id + 10, s::timestamptz FROM src`)
	refused("today", `SELECT CAST(lower('TO' || 'DAY') AS date)`)
	refused("today", `SELECT CAST(lower(v) AS date) FROM src`)
	refused("{now}", `SELECT s::timestamptz[] FROM (SELECT '{' || s || '}' AS s FROM src) x`)
	refused("{now}", `SELECT a::timestamp[] FROM src`)
	refused("Today", `UPDATE t SET ts = (SELECT v FROM src WHERE id = 1)::timestamptz`)
	refused("now", `SELECT s::pg_catalog.timestamp(3), s::time with time zone FROM src WHERE id = 1`)
	refused("(5,now)", `SELECT ('(5,' || s || ')')::public.t FROM src WHERE id = 1`)
	must("(5,\"2026-01-01 00:00:00+00\")", `SELECT ('(5,' || s || ')')::public.t FROM src WHERE id = 2`)
	must("", `CREATE VIEW vs AS SELECT id, s::date AS d FROM src`)
	refused("now", `SELECT d FROM vs WHERE id = 1`)
	must("", `CREATE FUNCTION todate(x text) RETURNS date LANGUAGE sql AS 'SELECT x::date'`)
	refused("2026-01-01yesterday", `SELECT public.todate(s || 'yester' || 'day') FROM src WHERE id = 2`)
	// The constant form was refused by the gate already.
	if _, err := run(`SELECT CAST(lower('TODAY') AS date)`); backend.AsError(err) == nil || !strings.Contains(err.Error(), "'today'") {
		t.Fatalf("CAST(lower('TODAY') AS date): %v, want the gate's refusal", err)
	}
	// Nothing of the refused statements applied.
	must("1,2026-01-01 10:00:00+00", `SELECT id, ts FROM t ORDER BY id`)

	// Other types and ordinary dates keep working.
	must("1", `SELECT count(*) FROM t WHERE ts::date = '2026-01-01'`)
	must("2026-01-01", `SELECT '2026-01-01'::date`)
	must("2026-01-01,2026-01-02,{\"2026-01-03 00:00:00\"}", `SELECT s::date, v::date, a::timestamp[] FROM src WHERE id = 2`)
	must("2026-01-01", `SELECT d FROM vs WHERE id = 2`)
	must("2026-01-01", `SELECT public.todate(s) FROM src WHERE id = 2`)
	must("", `INSERT INTO t (id, ts) SELECT id + 10, (s || ' 00:00:00+00')::timestamptz FROM src WHERE id = 2`)
	must("", `INSERT INTO t (id, ts) VALUES (20, $1::timestamptz)`, "2026-03-04 05:06:07+00")
	must("2001-02-03", `SELECT now()::date`)
	must("nowhere", `SELECT ('no' || 'where')::text`)
	if err := blk.Commit(ctx(t), backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	// Reads are not rewritten: they may cast 'now'.
	rows, _, err := b.Query(ctx(t), `SELECT count(*) FROM t WHERE ts < ('no' || 'w')::timestamptz`, nil)
	if err != nil || rowsText(rows) != "3" {
		t.Fatalf("read with 'now': %v %q", err, rowsText(rows))
	}
}

// The guard is installed on a database whose relchain schema predates it,
// and installing again changes nothing.
func TestClockGuardInstall(t *testing.T) {
	dsn := pgtest.DSN(t)
	mustOpen(t, dsn).Close()
	conn, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	count := func() int {
		var n int
		if err := conn.QueryRow(ctx(t), `SELECT count(*) FROM pg_catalog.pg_proc
			WHERE pronamespace = 'relchain'::regnamespace AND proname IN ('clock_guard', 'clock_refuse')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 10 {
		t.Fatalf("%d guard functions, want 10", n)
	}
	if _, err := conn.Exec(ctx(t), `DROP FUNCTION relchain.clock_guard(anyelement), relchain.clock_guard(text),
		relchain.clock_guard(varchar), relchain.clock_guard(bpchar), relchain.clock_guard(name),
		relchain.clock_guard(text[]), relchain.clock_guard(varchar[]), relchain.clock_guard(bpchar[]),
		relchain.clock_guard(name[]), relchain.clock_refuse(text)`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b := mustOpen(t, dsn)
		blk, err := b.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{Time: time.Unix(0, 0), Tx: 0}); err != nil {
			t.Fatal(err)
		}
		_, err = blk.Exec(ctx(t), `SELECT ('to' || 'day')::date`, nil)
		if e := backend.AsError(err); e == nil || e.SQLState != "22007" {
			t.Fatalf("after install: %v, want 22007", err)
		}
		blk.Rollback(ctx(t))
		b.Close()
		if n := count(); n != 10 {
			t.Fatalf("%d guard functions, want 10", n)
		}
	}
}
