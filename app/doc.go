// Package app is relchain's ABCI 2.0 application: a thin adapter (App) that
// translates CometBFT's requests for an Executor, which validates and runs
// blocks of bc-transactions against a backend.Backend and computes the
// AppHash. The Executor has no CometBFT dependency beyond plain data, so
// replay, recovery and tests drive it without a network.
package app
