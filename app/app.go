package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/relchain/relchain/api"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	cmtcrypto "github.com/cometbft/cometbft/proto/tendermint/crypto"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
)

// Version is reported in Info.
const Version = "0.11.0"

// App is the ABCI application. It only translates between CometBFT and the
// Executor.
type App struct {
	abci.BaseApplication
	ex     *Executor
	logger log.Logger
	halted chan error // the first block this node could not apply or commit
	// haltReason is the error first sent on halted, kept for HaltReason.
	haltReason atomic.Pointer[error]
	stats      blockStats

	// MaxQueryWait bounds how long a query waits for its min_height.
	MaxQueryWait time.Duration

	// TxTimeout bounds how long one tx of a proposed block may run on this
	// node in ProcessProposal (see there); 0 means DefaultTxTimeout.
	TxTimeout  time.Duration
	quarantine *quarantine

	// StateSync, if set, serves this node's checkpoints as state-sync
	// snapshots and restores one received from peers; without it the app
	// offers no snapshots and refuses every offer.
	StateSync StateSync

	// OnHalt, if set, is called with the reason this node cannot apply or
	// commit a block before FinalizeBlock or Commit returns it to CometBFT
	// (which may end the process at once: block sync panics); the error it
	// returns is the one reported. The node records the halt in its home
	// there and adds what to do.
	OnHalt func(error) error

	// Observer, if set before the node starts, hears of committed blocks
	// and refused txs for metrics (see Observer).
	Observer  Observer
	txIndex   atomic.Pointer[TxIndex] // SetTxIndex
	obsCodes  []uint32                // result codes of the finalized block
	obsDigest time.Duration           // its digest time
}

var _ abci.Application = (*App)(nil)

// New returns an App over ex.
func New(ex *Executor, logger log.Logger) *App {
	if ex != nil {
		ex.SetLogger(logger)
	}
	return &App{ex: ex, logger: logger, MaxQueryWait: 10 * time.Second, halted: make(chan error, 1),
		quarantine: newQuarantine(quarantineKeep)}
}

// Halted delivers the error of the first block this node failed to apply or
// commit for a reason of its own (the database went away, the disk is full:
// never a transaction's deterministic failure, which is a result code). Its
// consensus has stopped at that height, nothing of the block was recorded,
// and CometBFT re-applies the block from its block store when the node
// restarts. The process should stop and say so rather than run on without
// consensus.
func (a *App) Halted() <-chan error { return a.halted }

// HaltReason returns, without waiting and without taking it from Halted,
// the reason this app halted, or nil. It is set before FinalizeBlock or
// Commit returns the error to CometBFT, so whoever sees consensus end
// because of it can tell that the app stopped it.
func (a *App) HaltReason() error {
	if p := a.haltReason.Load(); p != nil {
		return *p
	}
	return nil
}

// halt reports err on Halted (the first one only) and returns it. An
// error of a node that is stopping while it waited for its database
// (ErrStopping) is no halt: it is only returned.
func (a *App) halt(err error) error {
	if errors.Is(err, ErrStopping) {
		a.logger.Info("the node stops while a block waits for its database; CometBFT replays the block at the next start", "err", err)
		return err
	}
	if a.OnHalt != nil {
		err = a.OnHalt(err)
	}
	a.logger.Error("this node cannot apply the block and stops; nothing of the block was recorded: fix the cause and restart the node to retry", "err", err)
	a.haltReason.CompareAndSwap(nil, &err)
	select {
	case a.halted <- err:
	default:
	}
	return err
}

// Executor returns the executor behind the app.
func (a *App) Executor() *Executor { return a.ex }

// Info reports the last committed height and AppHash from the database, so
// that CometBFT's handshake replays exactly the blocks the database lacks.
func (a *App) Info(_ context.Context, _ *abci.RequestInfo) (*abci.ResponseInfo, error) {
	st := a.ex.State()
	data, _ := json.Marshal(api.InfoData{Backend: a.ex.Backend().Dialect(), BlockAtomic: a.ex.Params().BlockAtomic,
		SQLDialect: a.ex.Params().SQLDialect})
	return &abci.ResponseInfo{
		Data:             string(data),
		Version:          Version,
		AppVersion:       a.ex.NextVersion(),
		LastBlockHeight:  st.Height,
		LastBlockAppHash: st.AppHash,
	}, nil
}

// InitChain checks that the genesis app_state is the one the executor was
// built with.
func (a *App) InitChain(_ context.Context, req *abci.RequestInitChain) (*abci.ResponseInitChain, error) {
	p, err := ParseParams(req.AppStateBytes)
	if err != nil {
		return nil, fmt.Errorf("init chain: %w", err)
	}
	if !p.Equal(a.ex.Params()) {
		return nil, fmt.Errorf("init chain: genesis app_state %+v differs from the parameters the node loaded %+v", p, a.ex.Params())
	}
	if req.ChainId != a.ex.chainID {
		return nil, fmt.Errorf("init chain: chain id %q differs from the node's %q", req.ChainId, a.ex.chainID)
	}
	vals := make([]ValidatorUpdate, len(req.Validators))
	for i, v := range req.Validators {
		vals[i] = ValidatorUpdate{PubKey: v.PubKey.GetEd25519(), Power: v.Power}
	}
	if err := a.ex.InitValidators(vals); err != nil {
		return nil, fmt.Errorf("init chain: %w", err)
	}
	// No validators in the response: CometBFT keeps the genesis set,
	// which the executor records in the first block. The app version of
	// the consensus parameters is the chain's first protocol version (the
	// genesis's protocol_version, 1 without it; Info reports the chain's
	// current one): CometBFT puts it in every header until an upgrade
	// changes it (FinalizeBlock).
	return &abci.ResponseInitChain{ConsensusParams: &cmtproto.ConsensusParams{Version: &cmtproto.VersionParams{App: a.ex.Params().GenesisProtocol()}}}, nil
}

// abciValidatorUpdates converts the executor's validator changes.
func abciValidatorUpdates(us []ValidatorUpdate) []abci.ValidatorUpdate {
	if len(us) == 0 {
		return nil
	}
	out := make([]abci.ValidatorUpdate, len(us))
	for i, u := range us {
		out[i] = abci.ValidatorUpdate{PubKey: cmtcrypto.PublicKey{Sum: &cmtcrypto.PublicKey_Ed25519{Ed25519: u.PubKey}}, Power: u.Power}
	}
	return out
}

// CheckTx admits a tx to the mempool after the envelope, replay, gate and
// permission checks. It never executes SQL. A recheck after a block only
// looks at what a block can change (Executor.Recheck). A new tx whose
// nonce is used is refused with CodeCommitted when the node's tx index
// holds these very bytes (SetTxIndex), with CodeReplayed otherwise.
func (a *App) CheckTx(ctx context.Context, req *abci.RequestCheckTx) (*abci.ResponseCheckTx, error) {
	if req.Type == abci.CheckTxType_Recheck {
		if a.quarantine.has(req.Tx) {
			return quarantined(), nil
		}
		// After a block only the replay windows and the grants can have
		// changed: evict a tx whose nonce a committed tx of the same key
		// has used, or whose key lost its grants.
		if tx, err := a.ex.decode(req.Tx); err == nil {
			if rej := a.ex.Recheck(tx); rej != nil {
				return &abci.ResponseCheckTx{Code: rej.Code, Log: rej.Error(), Codespace: "relchain"}, nil
			}
		}
		return &abci.ResponseCheckTx{Code: api.CodeOK}, nil
	}
	if a.quarantine.has(req.Tx) {
		a.refused(api.CodeQuarantined)
		return quarantined(), nil
	}
	if _, rej := a.ex.Check(ctx, req.Tx); rej != nil {
		rej = a.committedRejection(req.Tx, rej)
		a.refused(rej.Code)
		return &abci.ResponseCheckTx{Code: rej.Code, Log: rej.Error(), Codespace: "relchain"}, nil
	}
	return &abci.ResponseCheckTx{Code: api.CodeOK}, nil
}

// quarantined is CheckTx's answer for a quarantined tx (see
// ProcessProposal).
func quarantined() *abci.ResponseCheckTx {
	return &abci.ResponseCheckTx{Code: api.CodeQuarantined, Codespace: "relchain",
		Log: "this node could not execute the transaction within its limits ([block] tx_timeout, memory) when it was proposed, and no longer accepts it"}
}

// FinalizeBlock executes the decided block, or returns the outcome of
// ProcessProposal's execution of the same block.
func (a *App) FinalizeBlock(ctx context.Context, req *abci.RequestFinalizeBlock) (*abci.ResponseFinalizeBlock, error) {
	start := time.Now()
	a.stats.finalizing(req.Height, start)
	b := BlockInfo{Height: req.Height, Time: req.Time, Hash: req.Hash}
	speculated := a.ex.Speculated(b)
	results, appHash, err := a.ex.FinalizeBlock(ctx, b, req.Txs)
	if err != nil {
		return nil, a.halt(err)
	}
	if !speculated {
		a.stats.executed(req.Height, len(req.Txs), start, time.Now(), a.ex.PendingLanes())
	}
	a.observeFinalized(results)
	out := make([]*abci.ExecTxResult, len(results))
	for i, r := range results {
		out[i] = &abci.ExecTxResult{Code: r.Code, Data: r.Data, Log: r.Log, Info: string(r.Info)}
		if r.Code != api.CodeOK {
			out[i].Codespace = "relchain"
		}
	}
	resp := &abci.ResponseFinalizeBlock{TxResults: out, AppHash: appHash, ValidatorUpdates: abciValidatorUpdates(a.ex.ValidatorUpdates(req.Height))}
	if v, ok := a.ex.VersionUpdate(req.Height); ok {
		// The next block is the first of an upgrade: its header (and
		// every later one) carries the new version.
		resp.ConsensusParamUpdates = &cmtproto.ConsensusParams{Version: &cmtproto.VersionParams{App: v}}
		a.logger.Info("protocol upgrade: the next block runs the new protocol version", "height", req.Height+1, "version", v)
	}
	return resp, nil
}

// Commit makes the finalized block durable.
func (a *App) Commit(ctx context.Context, _ *abci.RequestCommit) (*abci.ResponseCommit, error) {
	if _, err := a.ex.Commit(ctx); err != nil {
		return nil, a.halt(err)
	}
	a.observeCommitted(a.stats.committed(time.Now()))
	return &abci.ResponseCommit{}, nil
}

// StateSync is the app's state-sync side (ABCI's snapshot connection),
// implemented by the node, which owns the checkpoints and the database.
type StateSync interface {
	ListSnapshots(context.Context, *abci.RequestListSnapshots) (*abci.ResponseListSnapshots, error)
	LoadSnapshotChunk(context.Context, *abci.RequestLoadSnapshotChunk) (*abci.ResponseLoadSnapshotChunk, error)
	OfferSnapshot(context.Context, *abci.RequestOfferSnapshot) (*abci.ResponseOfferSnapshot, error)
	ApplySnapshotChunk(context.Context, *abci.RequestApplySnapshotChunk) (*abci.ResponseApplySnapshotChunk, error)
}

// ListSnapshots lists the snapshots this node serves.
func (a *App) ListSnapshots(ctx context.Context, req *abci.RequestListSnapshots) (*abci.ResponseListSnapshots, error) {
	if a.StateSync == nil {
		return &abci.ResponseListSnapshots{}, nil
	}
	return a.StateSync.ListSnapshots(ctx, req)
}

// LoadSnapshotChunk serves one chunk of a snapshot.
func (a *App) LoadSnapshotChunk(ctx context.Context, req *abci.RequestLoadSnapshotChunk) (*abci.ResponseLoadSnapshotChunk, error) {
	if a.StateSync == nil {
		return &abci.ResponseLoadSnapshotChunk{}, nil
	}
	return a.StateSync.LoadSnapshotChunk(ctx, req)
}

// OfferSnapshot is a peer's snapshot offered to this (empty) node.
func (a *App) OfferSnapshot(ctx context.Context, req *abci.RequestOfferSnapshot) (*abci.ResponseOfferSnapshot, error) {
	if a.StateSync == nil {
		return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_REJECT}, nil
	}
	return a.StateSync.OfferSnapshot(ctx, req)
}

// ApplySnapshotChunk applies one chunk of the accepted snapshot.
func (a *App) ApplySnapshotChunk(ctx context.Context, req *abci.RequestApplySnapshotChunk) (*abci.ResponseApplySnapshotChunk, error) {
	if a.StateSync == nil {
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ABORT}, nil
	}
	return a.StateSync.ApplySnapshotChunk(ctx, req)
}
