package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/libs/log"
	sm "github.com/cometbft/cometbft/state"
	"github.com/cometbft/cometbft/store"
	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/internal/cometstore"
)

// errStoresBehindDatabase is resumeStateSync's error when the node cannot
// tell CometBFT where its database stands; its message says what to run.
var errStoresBehindDatabase = errors.New("CometBFT's stores are behind the database")

// resumeStateSync heals the window of a state sync that a crash
// interrupted after the snapshot was restored and before the node stored
// its first block (CometBFT #1077). Then the database holds the snapshot's
// height H while CometBFT's block store is empty, and CometBFT, left to
// itself, never starts again:
//
//   - killed before CometBFT recorded the state (its state store empty), it
//     starts state sync anew, which the node must refuse (its database
//     already holds blocks), and waits forever;
//   - killed after it recorded the state but before the first block, its
//     block sync panics ("state (H) and store (0) height mismatch") on every
//     start, and consensus cannot rebuild the last commit if the seen commit
//     was not saved either.
//
// In both cases the node records the state CometBFT's own offline
// bootstrap records (node.BootstrapState): the state at H and the commit
// of H, fetched and verified by the light client of [statesync], the
// AppHash checked against the database's, and the offline state-sync
// height H, from which block sync fetches H+1. A store state that does not
// match the database is never overwritten: the node stops with one line
// saying what to run. Nothing happens on a node whose block store holds a
// block, or whose database holds none.
func resumeStateSync(ctx context.Context, cc *cmtcfg.Config, db backend.State, logger log.Logger) error {
	if db.Height == 0 {
		return nil
	}
	logger = logger.With("module", "relchain-statesync")
	blocks, states, closeStores, err := cometstore.Open(cc)
	if err != nil {
		return fmt.Errorf("open CometBFT's stores: %w", err)
	}
	defer closeStores()
	if !blocks.IsEmpty() {
		return nil
	}
	st, err := states.Load()
	if err != nil {
		return fmt.Errorf("load CometBFT's state: %w", err)
	}
	if off, err := states.GetOfflineStateSyncHeight(); err == nil && off != 0 {
		return nil // CometBFT's own bootstrap: block sync starts at off+1
	}
	switch {
	case st.IsEmpty():
		logger.Info("the database holds a restored snapshot but CometBFT recorded nothing (a state sync was interrupted): recording the snapshot's state from the light client",
			"height", db.Height)
		return recordSnapshotState(ctx, cc, blocks, states, db)
	case st.LastBlockHeight == db.Height && bytes.Equal(st.AppHash, db.AppHash):
		logger.Info("CometBFT recorded a state-synced state but no block yet (a state sync was interrupted): resuming with block sync",
			"height", db.Height)
		if blocks.LoadSeenCommit(db.Height) == nil {
			_, commit, err := lightClientState(ctx, cc, states, db.Height)
			if err != nil {
				return resumeFailure(db, st, err)
			}
			if err := blocks.SaveSeenCommit(db.Height, commit); err != nil {
				return fmt.Errorf("save the commit of height %d: %w", db.Height, err)
			}
		}
		return states.SetOfflineStateSyncHeight(db.Height)
	default:
		return resumeFailure(db, st, fmt.Errorf("CometBFT's state is at height %d, AppHash %X", st.LastBlockHeight, st.AppHash))
	}
}

// recordSnapshotState records in empty stores the light client's state
// and commit of the database's height, after checking its AppHash.
func recordSnapshotState(ctx context.Context, cc *cmtcfg.Config, blocks *store.BlockStore, states sm.Store, db backend.State) error {
	state, commit, err := lightClientState(ctx, cc, states, db.Height)
	if err != nil {
		return resumeFailure(db, sm.State{}, err)
	}
	if !bytes.Equal(state.AppHash, db.AppHash) {
		return resumeFailure(db, sm.State{}, fmt.Errorf("the chain's AppHash at height %d is %X, the database's %X", db.Height, state.AppHash, db.AppHash))
	}
	if err := states.Bootstrap(state); err != nil {
		return fmt.Errorf("record the state of height %d: %w", db.Height, err)
	}
	if err := blocks.SaveSeenCommit(state.LastBlockHeight, commit); err != nil {
		return fmt.Errorf("save the commit of height %d: %w", db.Height, err)
	}
	return states.SetOfflineStateSyncHeight(state.LastBlockHeight)
}

// lightClientState is the state and commit of height as [statesync]'s
// light client verifies them (the chain must be at height+2).
func lightClientState(ctx context.Context, cc *cmtcfg.Config, states sm.Store, height int64) (sm.State, *types.Commit, error) {
	if len(cc.StateSync.RPCServers) == 0 {
		return sm.State{}, nil, errors.New("[statesync] rpc_servers is empty: no light client to fetch the chain's state from")
	}
	st, err := states.Load()
	if err != nil {
		return sm.State{}, nil, err
	}
	sp, err := cometstore.NewLightClientProvider(ctx, cc, st.Version)
	if err != nil {
		return sm.State{}, nil, err
	}
	state, err := sp.State(ctx, uint64(height))
	if err != nil {
		return sm.State{}, nil, fmt.Errorf("light client: the state at height %d (the chain must be at height %d): %w", height, height+2, err)
	}
	commit, err := sp.Commit(ctx, uint64(height))
	if err != nil {
		return sm.State{}, nil, fmt.Errorf("light client: the commit of height %d: %w", height, err)
	}
	return state, commit, nil
}

// resumeFailure is the one-line error of a node whose interrupted state
// sync cannot be resumed.
func resumeFailure(db backend.State, st sm.State, cause error) error {
	return fmt.Errorf("%w: the database holds height %d (AppHash %X) and CometBFT's block store is empty (its state: height %d), and the node cannot resume: %v; "+
		"move the node's home and database aside and join again with state sync (relchain add-node --statesync, or [statesync] enable in a new home)",
		errStoresBehindDatabase, db.Height, db.AppHash, st.LastBlockHeight, cause)
}
