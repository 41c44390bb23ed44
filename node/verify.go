package node

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/relchain/relchain/statedigest"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Height int64 `json:"height"`
	// Tables are the replicated tables, in byte order of their names.
	Tables []string `json:"tables"`
	// StateDigest is the state digest the last block committed (hex).
	StateDigest string `json:"state_digest"`
	// Differ names the tables whose rows no longer match the committed
	// digest (changed, added or dropped outside the chain).
	Differ []string `json:"differ,omitempty"`
}

// OK reports whether the database matches its committed state digest.
func (r VerifyReport) OK() bool { return len(r.Differ) == 0 }

// Verify recomputes a node's state digest from every row of its database
// and compares it, table by table, with the sums its last committed block
// recorded (which that block's AppHash commits to). The node may be
// stopped or running: each side is read in one snapshot, and the two are
// retried until they reflect the same height.
func Verify(ctx context.Context, home string) (VerifyReport, error) {
	_, rc, err := LoadConfig(home)
	if err != nil {
		return VerifyReport{}, err
	}
	be, err := OpenBackend(ctx, home, rc)
	if err != nil {
		return VerifyReport{}, fmt.Errorf("open %s backend: %w", rc.Backend.Kind, err)
	}
	defer be.Close()
	for attempt := 0; ; attempt++ {
		stored, h1, err := be.StoredState(ctx)
		if err != nil {
			return VerifyReport{}, fmt.Errorf("verify: %w", err)
		}
		scanned, h2, err := be.ScanState(ctx)
		if err != nil {
			return VerifyReport{}, fmt.Errorf("verify: %w", err)
		}
		if h1 != h2 {
			if attempt < 10 {
				continue // a block committed in between
			}
			return VerifyReport{}, fmt.Errorf("verify: blocks keep committing between the two reads (heights %d and %d); stop the node and try again", h1, h2)
		}
		r := VerifyReport{Height: h1, StateDigest: hex.EncodeToString(stored.Digest()), Differ: statedigest.Diff(stored, scanned)}
		for name := range scanned {
			r.Tables = append(r.Tables, name)
		}
		slices.Sort(r.Tables)
		return r, nil
	}
}
