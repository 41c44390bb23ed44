package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// DefaultTxTimeout is how long a node lets one tx of a proposed block run
// before it votes against the block (App.TxTimeout). Ordinary txs take
// milliseconds and bulk loads seconds; the bound is for statements that
// would run for hours. It is per tx, not per block: a block of 15,000
// ordinary txs may take longer than any per-block bound one would choose,
// and must not be rejected for it.
const DefaultTxTimeout = 30 * time.Second

// quarantineKeep bounds how many quarantined tx hashes a node remembers.
const quarantineKeep = 4096

// PrepareProposal proposes the mempool's txs as CometBFT reaped them
// (within the block's byte limit), leaving out the txs this node has
// quarantined. (A test's byzantine proposer puts raw txs before them: see
// node/testhooks.go.) On MySQL, whose DDL commits implicitly, a bc-transaction with
// DDL must be alone in its block (see backend.Block): the proposal ends
// before such a tx, which then opens the next proposal alone. The order of
// the reaped txs is kept.
func (a *App) PrepareProposal(ctx context.Context, req *abci.RequestPrepareProposal) (*abci.ResponsePrepareProposal, error) {
	a.stats.proposed(req.Height, time.Now())
	var txs [][]byte
	var size int64
	isolateDDL := a.ex.ddlAlone()
	for _, tx := range req.Txs {
		if a.quarantine.has(tx) {
			continue
		}
		if size+int64(len(tx)) > req.MaxTxBytes {
			break
		}
		if isolateDDL && a.ex.HasDDL(ctx, tx) {
			if len(txs) == 0 {
				txs = append(txs, tx)
			}
			break
		}
		size += int64(len(tx))
		txs = append(txs, tx)
	}
	return &abci.ResponsePrepareProposal{Txs: txs}, nil
}

// ProcessProposal executes the proposed block before this node votes for
// it (Executor.Speculate), each tx within the node-local TxTimeout, and
// keeps the outcome for FinalizeBlock, so the block is still executed once.
//
// This is what keeps a client's tx from halting the network: a tx whose
// execution cannot finish within this node's limits (a deadline, memory,
// any failure of the backend while it runs) makes the node vote against
// the block instead of failing in FinalizeBlock, where a decided block
// that cannot be applied stops the node for good (a restart replays the
// same block). The tx is quarantined: this node no
// longer proposes it, rejects proposals that hold it without executing
// them, and evicts it from its mempool at the next recheck. Every honest
// node that runs out of time does the same, so the round fails and the
// next proposer leaves the tx out. A block that is decided anyway was
// executed within the limits of the validators that voted for it; a slower
// node then applies it in FinalizeBlock without a deadline.
//
// A failure outside every tx (the block's db-transaction cannot begin
// because the database was changed outside the chain or went away, the
// digests fail) is this node's own: no tx is to blame, and voting against
// the block would only stall a network this node cannot follow anyway (a
// one-validator network for ever). The node votes for the block and
// FinalizeBlock, which executes it again, stops the node with the reason
// if the failure persists. On a backend whose DDL commits implicitly
// (MySQL), a block with DDL is not executed early: running it could not be
// undone if another block were decided; nor is a block whose DDL check
// could not ask the database. A database that is unavailable while the
// block runs (a lost connection, a restarting server) is waited for and
// the block runs again (Executor.Speculate): no tx is quarantined for it.
func (a *App) ProcessProposal(ctx context.Context, req *abci.RequestProcessProposal) (*abci.ResponseProcessProposal, error) {
	a.stats.proposed(req.Height, time.Now())
	if i, ok := a.quarantine.first(req.Txs); ok {
		a.logger.Info("rejecting a proposal that holds a quarantined tx", "height", req.Height, "tx", fmt.Sprintf("%X", txn.Hash(req.Txs[i])))
		return reject(), nil
	}
	if a.ex.ddlCommitsHere() {
		// Unknown (the database could not be asked) counts as DDL: an
		// early run that waited for the database could commit DDL of a
		// block that is then not decided.
		if ddl, err := a.ex.anyDDL(ctx, req.Txs); ddl || err != nil {
			return accept(), nil
		}
	}
	timeout := a.TxTimeout
	if timeout <= 0 {
		timeout = DefaultTxTimeout
	}
	start := time.Now()
	err := a.ex.Speculate(ctx, BlockInfo{Height: req.Height, Time: req.Time, Hash: req.Hash}, req.Txs, timeout)
	if err == nil {
		a.stats.executed(req.Height, len(req.Txs), start, time.Now(), a.ex.PendingLanes())
		return accept(), nil
	}
	var txErr *TxError
	if errors.Is(err, protocol.ErrUnsupported) {
		// Voting against it would not help: the network has moved to a
		// version this binary cannot run. FinalizeBlock stops the node.
		a.logger.Error("this node's binary cannot run the protocol version of the proposed block; it stops once the block is decided", "height", req.Height, "err", err)
		return accept(), nil
	}
	if !errors.As(err, &txErr) {
		a.logger.Error("this node could not execute the proposal outside any tx; voting for it, FinalizeBlock will run it again", "height", req.Height, "err", err)
		return accept(), nil
	}
	a.quarantineFailed(req, txErr, timeout)
	return reject(), nil
}

// quarantineFailed logs why a proposal could not be executed and
// quarantines the tx that was running when it failed. Any failure of the
// backend while a tx runs quarantines it, not only a deadline: a failure
// every node shares (memory, a value size limit the backend reports as an
// internal error) must not bring the same tx back in every round, and a
// failure of this node alone (a lost connection) only keeps this node from
// proposing a tx that the others still propose.
func (a *App) quarantineFailed(req *abci.RequestProcessProposal, txErr *TxError, timeout time.Duration) {
	a.quarantine.add(req.Txs[txErr.Index])
	a.logger.Error("rejecting a proposal: a tx exceeded this node's limits; it is quarantined (raise [block] tx_timeout in relchain.toml if such txs are legitimate)",
		"height", req.Height, "tx", fmt.Sprintf("%X", txn.Hash(req.Txs[txErr.Index])), "tx_timeout", timeout, "err", txErr.Err)
}

func accept() *abci.ResponseProcessProposal {
	return &abci.ResponseProcessProposal{Status: abci.ResponseProcessProposal_ACCEPT}
}

func reject() *abci.ResponseProcessProposal {
	return &abci.ResponseProcessProposal{Status: abci.ResponseProcessProposal_REJECT}
}

// quarantine is the set of txs this node could not execute within its
// limits, by hash, bounded: the oldest is forgotten first. It is node-local
// and never decides a block's outcome, only this node's votes and
// proposals.
type quarantine struct {
	mu    sync.Mutex
	keep  int
	set   map[[32]byte]struct{}
	order [][32]byte
}

func newQuarantine(keep int) *quarantine {
	return &quarantine{keep: keep, set: make(map[[32]byte]struct{})}
}

func key(raw []byte) [32]byte {
	var h [32]byte
	copy(h[:], txn.Hash(raw))
	return h
}

func (q *quarantine) add(raw []byte) {
	h := key(raw)
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.set[h]; ok {
		return
	}
	if len(q.order) >= q.keep {
		delete(q.set, q.order[0])
		q.order = q.order[1:]
	}
	q.set[h] = struct{}{}
	q.order = append(q.order, h)
}

func (q *quarantine) has(raw []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.set) == 0 {
		return false
	}
	_, ok := q.set[key(raw)]
	return ok
}

// first returns the index of the first quarantined tx of txs.
func (q *quarantine) first(txs [][]byte) (int, bool) {
	q.mu.Lock()
	empty := len(q.set) == 0
	q.mu.Unlock()
	if empty {
		return 0, false
	}
	for i, tx := range txs {
		if q.has(tx) {
			return i, true
		}
	}
	return 0, false
}
