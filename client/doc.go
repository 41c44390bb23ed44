// Package client is the Go client of a relchain network. It speaks only
// CometBFT's RPC: it signs bc-transactions (package txn) with a client key,
// submits them, runs read-only SQL through abci_query, and reads node
// status. It never imports the application or a backend.
//
// The paper's three ways of submitting (section 3.4):
//
//   - sync: Exec(ctx, ModeCommit, stmts...) submits one wl-transaction as
//     one bc-transaction with broadcast_tx_sync and waits for its block;
//   - pseudo-sync: ExecBatch submits k wl-transactions in one batch
//     envelope and waits, returning one outcome per wl-transaction;
//   - async: a Stream (the RPC-sender and RPC-listener of Figure 1) hands
//     txs over with Submit and reports each one's outcome exactly once on
//     Results.
//
// Commit mode and streams learn of committed blocks from one NewBlock
// websocket subscription per node and process, shared by every Client of
// that node. It survives a lost connection: it resubscribes and fetches
// the blocks it missed with the block and block_results RPCs, so every
// height is seen once, in order.
//
// A commit-mode wait ends early with an error wrapping ErrQuarantined when
// the node quarantines the tx after admitting it (it could not execute it
// within its [block] tx_timeout when it was proposed): the wait re-submits
// the same bytes every few seconds to learn this, instead of running into
// the context's deadline. A Stream does the same for its pending txs (a
// batch of them per interval) and reports such a tx's Outcome with
// ErrQuarantined instead of after MaxBlocks.
//
// Retries are idempotent. A signed envelope executes at most once, and
// resubmitting the same bytes (Broadcast, ExecBatch's and a Stream's
// resends, from any process, to any node, at any time, before or after
// the nodes restarted) answers the committed outcome, looked up by tx hash
// in the node's tx index: a tx committed with code 0 answers code 0 with
// its height and statement results, one that failed in its block answers
// that failure. The node's CheckTx refuses the resubmission (a committed
// tx never re-enters the mempool) with api.CodeCommitted, or
// api.CodeReplayed when it cannot tell; the client turns either into the
// committed result. A resubmission is reported as refused (CodeReplayed)
// only when the node's index, covering the whole chain, holds no tx of
// that hash: another tx of the key used the nonce. When the index cannot
// tell (the node does not index txs, or starts from a state-sync snapshot),
// the error wraps ErrOutcomeUnknown: never a false failure. To retry an
// unknown outcome, keep the signed bytes (Sign, then Broadcast) and send
// them again; Exec signs a new tx each time (a new nonce), which is not a
// retry.
//
// A result is reported once its block is final (decided by consensus) and
// its results are known. The node's application may still be finishing
// that block's db-commit (a block's results can be served by block_results,
// or the event seen, a moment before the database shows it): to read your
// own write, pass the result's Height as Query's minHeight, which makes the
// node wait until its database has committed it.
//
// Reads: Query asks one node; QueryAll asks several at one height and
// reports a node whose answer differs (a single node may be byzantine).
package client
