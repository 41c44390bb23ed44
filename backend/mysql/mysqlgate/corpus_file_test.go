package mysqlgate

import (
	"errors"
	"strings"
	"testing"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// corpusFile is where the corpus is exported for the network tests.
const corpusFile = "testdata/corpus.json"

// TestCorpusFileIsCurrent keeps testdata/corpus.json equal to the corpus
// table with each entry's CheckTx verdict: a text that is not exactly one
// parseable statement is a syntax refusal, a gate refusal is a reject, and
// an accepted text is an accept (the MySQL gate rewrites nothing: clock
// functions read the session timestamp the backend pins to the block's
// time).
func TestCorpusFileIsCurrent(t *testing.T) {
	c := sqlchecktest.Corpus{Dialect: "mysql", Schema: schema}
	for _, e := range corpus {
		entry := sqlchecktest.Entry{SQL: e.SQL, Verdict: sqlchecktest.Reject, Reason: e.Want}
		a, err := Analyze(e.SQL)
		switch {
		case errors.Is(err, sqlcheck.ErrUnparseable):
			entry.Verdict = sqlchecktest.Syntax
			entry.Reason = strings.TrimPrefix(err.Error(), sqlcheck.ErrUnparseable.Error()+": ")
		case err != nil && strings.HasPrefix(err.Error(), "empty statement"):
			entry.Verdict, entry.Reason = sqlchecktest.Syntax, "holds no SQL statement"
		case err != nil && strings.Contains(err.Error(), "exactly one is allowed"):
			entry.Verdict, entry.Reason = sqlchecktest.Syntax, "exactly one is allowed"
		case err == nil:
			if e.Want != "" {
				t.Fatalf("%q: the corpus rejects it, Analyze accepts it", e.SQL)
			}
			if a.UsesEnv {
				t.Fatalf("%q: UsesEnv set by the MySQL gate", e.SQL)
			}
			entry.Verdict = sqlchecktest.Accept
		}
		c.Entries = append(c.Entries, entry)
	}
	if n := c.Count(sqlchecktest.Reject) + c.Count(sqlchecktest.Syntax); n < 200 {
		t.Fatalf("only %d refused entries", n)
	}
	sqlchecktest.Golden(t, corpusFile, c)
}

// TestSchemaPassesTheGate: the corpus schema is what an admin could send.
func TestSchemaPassesTheGate(t *testing.T) {
	for _, s := range schema {
		a, err := Analyze(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
		} else if !a.DDL {
			t.Errorf("%q: not DDL", s)
		}
	}
}
