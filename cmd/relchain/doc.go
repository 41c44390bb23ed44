// Command relchain runs and uses relchain networks: validators that
// replicate SQL databases through CometBFT. See `relchain --help`.
//
// This package wires the node side (init, node, localnet, testnet,
// gateway, backup, restore, recover, verify, version); the commands that
// talk to a network as a client (exec, query, tx, status, keys, admin)
// come from internal/clientcmd, which links no database driver.
//
// A network that init, testnet or localnet creates speaks PostgreSQL's SQL
// where its backend speaks it (translated on SQLite) unless --sql-dialect
// says otherwise (sqldialect.go, docs/dialects.md); that default is the
// CLI's alone: netctl.Options, which Go harnesses fill, keeps "" as the
// backend's own dialect.
package main
