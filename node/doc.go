// Package node embeds a CometBFT v0.38 node with relchain's application
// in-process (the paper's "builtin" variant): it loads a node home
// (CometBFT's config/config.toml and genesis plus relchain's
// config/relchain.toml), opens the configured backend and runs the node
// until stopped. It also creates fresh node homes (Init) and owns a home's
// layout (LoadConfig, CheckpointDir, the halt record). The operator's
// tools that run beside or instead of a node (backup, restore, recover,
// verify, dump) are package ops, which imports node; node never imports
// ops, nor the client (internal/lint).
//
// A running node watches for a divergence: an AppHash of its own that the
// network did not sign. It learns the network's from the block its
// consensus refused, or, when its height stands still, from a peer's
// signed header verified against its own validator set, and reports a
// *DivergenceError on Halted, naming the first tx whose result differs
// when known. A divergence, or a block that refused to start because the
// database was changed outside the chain (backend.ErrOutOfBandChange), is
// also recorded in the node home (HaltRecord, data/relchain-halt.json):
// ops.Verify reports it (and compares the database's AppHash with the one
// the chain signed, from the block store) until ops.Recover removes it
// (ClearHaltRecord). So is a stop at an on-chain upgrade to a protocol
// version the binary cannot run (protocol.ErrUnsupported): no fault, it
// is shown until the node starts again with a binary that runs it.
//
// The backend is opened by name through package backend/registry. Test
// hooks (a byzantine proposer, corrupt state-sync chunks, the gate off)
// exist only in a build with -tags testhooks (testhooks.go).
// DESIGN.md beside this file explains how and why.
package node
