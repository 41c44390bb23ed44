package sqlite_test

import (
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// corpusFile is where the corpus is exported for the network tests.
const corpusFile = "testdata/gate_corpus.json"

// TestCorpusFileIsCurrent keeps testdata/gate_corpus.json equal to the
// gate corpus with each entry's CheckTx verdict (TestGateCorpus proves the
// verdicts on a real database): a gate refusal is a reject, a text that
// does not parse or holds several statements is a syntax refusal, and a
// failure SQLite reports only when the statement runs, or of another class,
// is a fail (CheckTx admits it). The schema is gateSetup, which the
// verdicts depend on (SQLite's gate works on compiled statements).
func TestCorpusFileIsCurrent(t *testing.T) {
	c := sqlchecktest.Corpus{Dialect: "sqlite", Schema: gateSetup}
	for _, g := range gateCorpus {
		e := sqlchecktest.Entry{SQL: g.sql, Reason: g.reason}
		switch {
		case g.execOnly || (g.class != "" && g.class != backend.ClassSyntax && g.class != backend.ClassInvalid):
			e.Verdict = sqlchecktest.Fail
		case g.class != "":
			e.Verdict = sqlchecktest.Syntax
		case g.v == reject:
			e.Verdict = sqlchecktest.Reject
		case g.v == rewrite:
			e.Verdict = sqlchecktest.Rewrite
		default:
			e.Verdict, e.Reason = sqlchecktest.Accept, ""
		}
		c.Entries = append(c.Entries, e)
	}
	if n := c.Count(sqlchecktest.Reject); n < 100 {
		t.Fatalf("only %d gate refusals", n)
	}
	sqlchecktest.Golden(t, corpusFile, c)
}
