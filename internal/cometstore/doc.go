// Package cometstore opens a stopped node's CometBFT block and state
// stores and builds the light client of its [statesync] section: what the
// running node (package node: resuming an interrupted state sync) and the
// operator's tools (package ops: recover's rollback, restore's offline
// bootstrap) both need, below both of them.
package cometstore
