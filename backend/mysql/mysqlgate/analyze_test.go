package mysqlgate

import (
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// mysqlAnalyzeCases are what TestAnalyze checks besides
// sqlchecktest.SharedAnalyzeCases: the DDL flag and the written tables
// (lower case, sorted, without duplicates; UPDATE targets resolved through
// aliases and column qualifiers, all joined tables where the text does not
// tell).
var mysqlAnalyzeCases = []struct {
	SQL  string
	Want sqlcheck.Analysis
}{
	{"SELECT NOW()", sqlcheck.Analysis{}},
	{"INSERT INTO T (a) VALUES (NOW())", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"INSERT INTO `Mixed` (a) VALUES (1)", sqlcheck.Analysis{Writes: []string{"mixed"}}},
	{"REPLACE INTO t SET a = 1", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"INSERT INTO t (a) SELECT a FROM u", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"UPDATE t JOIN u ON t.id = u.id SET t.a = u.a", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"UPDATE t AS x JOIN u AS y ON x.id = y.id SET y.a = x.a", sqlcheck.Analysis{Writes: []string{"u"}}},
	{"UPDATE t AS x JOIN u AS y ON x.id = y.id SET y.a = 1, x.b = 2, y.c = 3", sqlcheck.Analysis{Writes: []string{"t", "u"}}},
	{"UPDATE t, u SET a = 1 WHERE t.id = u.id", sqlcheck.Analysis{Writes: []string{"t", "u"}}},
	{"UPDATE t SET a = (SELECT MAX(b) FROM u)", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"UPDATE t JOIN (SELECT id, b FROM u) AS x ON x.id = t.id SET t.a = x.b", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"UPDATE t SET t.a = 1", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"DELETE t, u FROM t JOIN u ON t.id = u.id", sqlcheck.Analysis{Writes: []string{"t", "u"}}},
	{"DELETE x FROM t AS x JOIN u ON x.id = u.id", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"DELETE FROM t USING t JOIN u ON t.id = u.id", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"CREATE TABLE t2 LIKE t", sqlcheck.Analysis{DDL: true}},
	{"DROP INDEX i ON t", sqlcheck.Analysis{DDL: true}},
	{"TRUNCATE TABLE T", sqlcheck.Analysis{DDL: true, Writes: []string{"t"}}},
}

func TestAnalyze(t *testing.T) { sqlchecktest.CheckAnalyze(t, Analyze, mysqlAnalyzeCases) }

// TestAnalyzeIsDeterministic: twice, uncached and cached, the same
// analysis for every corpus statement.
func TestAnalyzeIsDeterministic(t *testing.T) {
	for _, c := range corpus {
		first := analyze(c.SQL)
		second := analyze(c.SQL)
		if !reflect.DeepEqual(first.Analysis, second.Analysis) || !sameVerdict(first.Err, second.Err) {
			t.Fatalf("%q: %+v (%v), then %+v (%v)", c.SQL, first.Analysis, first.Err, second.Analysis, second.Err)
		}
		a, err := Analyze(c.SQL)
		if !sameVerdict(err, first.Err) || (err == nil && !reflect.DeepEqual(a, first.Analysis)) {
			t.Fatalf("%q: cached %+v (%v), uncached %+v (%v)", c.SQL, a, err, first.Analysis, first.Err)
		}
	}
}

// TestAnalyzeCopiesWrites: a caller changing the Writes it got cannot
// change the cached analysis.
func TestAnalyzeCopiesWrites(t *testing.T) { sqlchecktest.CheckAnalyzeCopiesWrites(t, Analyze) }

// TestRewriteIsIdentity: accepted texts run as they are (clock functions
// included: the backend pins the session timestamp), refused ones fail
// with Check's error.
func TestRewriteIsIdentity(t *testing.T) {
	env := sqlcheck.NewEnv(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), []byte("block"), 3)
	for _, c := range corpus {
		got, err := Rewrite(c.SQL, env)
		want := Check(c.SQL)
		switch {
		case !sameVerdict(err, want):
			t.Errorf("%q: Rewrite error %v, want Check's %v", c.SQL, err, want)
		case err == nil && got != c.SQL:
			t.Errorf("%q: rewritten to %q", c.SQL, got)
		}
	}
}
