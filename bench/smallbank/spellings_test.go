package smallbank

import (
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// Every database relchain runs on has Smallbank's spellings, each filled
// in (a missing function would fail at the first Setup).
func TestEveryDatabaseHasSpellings(t *testing.T) {
	if m := workload.Missing(spellings); len(m) > 0 {
		t.Errorf("smallbank's spellings have no entry for %v: spell Smallbank's SQL for the database", m)
	}
	if e := workload.Extra(spellings); len(e) > 0 {
		t.Errorf("smallbank's spellings name %v, which package dialect does not know", e)
	}
	for name, sp := range spellings {
		if sp.nameType == "" || sp.nameOf == nil || sp.genInsert == nil || sp.text == "" {
			t.Errorf("smallbank's spellings[%q] leaves a field empty: %+v", name, sp)
		}
	}
}
