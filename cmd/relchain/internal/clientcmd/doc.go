// Package clientcmd builds relchain's client commands: exec, query, tx,
// status, keys and admin, which talk to a network over RPC. It links no
// database driver, SQL parser, backend or cgo (internal/lint's
// driverFreePkgs): what the commands learn from the node side (a network
// directory's nodes.json, a node home's halt record) cmd/relchain passes
// in an Env, and a node's protocol state is decoded from its JSON.
package clientcmd
