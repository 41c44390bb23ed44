package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/protocol"
)

// A node that cannot run the chain's new protocol version records why it
// stopped, as a kind of its own that is no fault of its database.
func TestUpgradeHaltIsRecordedAndNoFault(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	unsupported := &protocol.UnsupportedError{Version: 2, Height: 42, Release: "0.1.0"}
	stop := fmt.Errorf("finalize block 42: %w", unsupported)
	err := noteHalt(home, 41, stop, testLogger())
	if !errors.Is(err, protocol.ErrUnsupported) || err.Error() != stop.Error() {
		t.Fatalf("noteHalt returns %v, want %v unchanged", err, stop)
	}
	r, lerr := LoadHaltRecord(home)
	if lerr != nil || r == nil {
		t.Fatalf("LoadHaltRecord after an upgrade stop: %v, %v", r, lerr)
	}
	if r.Height != 41 || r.Kind != HaltUpgrade || r.Reason != unsupported.Error() ||
		!strings.Contains(r.Reason, "runs protocol version 2 from height 42") || !strings.Contains(r.Reason, "install a relchain that supports version 2") {
		t.Errorf("record = %+v, want height 41, kind %s and the message naming version 2 from height 42", r, HaltUpgrade)
	}
	if r.Fault() {
		t.Error("an upgrade stop counts as a fault of the database")
	}
	if k := haltKind(err); k != "apply_failed" {
		t.Errorf("haltKind of an upgrade stop = %q, want apply_failed as documented for metrics", k)
	}
	if !(&HaltRecord{Kind: HaltDivergence}).Fault() || !(&HaltRecord{Kind: HaltOutOfBand}).Fault() {
		t.Error("a divergence or an out-of-band change is not a fault")
	}
	if (*HaltRecord)(nil).Fault() {
		t.Error("no record is a fault")
	}
}

// The next successful start removes an upgrade stop's record (its binary
// runs the version), and keeps a fault's record for recover.
func TestStartClearsOnlyAnUpgradeHaltRecord(t *testing.T) {
	home, _ := oneValidator(t)
	for _, c := range []struct {
		kind  string
		stays bool
	}{{HaltUpgrade, false}, {HaltDivergence, true}} {
		if err := writeHaltRecord(home, &HaltRecord{Height: 3, Kind: c.kind, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		n := mustStartNode(t, home)
		r, err := LoadHaltRecord(home)
		if serr := n.Stop(); serr != nil {
			t.Fatal(serr)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := r != nil; got != c.stays {
			t.Errorf("a record of kind %s after a successful start: there %v, want %v", c.kind, got, c.stays)
		}
		if err := ClearHaltRecord(home); err != nil {
			t.Fatal(err)
		}
	}
}
