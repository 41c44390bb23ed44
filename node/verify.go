package node

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/relchain/relchain/app"
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
	// AppHash is the AppHash the last block committed (hex).
	AppHash string `json:"app_hash,omitempty"`
	// AppHashDiffers reports that the tables match but the database does
	// not reproduce its AppHash: relchain's system state (replay windows,
	// grants) or the recorded AppHash inputs were changed.
	AppHashDiffers bool `json:"app_hash_differs,omitempty"`
}

// OK reports whether the database matches what its chain committed.
func (r VerifyReport) OK() bool { return len(r.Differ) == 0 && !r.AppHashDiffers }

// Verify recomputes a node's state digest from every row of its database
// and compares it, table by table, with the sums its last committed block
// recorded (which that block's AppHash commits to); if they match, it also
// recomputes the AppHash itself from them, the system state and the
// block's recorded AppHash inputs. The node may be
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
		st, err := be.LoadState(ctx)
		if err != nil {
			return VerifyReport{}, fmt.Errorf("verify: %w", err)
		}
		system, err := be.LoadSystem(ctx)
		if err != nil {
			return VerifyReport{}, fmt.Errorf("verify: %w", err)
		}
		st2, err := be.LoadState(ctx)
		if err != nil {
			return VerifyReport{}, fmt.Errorf("verify: %w", err)
		}
		if h1 != st.Height || st2.Height != st.Height {
			if attempt < 10 {
				continue
			}
			return VerifyReport{}, fmt.Errorf("verify: blocks keep committing between the reads; stop the node and try again")
		}
		r := VerifyReport{Height: h1, StateDigest: hex.EncodeToString(stored.Digest()), Differ: statedigest.Diff(stored, scanned), AppHash: hex.EncodeToString(st.AppHash)}
		if st.Height > 0 && len(r.Differ) == 0 {
			got, err := app.AppHashOf(scanned.Digest(), system)
			if err != nil {
				return VerifyReport{}, fmt.Errorf("verify: %w", err)
			}
			r.AppHashDiffers = !bytes.Equal(got, st.AppHash)
		}
		for name := range scanned {
			r.Tables = append(r.Tables, name)
		}
		slices.Sort(r.Tables)
		return r, nil
	}
}
