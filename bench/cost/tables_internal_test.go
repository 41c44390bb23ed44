package cost

import (
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// Every database relchain runs on has an entry in cost's per-database
// table (nil where there is nothing to settle).
func TestEveryDatabaseHasASettler(t *testing.T) {
	if m := workload.Missing(settlers); len(m) > 0 {
		t.Errorf("bench/cost's settlers have no entry for %v: say what settles the database after the load (nil: nothing)", m)
	}
	if e := workload.Extra(settlers); len(e) > 0 {
		t.Errorf("bench/cost's settlers name %v, which package dialect does not know", e)
	}
}
