package pggate

import (
	"testing"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// pgAnalyzeCases are what TestAnalyze checks besides
// sqlchecktest.SharedAnalyzeCases: the DDL flag, the written tables
// (PostgreSQL identifier semantics: unquoted folded to lower case, quoted
// kept; the qualifier public dropped) and UsesEnv.
var pgAnalyzeCases = []struct {
	SQL  string
	Want sqlcheck.Analysis
}{
	{"INSERT INTO public.t (a) VALUES (1)", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"INSERT INTO \"T\" (a) VALUES (1)", sqlcheck.Analysis{Writes: []string{"T"}}},
	{"UPDATE s.t SET a = 1", sqlcheck.Analysis{Writes: []string{"s.t"}}},
	{"DELETE FROM \"Public\".t", sqlcheck.Analysis{Writes: []string{"Public.t"}}},
	{"WITH x AS (DELETE FROM t RETURNING *) SELECT count(*) FROM x", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"DROP INDEX i", sqlcheck.Analysis{DDL: true}},
	{"CREATE TABLE c AS SELECT a FROM t", sqlcheck.Analysis{DDL: true}},
	{"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'", sqlcheck.Analysis{DDL: true}},
	{"CREATE OR REPLACE FUNCTION f() RETURNS void LANGUAGE sql AS 'DELETE FROM t'", sqlcheck.Analysis{DDL: true}},
	{"CREATE PROCEDURE p() LANGUAGE plpgsql AS $$ BEGIN UPDATE t SET a = 1; END $$", sqlcheck.Analysis{DDL: true}},
	{"DROP FUNCTION f", sqlcheck.Analysis{DDL: true}},
	{"DROP PROCEDURE p", sqlcheck.Analysis{DDL: true}},
	{"CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION public.f()", sqlcheck.Analysis{DDL: true}},
	{"DROP TRIGGER tr ON t", sqlcheck.Analysis{DDL: true}},
	{"CALL public.p(1)", sqlcheck.Analysis{}},
	{"CALL public.p(now())", sqlcheck.Analysis{UsesEnv: true}},
	{"SELECT public.f(a) FROM t", sqlcheck.Analysis{}},
	{"INSERT INTO \"Mixed\".\"Case\" VALUES (1)", sqlcheck.Analysis{Writes: []string{"Mixed.Case"}}},
	{"INSERT INTO \"public\".\"T\" VALUES (1)", sqlcheck.Analysis{Writes: []string{"T"}}},
	{"INSERT INTO PUBLIC.T VALUES (1)", sqlcheck.Analysis{Writes: []string{"t"}}},
	{"UPDATE Ledger.Entries SET a = 1", sqlcheck.Analysis{Writes: []string{"ledger.entries"}}},
	{"WITH x AS (INSERT INTO log VALUES (1) RETURNING 1) SELECT * FROM x, t", sqlcheck.Analysis{Writes: []string{"log"}}},
	{"WITH x AS (UPDATE s.t SET a = 1 RETURNING a) SELECT a FROM x", sqlcheck.Analysis{Writes: []string{"s.t"}}},
	{"SELECT * FROM (WITH d AS (DELETE FROM q RETURNING *) SELECT * FROM d) s", sqlcheck.Analysis{Writes: []string{"q"}}},
	{"MERGE INTO acct a USING v ON a.id = v.id WHEN MATCHED THEN DELETE", sqlcheck.Analysis{Writes: []string{"acct"}}},
	{"WITH v AS (SELECT 1 AS id) MERGE INTO public.acct a USING v ON a.id = v.id WHEN MATCHED THEN DELETE", sqlcheck.Analysis{Writes: []string{"acct"}}},
	{"INSERT INTO t (ts) VALUES (now())", sqlcheck.Analysis{Writes: []string{"t"}, UsesEnv: true}},
	{"UPDATE t SET ts = current_timestamp", sqlcheck.Analysis{Writes: []string{"t"}, UsesEnv: true}},
	{"SELECT random()", sqlcheck.Analysis{UsesEnv: true}},
	{"SELECT 'we call now() and random() here'", sqlcheck.Analysis{}},
}

func TestAnalyze(t *testing.T) { sqlchecktest.CheckAnalyze(t, Analyze, pgAnalyzeCases) }

// TestAnalyzeCopiesWrites: a caller changing the Writes it got cannot
// change the cached analysis.
func TestAnalyzeCopiesWrites(t *testing.T) { sqlchecktest.CheckAnalyzeCopiesWrites(t, Analyze) }

// TestCheckIsAnalyze: Check's verdict is Analyze's, for the whole corpus.
func TestCheckIsAnalyze(t *testing.T) {
	for _, c := range corpus {
		_, aerr := Analyze(c.SQL)
		if !sameVerdict(aerr, Check(c.SQL)) {
			t.Errorf("%q: Analyze says %v, Check %v", c.SQL, aerr, Check(c.SQL))
		}
	}
}
