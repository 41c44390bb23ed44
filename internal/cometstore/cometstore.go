package cometstore

import (
	"context"
	"fmt"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/libs/log"
	"github.com/cometbft/cometbft/light"
	cmtnode "github.com/cometbft/cometbft/node"
	cmtstate "github.com/cometbft/cometbft/proto/tendermint/state"
	sm "github.com/cometbft/cometbft/state"
	"github.com/cometbft/cometbft/statesync"
	"github.com/cometbft/cometbft/store"
)

// Open opens a stopped node's CometBFT block store and state store;
// closeStores closes both.
func Open(cc *cmtcfg.Config) (blocks *store.BlockStore, states sm.Store, closeStores func(), err error) {
	blockDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "blockstore", Config: cc})
	if err != nil {
		return nil, nil, nil, err
	}
	stateDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "state", Config: cc})
	if err != nil {
		blockDB.Close()
		return nil, nil, nil, err
	}
	closeStores = func() {
		stateDB.Close()
		blockDB.Close()
	}
	states = sm.NewStore(stateDB, sm.StoreOptions{DiscardABCIResponses: cc.Storage.DiscardABCIResponses})
	return store.NewBlockStore(blockDB), states, closeStores, nil
}

// NewLightClientProvider is the light client of cc's [statesync] section
// (its RPC servers and trust options), with CometBFT's debug log left out.
func NewLightClientProvider(ctx context.Context, cc *cmtcfg.Config, version cmtstate.Version) (statesync.StateProvider, error) {
	gen, err := cmtnode.DefaultGenesisDocProviderFunc(cc)()
	if err != nil {
		return nil, fmt.Errorf("read the genesis: %w", err)
	}
	sp, err := statesync.NewLightClientStateProvider(ctx, gen.ChainID, version, gen.InitialHeight,
		cc.StateSync.RPCServers, light.TrustOptions{Period: cc.StateSync.TrustPeriod, Height: cc.StateSync.TrustHeight,
			Hash: cc.StateSync.TrustHashBytes()}, log.NewNopLogger())
	if err != nil {
		return nil, fmt.Errorf("light client: %w", err)
	}
	return sp, nil
}
