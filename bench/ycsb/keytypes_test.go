package ycsb

import (
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// Every database relchain runs on has YCSB's key type.
func TestEveryDatabaseHasAKeyType(t *testing.T) {
	if m := workload.Missing(keyTypes); len(m) > 0 {
		t.Errorf("ycsb's keyTypes have no entry for %v: name the database's indexable text type", m)
	}
	if e := workload.Extra(keyTypes); len(e) > 0 {
		t.Errorf("ycsb's keyTypes name %v, which package dialect does not know", e)
	}
}
