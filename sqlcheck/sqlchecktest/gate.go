package sqlchecktest

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/relchain/relchain/sqlcheck"
)

// Gate is a text gate under test: its Check (the text gates' contract,
// package sqlcheck) and the same verdict without the cache.
type Gate struct {
	Check    func(sql string) error
	Uncached func(sql string) error
}

// AnalyzeCase is a statement every gate must accept, and what it does.
type AnalyzeCase struct {
	SQL  string
	Want sqlcheck.Analysis
}

// SharedAnalyzeCases are statements that both SQL dialects write alike and
// both gates must analyze alike: a gate's TestAnalyze runs them besides its
// dialect's own.
var SharedAnalyzeCases = []AnalyzeCase{
	{"SELECT 1", sqlcheck.Analysis{}},
	{"SELECT a FROM t ORDER BY a", sqlcheck.Analysis{}},
	{"INSERT INTO t (a) VALUES (1)", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"INSERT INTO t SELECT * FROM t", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"UPDATE Accounts SET a = 1", sqlcheck.Analysis{Writes: []string{"accounts"}}},
	{"DELETE FROM t WHERE a = 1", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"CREATE TABLE t (a int)", sqlcheck.Analysis{DDL: true}},
	{"CREATE INDEX i ON t (a)", sqlcheck.Analysis{DDL: true}},
	{"CREATE VIEW v AS SELECT a FROM t", sqlcheck.Analysis{DDL: true}},
	{"ALTER TABLE t ADD COLUMN b int", sqlcheck.Analysis{DDL: true}},
	{"DROP TABLE t", sqlcheck.Analysis{DDL: true}},
	{"DROP VIEW v", sqlcheck.Analysis{DDL: true}},
}

// CheckAnalyze checks that analyze accepts every case, SharedAnalyzeCases
// first, with the wanted Analysis. A dialect's table may be of its own type
// of the same shape (see Case).
func CheckAnalyze[C ~struct {
	SQL  string
	Want sqlcheck.Analysis
}](t *testing.T, analyze func(string) (sqlcheck.Analysis, error), dialect []C) {
	t.Helper()
	cases := withShared(SharedAnalyzeCases, dialect)
	for _, c := range cases {
		got, err := analyze(c.SQL)
		if err != nil {
			t.Errorf("%q: %v", c.SQL, err)
			continue
		}
		if !reflect.DeepEqual(got, c.Want) {
			t.Errorf("%q: Analyze = %+v, want %+v", c.SQL, got, c.Want)
		}
	}
}

// withShared appends a dialect's cases, of its own type, to shared.
func withShared[C ~struct {
	SQL  string
	Want sqlcheck.Analysis
}](shared []AnalyzeCase, dialect []C) []AnalyzeCase {
	out := append([]AnalyzeCase(nil), shared...)
	for _, c := range dialect {
		out = append(out, AnalyzeCase(c))
	}
	return out
}

// CheckAnalyzeCopiesWrites checks that a caller changing the Writes it got
// from analyze cannot change the cached analysis.
func CheckAnalyzeCopiesWrites(t *testing.T, analyze func(string) (sqlcheck.Analysis, error)) {
	t.Helper()
	const sql = "DELETE FROM copied WHERE a = 1"
	a, _ := analyze(sql)
	a.Writes[0] = "other"
	if b, _ := analyze(sql); b.Writes[0] != "copied" {
		t.Fatalf("the cached analysis changed: %v", b.Writes)
	}
}

// Fuzz is a gate's FuzzCheck: seeded with the corpus, it checks that the
// gate never panics and that its verdict is a pure function of the text
// (StableVerdict), and then runs more, the dialect's own checks, on the
// text and its verdict (more may be nil).
func Fuzz[C ~struct{ SQL, Want string }](f *testing.F, corpus []C, g Gate, more func(t *testing.T, sql string, verdict error)) {
	for _, c := range asCases(corpus) {
		f.Add(c.SQL)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		verdict := StableVerdict(t, sql, g.Uncached, g.Check)
		if more != nil {
			more(t, sql, verdict)
		}
	})
}

// BenchStatement is a statement text a gate benchmark measures.
type BenchStatement struct{ Name, SQL string }

// BenchStatements are the texts every gate's benchmark measures: the
// hottest of Smallbank and TPC-C NewOrder, with PostgreSQL's placeholders
// ($1, $2, ...; MySQLPlaceholders rewrites them).
var BenchStatements = []BenchStatement{
	{"smallbank-update", "UPDATE checking SET balance = balance + $1 WHERE customer_id = $2"},
	{"tpcc-neworder-stock", "UPDATE stock SET s_quantity = $1, s_ytd = s_ytd + $2, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $3 WHERE s_i_id = $4 AND s_w_id = $5"},
	{"tpcc-neworder-orderline", "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"},
	{"tpcc-neworder-select", "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3"},
	{"tpcc-neworder-orders-now", "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, now(), $5, $6)"},
}

// dollarPlaceholder is a PostgreSQL placeholder.
var dollarPlaceholder = regexp.MustCompile(`\$[0-9]+`)

// MySQLPlaceholders returns the statements with MySQL's placeholder, ?,
// for each of PostgreSQL's $n.
func MySQLPlaceholders(statements []BenchStatement) []BenchStatement {
	out := make([]BenchStatement, len(statements))
	for i, s := range statements {
		out[i] = BenchStatement{Name: s.Name, SQL: dollarPlaceholder.ReplaceAllString(s.SQL, "?")}
	}
	return out
}

// Bench is what a gate benchmark measures per statement, each a function
// of the text whose error RunBench ignores (but for Uncached's, once, up
// front: every statement must pass the gate).
type Bench struct {
	// Uncached is the verdict without the cache: parse and walk, what
	// CheckTx pays for a text it has not seen.
	Uncached func(sql string) error
	// Cached is the verdict through the cache: what CheckTx and
	// FinalizeBlock pay for a workload's repeated statement texts.
	Cached func(sql string) error
	// ParseOnly is the bare parse, for comparison.
	ParseOnly func(sql string) error
}

// RunBench runs x's sub-benchmarks name/uncached, name/cached and
// name/parse-only for each statement.
func RunBench(b *testing.B, x Bench, statements []BenchStatement) {
	for _, s := range statements {
		if err := x.Uncached(s.SQL); err != nil {
			b.Fatalf("%s: %v", s.Name, err)
		}
		for _, run := range []struct {
			name string
			f    func(string) error
		}{{"uncached", x.Uncached}, {"cached", x.Cached}, {"parse-only", x.ParseOnly}} {
			b.Run(s.Name+"/"+run.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = run.f(s.SQL)
				}
			})
		}
	}
}
