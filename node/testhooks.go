//go:build testhooks

package node

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"syscall"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
)

// This file is built with -tags testhooks only (make build-testhooks): the
// byzantine behaviours the end-to-end tests need. A default build has
// none of these options (nohooks.go).

// hookOptions are the test hooks New applies.
type hookOptions struct {
	injectDir        string
	corruptSnapshots bool
}

// WithUnsafeCorruptSnapshots makes the node serve every state-sync chunk
// with one byte flipped, for tests that prove a joining node refuses such
// chunks and fetches them from other peers.
func WithUnsafeCorruptSnapshots() Option {
	return func(o *options) { o.hooks.corruptSnapshots = true }
}

// WithUnsafeInjectDir makes the node a byzantine proposer, for tests: every
// block it proposes starts with the raw txs found in dir (files *.tx, in
// name order, each removed once proposed), unchecked by CheckTx.
func WithUnsafeInjectDir(dir string) Option { return func(o *options) { o.hooks.injectDir = dir } }

// wrap is the application CometBFT reaches: a, or a byzantine wrapper of
// it when a hook is set.
func (h hookOptions) wrap(a *app.App, logger log.Logger) abci.Application {
	if h.injectDir == "" && !h.corruptSnapshots {
		return a
	}
	b := &byzantine{App: a, corrupt: h.corruptSnapshots}
	if h.corruptSnapshots {
		logger.Error("unsafe: this node corrupts every state-sync chunk it serves (for tests)")
	}
	if h.injectDir != "" {
		logger.Error("unsafe: this node injects unchecked txs into its proposals (a byzantine proposer, for tests)", "dir", h.injectDir)
		b.inject = injectFrom(h.injectDir, logger)
	}
	return b
}

// byzantine is relchain's application with test-only misbehaviour: it
// puts injected raw txs first in its proposals (unchecked), and flips a
// byte of every state-sync chunk it serves.
var _ abci.Application = (*byzantine)(nil)

type byzantine struct {
	*app.App
	inject  func() [][]byte // nil: no injection
	corrupt bool
}

// PrepareProposal proposes the injected txs, then what the app proposes
// in the bytes left.
func (b *byzantine) PrepareProposal(ctx context.Context, req *abci.RequestPrepareProposal) (*abci.ResponsePrepareProposal, error) {
	if b.inject == nil {
		return b.App.PrepareProposal(ctx, req)
	}
	txs := b.inject()
	r := *req
	for _, tx := range txs {
		r.MaxTxBytes -= int64(len(tx))
	}
	res, err := b.App.PrepareProposal(ctx, &r)
	if err != nil {
		return nil, err
	}
	res.Txs = append(txs, res.Txs...)
	return res, nil
}

// LoadSnapshotChunk serves the app's chunk with its middle byte flipped.
func (b *byzantine) LoadSnapshotChunk(ctx context.Context, req *abci.RequestLoadSnapshotChunk) (*abci.ResponseLoadSnapshotChunk, error) {
	res, err := b.App.LoadSnapshotChunk(ctx, req)
	if err == nil && b.corrupt && len(res.Chunk) > 0 {
		res.Chunk[len(res.Chunk)/2] ^= 0xff
	}
	return res, err
}

// injectFrom reads and removes the *.tx files of dir.
func injectFrom(dir string, logger log.Logger) func() [][]byte {
	return func() [][]byte {
		names, _ := filepath.Glob(filepath.Join(dir, "*.tx"))
		sort.Strings(names)
		var txs [][]byte
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				continue
			}
			if err := os.Remove(n); err != nil {
				continue
			}
			logger.Info("unsafe: injecting a tx into this node's proposal", "file", filepath.Base(n), "bytes", len(b))
			txs = append(txs, b)
		}
		return txs
	}
}

// crashEnv names the crash point a test asks the node to die at, as by
// kill -9 (RELCHAIN_UNSAFE_CRASH_AT):
//   - statesync-restored: right after the snapshot was restored and
//     verified, before CometBFT records anything;
//   - statesync-bootstrapped: right after CometBFT's first write of its
//     state store after the restore (its state bootstrapped; no commit,
//     no block yet).
const crashEnv = "RELCHAIN_UNSAFE_CRASH_AT"

// snapshotRestored is set once a state-sync snapshot was restored.
var snapshotRestored atomic.Bool

// crashPoint marks point on the node's path; the node dies there when the
// test asked for it.
func crashPoint(point string) {
	if point == "statesync-restored" {
		snapshotRestored.Store(true)
	}
	if os.Getenv(crashEnv) == point {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal ends the process
	}
}

// afterStoreWrite is called after each write to CometBFT's store id.
func afterStoreWrite(id string) {
	if id == "state" && snapshotRestored.Load() {
		crashPoint("statesync-bootstrapped")
	}
}
