// Package dbrestore restores a checkpoint beside a node's live database,
// verifies it against the chain's AppHash and swaps it in, keeping the
// replaced database: a file database by copying the checkpoint file
// (<file>.recover, <file>.replaced-<stamp>), a database server through
// its registry.Driver.Restore operations (<name>_recover,
// <name>_replaced_<stamp>).
//
// Both the running node (package node: state sync installs a verified
// snapshot) and the operator's tools (package ops: recover, restore, the
// check of a backup's checkpoint) use it, so it lives below both: node
// never imports ops (internal/lint).
package dbrestore
