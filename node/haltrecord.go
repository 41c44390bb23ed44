package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
)

// HaltRecord is what a node writes into its home when it stops for a
// reason that a restart alone does not cure. Two are faults of its
// database, which is not the chain's: a divergence (its AppHash differs
// from the network's) or a change made outside the chain; `relchain
// verify` reports them and fails while they are there, and a successful
// `relchain recover` removes them. The third is no fault: an on-chain
// upgrade to a protocol version the node's binary cannot run (kind
// upgrade); verify shows it without failing, and the node's next
// successful start, with a binary that runs that version, removes it.
// Deleting the node's data directory, where the record lies, removes any.
type HaltRecord struct {
	// Height is the last block the node applied.
	Height int64 `json:"height"`
	// Kind is "divergence", "out_of_band" or "upgrade".
	Kind string `json:"kind"`
	// Reason is the node's report, as it stopped with it.
	Reason string `json:"reason"`
}

// Halt record kinds.
const (
	HaltDivergence = "divergence"
	HaltOutOfBand  = "out_of_band"
	// HaltUpgrade: the chain moved to a protocol version this binary
	// cannot run (protocol.ErrUnsupported); Reason names the version, the
	// height it runs from and the release to install.
	HaltUpgrade = "upgrade"
)

// Fault reports whether r records a fault of the node's database (a
// divergence or an out-of-band change), which `relchain verify` counts
// and only a recovery clears. An upgrade stop is not one; nil is not one.
func (r *HaltRecord) Fault() bool {
	return r != nil && r.Kind != HaltUpgrade
}

// haltRecordPath is where a node home keeps its HaltRecord.
func haltRecordPath(home string) string {
	return filepath.Join(home, "data", "relchain-halt.json")
}

// haltRecordOf classifies a reason to halt: a record for a divergence, an
// out-of-band change or a protocol version this binary cannot run (height
// is the node's committed height), else nil.
func haltRecordOf(err error, height int64) *HaltRecord {
	var d *DivergenceError
	var u *protocol.UnsupportedError
	switch {
	case errors.As(err, &d):
		return &HaltRecord{Height: d.Height, Kind: HaltDivergence, Reason: err.Error()}
	case errors.Is(err, backend.ErrOutOfBandChange):
		return &HaltRecord{Height: height, Kind: HaltOutOfBand, Reason: err.Error()}
	case errors.As(err, &u):
		// Its own message, without the block's context: it names the
		// version, its first height and the release to install.
		return &HaltRecord{Height: height, Kind: HaltUpgrade, Reason: u.Error()}
	case errors.Is(err, protocol.ErrUnsupported):
		return &HaltRecord{Height: height, Kind: HaltUpgrade, Reason: err.Error()}
	}
	return nil
}

// writeHaltRecord stores r in home, replacing the file atomically.
func writeHaltRecord(home string, r *HaltRecord) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	path := haltRecordPath(home)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record the halt: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("record the halt: %w", err)
	}
	return nil
}

// LoadHaltRecord returns the HaltRecord of a node home, or nil if the node
// has not stopped on a divergence or out-of-band change since its last
// recovery, nor at an upgrade since its last successful start.
func LoadHaltRecord(home string) (*HaltRecord, error) {
	b, err := os.ReadFile(haltRecordPath(home))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the halt record: %w", err)
	}
	var r HaltRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read the halt record %s: %w", haltRecordPath(home), err)
	}
	return &r, nil
}

// ClearHaltRecord removes a node home's HaltRecord (after a recovery).
func ClearHaltRecord(home string) error {
	err := os.Remove(haltRecordPath(home))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the halt record: %w", err)
	}
	return nil
}

// clearUpgradeHalt removes a node home's HaltRecord if it records an
// upgrade stop: the node starts with a binary that runs the chain's next
// version. A fault's record stays, for recover.
func clearUpgradeHalt(home string) error {
	r, err := LoadHaltRecord(home)
	if err != nil || r == nil || r.Kind != HaltUpgrade {
		return err
	}
	return ClearHaltRecord(home)
}
