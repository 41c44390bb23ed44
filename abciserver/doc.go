// Package abciserver serves an ABCI application over CometBFT's socket
// protocol (length-prefixed protobuf Request/Response messages), so that a
// CometBFT node in another process — relchain's own with `--abci socket`,
// or a stock `cometbft node --proxy_app tcp://…` of the pinned version —
// can drive relchain's application: the paper's "server variant".
//
// It differs from CometBFT's own abci/server.SocketServer in one respect
// that matters to relchain: that server holds one mutex around every
// request of every connection, so a Query waiting for min_height would
// block the very FinalizeBlock it waits for, and CheckTx would queue
// behind block execution. Here each connection (CometBFT opens one each
// for consensus, mempool, query and snapshot) is served by its own
// goroutine, in order: the same concurrency the in-process node gets from
// proxy.NewConnSyncLocalClientCreator. The application must be safe for
// that (relchain's is: one writer, readers on committed state).
package abciserver
