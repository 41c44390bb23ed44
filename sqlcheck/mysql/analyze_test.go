package mysql

import (
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/sqlcheck"
)

// TestAnalyze: the DDL flag and the written tables (lower case, sorted,
// without duplicates; UPDATE targets resolved through aliases and column
// qualifiers, all joined tables where the text does not tell).
func TestAnalyze(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want sqlcheck.Analysis
	}{
		{"SELECT 1", sqlcheck.Analysis{}},
		{"SELECT a FROM t ORDER BY a", sqlcheck.Analysis{}},
		{"SELECT NOW()", sqlcheck.Analysis{}},
		{"INSERT INTO t (a) VALUES (1)", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"INSERT INTO T (a) VALUES (NOW())", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"INSERT INTO `Mixed` (a) VALUES (1)", sqlcheck.Analysis{Writes: []string{"mixed"}}},
		{"REPLACE INTO t SET a = 1", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"INSERT INTO t (a) SELECT a FROM u", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"INSERT INTO t SELECT * FROM t", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"UPDATE Accounts SET a = 1", sqlcheck.Analysis{Writes: []string{"accounts"}}},
		{"UPDATE t JOIN u ON t.id = u.id SET t.a = u.a", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"UPDATE t AS x JOIN u AS y ON x.id = y.id SET y.a = x.a", sqlcheck.Analysis{Writes: []string{"u"}}},
		{"UPDATE t AS x JOIN u AS y ON x.id = y.id SET y.a = 1, x.b = 2, y.c = 3", sqlcheck.Analysis{Writes: []string{"t", "u"}}},
		{"UPDATE t, u SET a = 1 WHERE t.id = u.id", sqlcheck.Analysis{Writes: []string{"t", "u"}}},
		{"UPDATE t SET a = (SELECT MAX(b) FROM u)", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"UPDATE t JOIN (SELECT id, b FROM u) AS x ON x.id = t.id SET t.a = x.b", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"UPDATE t SET t.a = 1", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"DELETE FROM t WHERE a = 1", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"DELETE t, u FROM t JOIN u ON t.id = u.id", sqlcheck.Analysis{Writes: []string{"t", "u"}}},
		{"DELETE x FROM t AS x JOIN u ON x.id = u.id", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"DELETE FROM t USING t JOIN u ON t.id = u.id", sqlcheck.Analysis{Writes: []string{"t"}}},
		{"CREATE TABLE t (a int)", sqlcheck.Analysis{DDL: true}},
		{"CREATE TABLE t2 LIKE t", sqlcheck.Analysis{DDL: true}},
		{"CREATE INDEX i ON t (a)", sqlcheck.Analysis{DDL: true}},
		{"DROP INDEX i ON t", sqlcheck.Analysis{DDL: true}},
		{"CREATE VIEW v AS SELECT a FROM t", sqlcheck.Analysis{DDL: true}},
		{"DROP VIEW v", sqlcheck.Analysis{DDL: true}},
		{"ALTER TABLE t ADD COLUMN b int", sqlcheck.Analysis{DDL: true}},
		{"DROP TABLE t", sqlcheck.Analysis{DDL: true}},
		{"TRUNCATE TABLE T", sqlcheck.Analysis{DDL: true, Writes: []string{"t"}}},
	} {
		got, err := Analyze(c.sql)
		if err != nil {
			t.Errorf("%q: %v", c.sql, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: Analyze = %+v, want %+v", c.sql, got, c.want)
		}
	}
}

// TestAnalyzeIsDeterministic: twice, uncached and cached, the same
// analysis for every corpus statement.
func TestAnalyzeIsDeterministic(t *testing.T) {
	for _, c := range corpus {
		first := analyze(c.sql)
		second := analyze(c.sql)
		if !reflect.DeepEqual(first.a, second.a) || !sameVerdict(first.err, second.err) {
			t.Fatalf("%q: %+v (%v), then %+v (%v)", c.sql, first.a, first.err, second.a, second.err)
		}
		a, err := Analyze(c.sql)
		if !sameVerdict(err, first.err) || (err == nil && !reflect.DeepEqual(a, first.a)) {
			t.Fatalf("%q: cached %+v (%v), uncached %+v (%v)", c.sql, a, err, first.a, first.err)
		}
	}
}

// TestAnalyzeCopiesWrites: a caller changing the Writes it got cannot
// change the cached analysis.
func TestAnalyzeCopiesWrites(t *testing.T) {
	const sql = "DELETE FROM copied WHERE a = 1"
	a, _ := Analyze(sql)
	a.Writes[0] = "other"
	if b, _ := Analyze(sql); b.Writes[0] != "copied" {
		t.Fatalf("the cached analysis changed: %v", b.Writes)
	}
}

// TestRewriteIsIdentity: accepted texts run as they are (clock functions
// included: the backend pins the session timestamp), refused ones fail
// with Check's error.
func TestRewriteIsIdentity(t *testing.T) {
	env := sqlcheck.NewEnv(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), []byte("block"), 3)
	for _, c := range corpus {
		got, err := Rewrite(c.sql, env)
		want := Check(c.sql)
		switch {
		case !sameVerdict(err, want):
			t.Errorf("%q: Rewrite error %v, want Check's %v", c.sql, err, want)
		case err == nil && got != c.sql:
			t.Errorf("%q: rewritten to %q", c.sql, got)
		}
	}
}
