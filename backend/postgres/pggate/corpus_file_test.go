package pggate

import (
	"errors"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// corpusFile is where the corpus is exported for the network tests.
const corpusFile = "testdata/corpus.json"

// TestCorpusFileIsCurrent keeps testdata/corpus.json equal to the corpus
// table with each entry's CheckTx verdict: a text that is not exactly one
// parseable statement is a syntax refusal (the backend parses before it
// gates), a gate refusal is a reject, an accepted text that reads the clock
// or random numbers is a rewrite. The PostgreSQL gate judges text alone, so
// the file needs no schema.
func TestCorpusFileIsCurrent(t *testing.T) {
	c := sqlchecktest.Corpus{Dialect: "postgres", Schema: []string{}}
	for _, e := range corpus {
		entry := sqlchecktest.Entry{SQL: e.SQL, Verdict: sqlchecktest.Reject, Reason: e.Want}
		tree, perr := pg_query.Parse(e.SQL)
		switch {
		case perr != nil:
			entry.Verdict, entry.Reason = sqlchecktest.Syntax, perr.Error()
			var pe *parser.Error
			if errors.As(perr, &pe) {
				entry.Reason = pe.Message
			}
		case len(tree.GetStmts()) == 0:
			entry.Verdict, entry.Reason = sqlchecktest.Syntax, "holds no SQL statement"
		case len(tree.GetStmts()) > 1:
			entry.Verdict, entry.Reason = sqlchecktest.Syntax, "exactly one is allowed"
		case e.Want == "":
			a, err := Analyze(e.SQL)
			if err != nil {
				t.Fatalf("%q: the corpus accepts it, Analyze refuses it: %v", e.SQL, err)
			}
			entry.Verdict = sqlchecktest.Accept
			if a.UsesEnv {
				entry.Verdict = sqlchecktest.Rewrite
			}
		}
		c.Entries = append(c.Entries, entry)
	}
	if n := c.Count(sqlchecktest.Reject) + c.Count(sqlchecktest.Syntax); n < 200 {
		t.Fatalf("only %d refused entries", n)
	}
	sqlchecktest.Golden(t, corpusFile, c)
}
