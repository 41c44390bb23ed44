package pggate

import (
	"testing"

	"github.com/relchain/relchain/sqlcheck"
)

// TestClockCastRewrite: a cast to a date/time type of anything but a
// constant or a parameter goes through relchain.clock_guard, which refuses
// clock words computed at run time (issue 33); the rewritten text parses
// back to the checked tree (buildTemplate), and the read path keeps the
// text as it is.
func TestClockCastRewrite(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT ('no' || 'w')::timestamptz`, `SELECT relchain.clock_guard('no' || 'w')::timestamptz`},
		{`SELECT $1::text::timestamptz`, `SELECT relchain.clock_guard($1::text)::timestamptz`},
		{`INSERT INTO t (ts) SELECT s::timestamptz FROM src`, `INSERT INTO t (ts) SELECT relchain.clock_guard(s)::timestamptz FROM src`},
		{`SELECT CAST(lower(s) AS date) FROM src`, `SELECT relchain.clock_guard(lower(s))::date FROM src`},
		{`SELECT s::timestamptz[] FROM src`, `SELECT relchain.clock_guard(s)::timestamptz[] FROM src`},
		{`SELECT s::pg_catalog.timestamp(3) FROM src`, `SELECT relchain.clock_guard(s)::timestamp(3) FROM src`},
		{`SELECT s::timestamp with time zone, s::time with time zone, s::time, s::timetz FROM src`,
			`SELECT relchain.clock_guard(s)::timestamp with time zone, relchain.clock_guard(s)::time with time zone, relchain.clock_guard(s)::time, relchain.clock_guard(s)::timetz FROM src`},
		{`SELECT count(*) FROM t WHERE ts::date = '2026-01-01'`, `SELECT count(*) FROM t WHERE relchain.clock_guard(ts)::date = '2026-01-01'`},
		{`UPDATE t SET d = s::date::timestamp`, `UPDATE t SET d = relchain.clock_guard(relchain.clock_guard(s)::date)::timestamp`},
		{`SELECT s::public.t, s::public.t[] FROM src`, `SELECT relchain.clock_guard(s)::public.t, relchain.clock_guard(s)::public.t[] FROM src`},
		{`CREATE VIEW v AS SELECT s::date FROM src`, `CREATE VIEW v AS SELECT relchain.clock_guard(s)::date FROM src`},
		{`CREATE TABLE t (s text CHECK (s::date > '2000-01-01'))`, `CREATE TABLE t (s text CHECK (relchain.clock_guard(s)::date > '2000-01-01'))`},
		{`CREATE FUNCTION f(x text) RETURNS date LANGUAGE sql AS 'SELECT x::date'`,
			`CREATE FUNCTION f(x text) RETURNS date LANGUAGE sql AS $$SELECT relchain.clock_guard(x)::date$$`},
	} {
		if _, err := Analyze(c.in); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !Rewrites(c.in) {
			t.Fatalf("%s: Rewrites false", c.in)
		}
		got, err := Rewrite(c.in, sqlcheck.Env{})
		if err != nil || got != c.want {
			t.Errorf("Rewrite(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
		if r, err := CheckRead(c.in); err == nil && r.Text != c.in {
			t.Errorf("CheckRead(%s).Text = %q; want the text unchanged (reads may use clock words)", c.in, r.Text)
		}
	}
	for _, same := range []string{
		`SELECT '2026-01-01'::date`,
		`SELECT $1::timestamptz`,
		`INSERT INTO t (ts) VALUES ($1::timestamptz)`,
		`SELECT NULL::date`,
		`SELECT s::text, s::interval, n::numeric FROM src`,
		`CREATE INDEX ON t ((ts::date))`,
		`CREATE FUNCTION f(x text) RETURNS date LANGUAGE plpgsql AS $$ BEGIN RETURN x::date; END $$`,
	} {
		if _, err := Analyze(same); err != nil {
			t.Fatalf("%s: %v", same, err)
		}
		if Rewrites(same) {
			got, _ := Rewrite(same, sqlcheck.Env{})
			t.Errorf("%s: rewritten to %q; want it unchanged", same, got)
		}
	}
}
