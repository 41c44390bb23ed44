package ops

import (
	"context"
	"fmt"

	cmtcfg "github.com/cometbft/cometbft/config"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
)

// RPCDialer makes the CometBFT RPC client of a node's URL (with the TLS
// settings the caller chose).
type RPCDialer func(url string) (*rpchttp.HTTP, error)

func (o RestoreOptions) dial() (*rpchttp.HTTP, error) {
	if o.RPC != nil {
		return o.RPC(o.NodeURL)
	}
	return rpchttp.New(o.NodeURL, "/websocket")
}

// chainAppHash asks opts.NodeURL for the header of block m.Height+1: the
// AppHash the validators signed for m.Height.
func chainAppHash(ctx context.Context, opts RestoreOptions, m BackupManifest) ([]byte, error) {
	c, err := opts.dial()
	if err != nil {
		return nil, err
	}
	next := m.Height + 1
	res, err := c.Commit(ctx, &next)
	if err != nil {
		return nil, err
	}
	if res.Header == nil {
		return nil, fmt.Errorf("no header at height %d", next)
	}
	if res.ChainID != m.ChainID {
		return nil, fmt.Errorf("it serves chain %q, the backup is of %q", res.ChainID, m.ChainID)
	}
	return res.AppHash, nil
}

// bootstrapConfig is cc set for CometBFT's offline state sync bootstrap at
// height: its light client trusts the header of height that opts.NodeURL
// serves and verifies the next ones (and the AppHash) from there.
func bootstrapConfig(ctx context.Context, cc *cmtcfg.Config, opts RestoreOptions, height int64) (*cmtcfg.Config, error) {
	c, err := opts.dial()
	if err != nil {
		return nil, err
	}
	res, err := c.Commit(ctx, &height)
	if err != nil {
		return nil, fmt.Errorf("read the header of height %d from %s: %w", height, opts.NodeURL, err)
	}
	if res.Header == nil {
		return nil, fmt.Errorf("%s has no header at height %d", opts.NodeURL, height)
	}
	bc := *cc
	ss := *cc.StateSync
	ss.RPCServers = []string{opts.NodeURL, opts.NodeURL}
	ss.TrustHeight = height
	ss.TrustHash = res.Hash().String()
	bc.StateSync = &ss
	return &bc, nil
}
