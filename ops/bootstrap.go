package ops

import (
	"bytes"
	"context"
	"fmt"

	cmtcfg "github.com/cometbft/cometbft/config"

	"github.com/relchain/relchain/internal/cometstore"
)

// bootstrapState sets a node's empty CometBFT stores at height, as
// CometBFT's node.BootstrapState does after an offline state sync (the
// light client of cc.StateSync verifies the headers of height to height+2
// and the AppHash must be appHash), with CometBFT's debug log left out of
// the command's output.
func bootstrapState(ctx context.Context, cc *cmtcfg.Config, height int64, appHash []byte) error {
	blocks, states, closeStores, err := cometstore.Open(cc)
	if err != nil {
		return err
	}
	defer closeStores()
	if !blocks.IsEmpty() {
		return fmt.Errorf("the block store is not empty")
	}
	st, err := states.Load()
	if err != nil {
		return err
	}
	if !st.IsEmpty() {
		return fmt.Errorf("CometBFT's state is not empty")
	}
	sp, err := cometstore.NewLightClientProvider(ctx, cc, st.Version)
	if err != nil {
		return err
	}
	state, err := sp.State(ctx, uint64(height))
	if err != nil {
		return fmt.Errorf("light client: the state at height %d (the chain must be at height %d): %w", height, height+2, err)
	}
	if !bytes.Equal(state.AppHash, appHash) {
		return fmt.Errorf("the light client's AppHash %X at height %d is not the backup's %X", state.AppHash, height, appHash)
	}
	commit, err := sp.Commit(ctx, uint64(height))
	if err != nil {
		return fmt.Errorf("light client: the commit of height %d: %w", height, err)
	}
	if err := states.Bootstrap(state); err != nil {
		return err
	}
	if err := blocks.SaveSeenCommit(state.LastBlockHeight, commit); err != nil {
		return err
	}
	return states.SetOfflineStateSyncHeight(state.LastBlockHeight)
}
