package raw

import (
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// Every database relchain runs on has a raw baseline opener.
func TestEveryDatabaseHasAnOpener(t *testing.T) {
	if m := workload.Missing(openers); len(m) > 0 {
		t.Errorf("bench/raw's openers have no entry for %v: add the database's Open function", m)
	}
	if e := workload.Extra(openers); len(e) > 0 {
		t.Errorf("bench/raw's openers name %v, which package dialect does not know", e)
	}
}
