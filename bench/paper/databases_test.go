package paper

import (
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// Fig. 10 sets every database relchain runs on beside the default one, and
// the replica experiments run on a database the lab can replicate.
func TestPlanCoversEveryDatabase(t *testing.T) {
	fig10 := map[string]bool{DefaultBackend: true}
	for _, srv := range fig10Servers {
		fig10[srv.name] = true
	}
	if m := workload.Missing(fig10); len(m) > 0 {
		t.Errorf("paper's fig10Servers have no entry for %v: give Fig. 10 the database's points", m)
	}
	if e := workload.Extra(fig10); len(e) > 0 {
		t.Errorf("paper's fig10Servers name %v, which package dialect does not know", e)
	}
	if !workload.DB(replicaBackend).Replicas {
		t.Errorf("replicaBackend %q: the lab gives it no streaming replicas (workload.Database.Replicas)", replicaBackend)
	}
}
