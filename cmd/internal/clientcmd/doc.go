// Package clientcmd builds relchain's client commands: exec, query, tx,
// status, keys and admin, which talk to a network over RPC. It links no
// database driver, SQL parser, backend or cgo (internal/lint's
// driverFreePkgs): what the commands learn from the node side (a network
// directory's nodes.json, a node home's halt record) comes in an Env:
// cmd/relchain fills it from netctl and node, cmd/relchain-client (the
// client commands without the databases) reads the files itself
// (FileEnv). A node's protocol state is decoded from its JSON.
package clientcmd
