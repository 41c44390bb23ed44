package difftest

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/relchain/relchain/internal/racetest"
)

// gateCorpus is backend/postgres/pggate's corpus of statements and
// verdicts.
const gateCorpus = "../../../postgres/pggate/testdata/corpus.json"

// placeholder matches a $n parameter.
var placeholder = regexp.MustCompile(`\$[0-9]+`)

// gateCorpusCase is one case of the gate corpus's accepted statements, in
// their order (its CREATE TABLEs come before the statements that use
// them), without those that take parameters (the corpus has no values
// for them); it also returns how many of those it left out.
func gateCorpusCase(t *testing.T) (diffCase, int) {
	t.Helper()
	raw, err := os.ReadFile(gateCorpus)
	if err != nil {
		t.Fatalf("read the gate corpus: %v", err)
	}
	var corpus struct {
		Entries []struct {
			SQL     string `json:"sql"`
			Verdict string `json:"verdict"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatalf("decode the gate corpus: %v", err)
	}
	c := diffCase{name: "pggate corpus", keepGoing: true}
	withParams := 0
	for i, e := range corpus.Entries {
		switch {
		case e.Verdict != "accept":
		case placeholder.MatchString(e.SQL):
			withParams++
		default:
			c.stmts = append(c.stmts, spec{sql: e.SQL, where: fmt.Sprintf("corpus.json entry %d", i)})
		}
	}
	return c, withParams
}

// TestGateCorpus runs the PostgreSQL gate corpus's accepted statements.
func TestGateCorpus(t *testing.T) {
	racetest.Heavy(t) // the gate corpus, one statement at a time on two engines: 82 s under -race
	c, withParams := gateCorpusCase(t)
	if len(c.stmts) < 100 {
		t.Fatalf("the gate corpus gave %d accepted statements without parameters; expected over 100", len(c.stmts))
	}
	h := newHarness(t)
	h.maria = newMariaColumn(h)
	h.runCase(c, "")
	h.log(t, "pggate corpus")
	h.requireCompared(t)
	t.Logf("pggate corpus: %d accepted statements with parameters left out (no values)", withParams)
}
