package ops

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/store"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/node"
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
	// ChainAppHash is the AppHash the chain signed for Height: the header
	// of block Height+1 in the node's block store (hex), when it has it.
	ChainAppHash string `json:"chain_app_hash,omitempty"`
	// ChainDiffers reports that the database's AppHash is not the chain's:
	// this node applied a block differently from the network.
	ChainDiffers bool `json:"chain_app_hash_differs,omitempty"`
	// ChainNote says why the AppHash was not compared with the chain's.
	ChainNote string `json:"chain_note,omitempty"`
	// Halt is the node's record that it stopped on a divergence or on a
	// change made outside the chain (until a recovery removes it), or at
	// an upgrade its binary cannot run (no fault: until it starts again
	// with one that can).
	Halt *node.HaltRecord `json:"halt,omitempty"`
}

// OK reports whether the database matches what its chain committed, the
// chain's AppHash where the block store has it, and the node has not
// stopped on a divergence or an out-of-band change since. A stop at an
// upgrade is not a fault: the database is the chain's.
func (r VerifyReport) OK() bool {
	return len(r.Differ) == 0 && !r.AppHashDiffers && !r.ChainDiffers && !r.Halt.Fault()
}

// Verify recomputes a node's state digest from every row of its database
// and compares it, table by table, with the sums its last committed block
// recorded (which that block's AppHash commits to); if they match, it also
// recomputes the AppHash itself from them, the system state and the
// block's recorded AppHash inputs. The node may be
// stopped or running: each side is read in one snapshot, and the two are
// retried until they reflect the same height.
func Verify(ctx context.Context, home string) (VerifyReport, error) {
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		return VerifyReport{}, err
	}
	halt, err := node.LoadHaltRecord(home)
	if err != nil {
		return VerifyReport{}, fmt.Errorf("verify: %w", err)
	}
	be, err := node.OpenBackend(ctx, home, rc)
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
		// Read before the height is checked again: blocks committing
		// meanwhile make the attempt start over.
		authRoot, authErr := app.AuthenticatedRoot(ctx, be)
		seqs, seqErr := app.SequencesOf(ctx, be)
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
			got, err := app.AppHashOf(scanned.Digest(), system, func() ([32]byte, error) { return authRoot, authErr },
				func() ([32]byte, error) { return seqs, seqErr })
			if err != nil {
				return VerifyReport{}, fmt.Errorf("verify: %w", err)
			}
			r.AppHashDiffers = !bytes.Equal(got, st.AppHash)
		}
		for name := range scanned {
			r.Tables = append(r.Tables, name)
		}
		slices.Sort(r.Tables)
		r.Halt = halt
		compareWithChain(cc, st, &r)
		return r, nil
	}
}

// compareWithChain compares the database's AppHash at st.Height with the
// one the chain signed for it (the header of block st.Height+1 in the
// node's block store), or says in r.ChainNote why it could not.
func compareWithChain(cc *cmtcfg.Config, st backend.State, r *VerifyReport) {
	if st.Height == 0 {
		r.ChainNote = "no block applied yet"
		return
	}
	blockDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "blockstore", Config: cc})
	if err != nil {
		r.ChainNote = fmt.Sprintf("the block store cannot be opened (is the node running? stop it to compare with the chain): %v", err)
		return
	}
	defer blockDB.Close()
	meta := store.NewBlockStore(blockDB).LoadBlockMeta(st.Height + 1)
	if meta == nil {
		r.ChainNote = fmt.Sprintf("the block store has no block %d yet, whose header carries the chain's AppHash for height %d", st.Height+1, st.Height)
		return
	}
	r.ChainAppHash = hex.EncodeToString(meta.Header.AppHash)
	r.ChainDiffers = !bytes.Equal(meta.Header.AppHash, st.AppHash)
}
