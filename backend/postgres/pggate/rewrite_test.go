package pggate

import (
	"errors"
	"reflect"
	"testing"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/relchain/relchain/sqlcheck"
)

var (
	testEnv  = sqlcheck.Env{Time: time.Date(2026, 11, 22, 7, 21, 43, 123456789, time.UTC), Seed: [32]byte{1}}
	otherEnv = sqlcheck.Env{Time: time.Date(2031, 2, 3, 23, 59, 59, 999999999, time.FixedZone("x", 3600)), Seed: [32]byte{2}}
)

// rewrites are exact: the rewritten text is consensus-relevant (every node
// must execute the same text), so any change here is a protocol change.
var rewrites = []struct{ sql, want string }{
	{"SELECT now()",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now"},
	{"SELECT pg_catalog.now()",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now"},
	{"SELECT \"pg_catalog\".\"now\"()",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now"},
	{"select NOW() -- now()",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now"},
	{"SELECT transaction_timestamp(), statement_timestamp(), clock_timestamp()",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS transaction_timestamp, '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS statement_timestamp, '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS clock_timestamp"},
	{"SELECT current_timestamp, current_timestamp(0)",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS \"current_timestamp\", '2026-11-22 07:21:43.123456+00'::timestamp (0) with time zone AS \"current_timestamp\""},
	{"SELECT localtimestamp, localtimestamp(3)",
		"SELECT '2026-11-22 07:21:43.123456'::timestamp AS \"localtimestamp\", '2026-11-22 07:21:43.123456'::timestamp(3) AS \"localtimestamp\""},
	{"SELECT current_date",
		"SELECT '2026-11-22'::pg_catalog.date AS \"current_date\""},
	{"SELECT current_time, current_time(2)",
		"SELECT '07:21:43.123456+00'::time with time zone AS \"current_time\", '07:21:43.123456+00'::time (2) with time zone AS \"current_time\""},
	{"SELECT localtime, localtime(6)",
		"SELECT '07:21:43.123456'::time AS \"localtime\", '07:21:43.123456'::time(6) AS \"localtime\""},
	{"SELECT random()",
		"SELECT '0.13056703531271951'::double precision AS random"},
	{"SELECT random(), pg_catalog.random()",
		"SELECT '0.13056703531271951'::double precision AS random, '0.5497842699380683'::double precision AS random"},
	{"INSERT INTO t (a, b, c) VALUES ($1, random(), now())",
		"INSERT INTO t (a, b, c) VALUES ($1, '0.13056703531271951'::double precision, '2026-11-22 07:21:43.123456+00'::timestamp with time zone)"},
	{"INSERT INTO t VALUES (1, random()), (2, random())",
		"INSERT INTO t VALUES (1, '0.13056703531271951'::double precision), (2, '0.5497842699380683'::double precision)"},
	{"UPDATE t SET ts = now() WHERE id = $1 RETURNING ts",
		"UPDATE t SET ts = '2026-11-22 07:21:43.123456+00'::timestamp with time zone WHERE id = $1 RETURNING ts"},
	{"DELETE FROM t WHERE d < current_date - 30",
		"DELETE FROM t WHERE d < ('2026-11-22'::pg_catalog.date - 30)"},
	{"SELECT now()::date",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone::date AS now"},
	{"SELECT -random()",
		"SELECT - '0.13056703531271951'::double precision AS \"?column?\""},
	{"SELECT floor(random() * 6) + 1",
		"SELECT floor('0.13056703531271951'::double precision * 6) + 1 AS \"?column?\""},
	{"WITH x AS (UPDATE t SET ts = now() WHERE id = 1 RETURNING id) SELECT id FROM x",
		"WITH x AS (UPDATE t SET ts = '2026-11-22 07:21:43.123456+00'::timestamp with time zone WHERE id = 1 RETURNING id) SELECT id FROM x"},
	{"CALL public.p(now(), random())",
		"CALL public.p('2026-11-22 07:21:43.123456+00'::timestamp with time zone, '0.13056703531271951'::double precision)"},
	// The statement holds the placeholder text itself: another one is used.
	{"SELECT 'relchain_env_0_0', now()",
		"SELECT 'relchain_env_0_0', '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now"},
	// Call sites are numbered in the gate's walk order (the parse tree's
	// field order): the target list comes before the WITH clause.
	{"WITH x AS (SELECT random() AS r) SELECT random(), 1",
		"WITH x AS (SELECT '0.5497842699380683'::double precision AS r) SELECT '0.13056703531271951'::double precision AS random, 1"},
	// Output columns keep the names PostgreSQL gives the original
	// expressions, so outer queries, CTEs, ORDER BY and clients still find
	// them.
	{"SELECT x.now FROM (SELECT now()) x",
		"SELECT x.now FROM (SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now) x"},
	{"WITH c AS (SELECT current_date) SELECT \"current_date\" FROM c",
		"WITH c AS (SELECT '2026-11-22'::pg_catalog.date AS \"current_date\") SELECT \"current_date\" FROM c"},
	{"SELECT (SELECT now())",
		"SELECT (SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now) AS now"},
	{"SELECT now() ORDER BY now",
		"SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now ORDER BY now"},
	{"SELECT CASE WHEN $1 THEN now() END, coalesce(now(), now()), now() + interval '1 day', now() AS given",
		"SELECT CASE WHEN $1 THEN '2026-11-22 07:21:43.123456+00'::timestamp with time zone END AS \"case\", COALESCE('2026-11-22 07:21:43.123456+00'::timestamp with time zone, '2026-11-22 07:21:43.123456+00'::timestamp with time zone) AS \"coalesce\", '2026-11-22 07:21:43.123456+00'::timestamp with time zone + '1 day'::interval AS \"?column?\", '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS given"},
	{"SELECT ts FROM (SELECT now()::date) AS s(ts)",
		"SELECT ts FROM (SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone::date AS now) s(ts)"},
	{"INSERT INTO t (a) VALUES (1) RETURNING a, now()",
		"INSERT INTO t (a) VALUES (1) RETURNING a, '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now"},
	{"SELECT (SELECT x FROM (SELECT 1 AS x) s) = 1 OR now() IS NULL AS b, (SELECT now() UNION SELECT now())",
		"SELECT (SELECT x FROM (SELECT 1 AS x) s) = 1 OR '2026-11-22 07:21:43.123456+00'::timestamp with time zone IS NULL AS b, (SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now UNION SELECT '2026-11-22 07:21:43.123456+00'::timestamp with time zone AS now) AS now"},
}

func TestRewrite(t *testing.T) {
	for _, c := range rewrites {
		a, err := Analyze(c.sql)
		if err != nil || !a.UsesEnv {
			t.Errorf("%q: Analyze = %+v, %v; want UsesEnv", c.sql, a, err)
			continue
		}
		got, err := Rewrite(c.sql, testEnv)
		if err != nil || got != c.want {
			t.Errorf("%q:\nRewrite = %q, %v\nwant      %q", c.sql, got, err, c.want)
			continue
		}
		if err := Check(got); err != nil {
			t.Errorf("%q: the rewritten %q fails the gate: %v", c.sql, got, err)
		}
	}
}

// TestRewriteCorpus: for every statement of the corpus the gate accepts,
// Rewrite is deterministic, leaves statements without clock or random
// functions as they are, and otherwise returns a text that parses, passes
// the gate with the same analysis and needs no further rewrite.
func TestRewriteCorpus(t *testing.T) {
	n := 0
	for _, c := range corpus {
		a, err := Analyze(c.SQL)
		if err != nil {
			if _, rerr := Rewrite(c.SQL, testEnv); rerr == nil || rerr.Error() != err.Error() {
				t.Errorf("%q: Rewrite error %v, want Check's %v", c.SQL, rerr, err)
			}
			continue
		}
		r1, err := Rewrite(c.SQL, testEnv)
		if err != nil {
			t.Errorf("%q: Rewrite: %v", c.SQL, err)
			continue
		}
		if !a.UsesEnv {
			if r1 != c.SQL {
				t.Errorf("%q: rewritten to %q without UsesEnv", c.SQL, r1)
			}
			continue
		}
		n++
		checkRewritten(t, c.SQL, a, r1)
		if again, _ := Rewrite(c.SQL, testEnv); again != r1 {
			t.Errorf("%q: Rewrite is not deterministic: %q, then %q", c.SQL, r1, again)
		}
		if fresh, err := analyze(c.SQL).tmpl.fill(testEnv); err != nil || fresh != r1 {
			t.Errorf("%q: uncached rewrite %q (%v) differs from cached %q", c.SQL, fresh, err, r1)
		}
		r2, _ := Rewrite(c.SQL, otherEnv)
		if r2 == r1 && len(analyze(c.SQL).tmpl.holes) > 0 {
			t.Errorf("%q: the same text %q under two environments", c.SQL, r1)
		}
		checkRewritten(t, c.SQL, a, r2)
	}
	t.Logf("%d corpus statements rewritten", n)
	if n < 50 {
		t.Errorf("only %d corpus statements use the environment", n)
	}
}

func checkRewritten(t *testing.T, sql string, a sqlcheck.Analysis, r string) {
	t.Helper()
	b, err := Analyze(r)
	if err != nil {
		t.Errorf("%q: the rewritten %q fails the gate: %v", sql, r, err)
		return
	}
	a.UsesEnv = false // b.UsesEnv: a clock or random call survived the rewrite
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%q: the rewritten %q analyzes to %+v, want %+v", sql, r, b, a)
	}
}

func TestRewriteRejectsAndPassesThrough(t *testing.T) {
	const bad = "SELECT pg_sleep(1)"
	if _, err := Rewrite(bad, testEnv); err == nil || err.Error() != Check(bad).Error() {
		t.Errorf("Rewrite(%q) = %v, want Check's error", bad, err)
	}
	if _, err := Rewrite("SELEC 1", testEnv); !errors.Is(err, sqlcheck.ErrUnparseable) {
		t.Errorf("Rewrite of a syntax error = %v, want ErrUnparseable", err)
	}
	const plain = "UPDATE checking SET balance = balance + $1 WHERE customer_id = $2"
	if got, err := Rewrite(plain, testEnv); err != nil || got != plain {
		t.Errorf("Rewrite(%q) = %q, %v", plain, got, err)
	}
	Check(plain)
	if allocs := testing.AllocsPerRun(100, func() { _, _ = Rewrite(plain, testEnv) }); allocs != 0 {
		t.Errorf("Rewrite of a statement without clock or random functions allocates %v times", allocs)
	}
	late := sqlcheck.Env{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := Rewrite("SELECT now()", late); err == nil {
		t.Error("Rewrite with a time past year 9999 succeeded")
	}
	if got, err := Rewrite("SELECT now()", sqlcheck.Env{}); err != nil || got != "SELECT '0001-01-01 00:00:00.000000+00'::timestamp with time zone AS now" {
		t.Errorf("Rewrite with the zero Env = %q, %v", got, err)
	}
}

// TestRandomValue: values in [0, 1), distinct per call site and seed.
func TestRandomValue(t *testing.T) {
	seen := map[float64]bool{}
	for _, seed := range [][32]byte{{}, {1}, {2}} {
		for k := range 1000 {
			v := randomValue(seed, k)
			if v < 0 || v >= 1 {
				t.Fatalf("randomValue(%x, %d) = %v", seed, k, v)
			}
			if seen[v] {
				t.Fatalf("randomValue(%x, %d) = %v repeats", seed, k, v)
			}
			seen[v] = true
		}
	}
}

// TestRewrittenTreeEqualsOriginal: the rewritten statement is the original
// tree with exactly the call sites replaced (checked through the parse of
// both, with the literals put back as the placeholders' shape).
func TestRewrittenTreeShape(t *testing.T) {
	const sql = "INSERT INTO t (a, b) SELECT $1, now() WHERE $2 > random()"
	r, err := Rewrite(sql, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pg_query.Parse(r)
	if err != nil {
		t.Fatalf("%q does not parse: %v", r, err)
	}
	out, _ := pg_query.Deparse(tree)
	if out != r {
		t.Errorf("the rewritten text is not a fixed point of deparse: %q vs %q", r, out)
	}
}

// TestConcurrent: the cache is safe for concurrent use, and concurrent
// callers see the same verdicts and rewrites (run with -race).
func TestConcurrent(t *testing.T) {
	want := make([]string, len(corpus))
	for i, c := range corpus {
		want[i], _ = Rewrite(c.SQL, testEnv)
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range corpus {
				c := corpus[(i+g*97)%len(corpus)]
				got, _ := Rewrite(c.SQL, testEnv)
				if got != want[(i+g*97)%len(corpus)] {
					done <- errors.New(c.SQL + ": concurrent rewrite differs")
					return
				}
				_, _ = Analyze(c.SQL)
				_ = Check(c.SQL)
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
