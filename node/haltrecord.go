package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/relchain/relchain/backend"
)

// HaltRecord is what a node writes into its home when it stops because its
// database is not the chain's: a divergence (its AppHash differs from the
// network's) or a change made outside the chain. `relchain verify`
// reports it and fails while it is there; a successful `relchain recover`
// removes it (so does deleting the node's data directory, where it lies).
type HaltRecord struct {
	// Height is the last block the node applied.
	Height int64 `json:"height"`
	// Kind is "divergence" or "out_of_band".
	Kind string `json:"kind"`
	// Reason is the node's report, as it stopped with it.
	Reason string `json:"reason"`
}

// Halt record kinds.
const (
	HaltDivergence = "divergence"
	HaltOutOfBand  = "out_of_band"
)

// haltRecordPath is where a node home keeps its HaltRecord.
func haltRecordPath(home string) string {
	return filepath.Join(home, "data", "relchain-halt.json")
}

// haltRecordOf classifies a reason to halt: a record for a divergence or
// an out-of-band change (height is the node's committed height), else nil.
func haltRecordOf(err error, height int64) *HaltRecord {
	var d *DivergenceError
	switch {
	case errors.As(err, &d):
		return &HaltRecord{Height: d.Height, Kind: HaltDivergence, Reason: err.Error()}
	case errors.Is(err, backend.ErrOutOfBandChange):
		return &HaltRecord{Height: height, Kind: HaltOutOfBand, Reason: err.Error()}
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
// recovery.
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
