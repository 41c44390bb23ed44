package bench

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// Every database relchain runs on has an entry in each of package bench's
// per-database tables (nil where the gateway benchmark does not run on it).
func TestEveryDatabaseIsInBenchTables(t *testing.T) {
	for name, keys := range map[string][2][]string{
		"updateFills":      {workload.Missing(updateFills), workload.Extra(updateFills)},
		"rawReaderOpeners": {workload.Missing(rawReaderOpeners), workload.Extra(rawReaderOpeners)},
	} {
		if len(keys[0]) > 0 {
			t.Errorf("bench's %s have no entry for %v: fill it for the database", name, keys[0])
		}
		if len(keys[1]) > 0 {
			t.Errorf("bench's %s name %v, which package dialect does not know", name, keys[1])
		}
	}
}

// GatewayRuns refuses a database without raw readers, naming those with.
func TestGatewayRunsNamesTheBackendsItRunsOn(t *testing.T) {
	if err := GatewayRuns(workload.Postgres); err != nil {
		t.Fatal(err)
	}
	err := GatewayRuns(workload.MySQL)
	if err == nil || !strings.Contains(err.Error(), "sqlite or postgres") {
		t.Fatalf("GatewayRuns(mysql) = %v, want an error naming sqlite or postgres", err)
	}
}
