package tpcc

import (
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// Every database relchain runs on has TPC-C's dialect.
func TestEveryDatabaseHasADialect(t *testing.T) {
	if m := workload.Missing(dialects); len(m) > 0 {
		t.Errorf("tpcc's dialects have no entry for %v: say which of TPC-C's forms the database runs", m)
	}
	if e := workload.Extra(dialects); len(e) > 0 {
		t.Errorf("tpcc's dialects name %v, which package dialect does not know", e)
	}
}
