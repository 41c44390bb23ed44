// Command relchain runs and uses relchain networks: validators that
// replicate SQL databases through CometBFT. See `relchain --help`.
//
// This package wires the node side (init, node, localnet, testnet,
// gateway, backup, restore, recover, verify, version); the commands that
// talk to a network as a client (exec, query, tx, status, keys, admin)
// come from internal/clientcmd, which links no database driver.
package main
