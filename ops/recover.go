package ops

import (
	"context"
	"fmt"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	sm "github.com/cometbft/cometbft/state"
	"github.com/cometbft/cometbft/store"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/internal/cometstore"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/protocol"
)

// RecoverReport is what Recover did.
type RecoverReport struct {
	// Checkpoint is the height of the checkpoint restored.
	Checkpoint int64 `json:"checkpoint"`
	// Rejected lists newer checkpoints that failed verification, and why.
	Rejected []string `json:"rejected,omitempty"`
	// StateHeight is CometBFT's state height after the rollback; the node
	// replays the blocks after Checkpoint up to its block store's height
	// when it starts.
	StateHeight int64 `json:"state_height"`
	// Replaced is where the database that was replaced now lies.
	Replaced string `json:"replaced"`
}

// Recover restores a stopped node's database from its newest checkpoint
// that verifies: the chain confirms its AppHash, and its rows match the
// state digest it recorded. (SQLite: a copy of the file; PostgreSQL:
// pg_restore into a new database that then takes the old one's name.)
// It rolls CometBFT's state back one height: the last block this node
// applied may have been applied to the deviating database, and its AppHash
// is the one the network refused. The replaced database is kept. Starting
// the node then replays, from its own block store, every block after the
// checkpoint (CometBFT's handshake), checking each AppHash against the
// chain's headers.
func Recover(ctx context.Context, home string) (RecoverReport, error) {
	var rep RecoverReport
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		return rep, err
	}
	r, err := rc.Restorer(home)
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	cps, err := r.List(node.CheckpointDir(home))
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	if len(cps) == 0 {
		return rep, fmt.Errorf("recover: no checkpoint in %s (relchain.toml [checkpoint] every = N makes them)", node.CheckpointDir(home))
	}
	// A checkpoint counts only if the chain confirms it: the header of the
	// next block in this node's block store carries the AppHash every
	// validator agreed on for the checkpoint's height. A checkpoint taken
	// after this node deviated is consistent in itself, but not confirmed.
	confirmed, err := confirmedAppHashes(cc, cps)
	if err != nil {
		return rep, fmt.Errorf("recover: read the block store (is the node stopped?): %w", err)
	}
	// The rollback below leaves CometBFT's state at limit: a newer
	// checkpoint cannot be used with it.
	limit, err := rollbackTarget(cc)
	if err != nil {
		return rep, fmt.Errorf("recover: read CometBFT's state (is the node stopped?): %w", err)
	}
	var chosen *backend.Checkpoint
	for i := range cps {
		if cps[i].Height > limit {
			rep.Rejected = append(rep.Rejected, fmt.Sprintf("height %d: newer than height %d, where recover leaves CometBFT's state", cps[i].Height, limit))
			continue
		}
		want, ok := confirmed[cps[i].Height]
		if !ok {
			rep.Rejected = append(rep.Rejected, fmt.Sprintf("height %d: not confirmed by the chain (this node's block store has no block %d)", cps[i].Height, cps[i].Height+1))
			continue
		}
		if err := r.Stage(ctx, cps[i], want); err != nil {
			rep.Rejected = append(rep.Rejected, fmt.Sprintf("height %d: %v", cps[i].Height, err))
			continue
		}
		chosen = &cps[i]
		break
	}
	if chosen == nil {
		return rep, fmt.Errorf("recover: no checkpoint verifies: %v", rep.Rejected)
	}
	rep.Checkpoint = chosen.Height
	if rep.StateHeight, err = rollbackOneHeight(cc); err != nil {
		r.Discard(ctx)
		return rep, fmt.Errorf("recover: roll back CometBFT's state: %w", err)
	}
	if rep.StateHeight < chosen.Height {
		r.Discard(ctx)
		return rep, fmt.Errorf("recover: checkpoint %d is newer than CometBFT's state at height %d", chosen.Height, rep.StateHeight)
	}
	if rep.Replaced, err = r.Install(ctx, time.Now().UTC().Format("20060102T150405Z")); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	// The database the node stopped on is replaced: its halt record goes.
	if err := node.ClearHaltRecord(home); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	return rep, nil
}

// rollbackTarget is the height rollbackOneHeight will leave CometBFT's
// state at: one below the state's, unless the block store is one ahead of
// the state (the node stopped inside the next block, as on an out-of-band
// change), where CometBFT's rollback keeps the state's height.
func rollbackTarget(cc *cmtcfg.Config) (int64, error) {
	blocks, states, closeStores, err := cometstore.Open(cc)
	if err != nil {
		return 0, err
	}
	defer closeStores()
	st, err := states.Load()
	if err != nil {
		return 0, err
	}
	if blocks.Height() == st.LastBlockHeight+1 {
		return st.LastBlockHeight, nil
	}
	return st.LastBlockHeight - 1, nil
}

// confirmedAppHashes returns, for each checkpoint height h whose next
// block is in the block store, the AppHash that block's header carries
// (the app's state after h, as the validators signed it).
func confirmedAppHashes(cc *cmtcfg.Config, cps []backend.Checkpoint) (map[int64][]byte, error) {
	blockDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "blockstore", Config: cc})
	if err != nil {
		return nil, err
	}
	defer blockDB.Close()
	bs := store.NewBlockStore(blockDB)
	out := make(map[int64][]byte)
	for _, cp := range cps {
		if meta := bs.LoadBlockMeta(cp.Height + 1); meta != nil {
			out[cp.Height] = meta.Header.AppHash
		}
	}
	return out, nil
}

// rollbackOneHeight is CometBFT's own rollback (as `cometbft rollback`):
// the state goes back to the previous height, its AppHash taken from the
// header of the block it undoes; the block stays in the store and is
// replayed at start.
func rollbackOneHeight(cc *cmtcfg.Config) (int64, error) {
	blocks, ss, closeStores, err := cometstore.Open(cc)
	if err != nil {
		return 0, err
	}
	defer closeStores()
	h, _, err := sm.Rollback(blocks, ss, false)
	if err != nil {
		return 0, err
	}
	// Rollback takes the app version from the consensus parameters at the
	// height it rolls back to, which is right across an upgrade (rolling
	// back from H or later to H-2 or earlier gives the old version). Chains
	// created before protocol versions carry 0 there while their headers
	// carry 1 (relchain's Info): without this, replay refuses the next
	// header's version.
	st, err := ss.Load()
	if err != nil {
		return 0, err
	}
	if st.Version.Consensus.App == 0 {
		st.Version.Consensus.App = protocol.V1
		if err := ss.Save(st); err != nil {
			return 0, err
		}
	}
	return h, nil
}
