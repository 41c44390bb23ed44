// Package client is the Go client of a relchain network. It speaks only
// CometBFT's RPC: it signs bc-transactions (package txn) with a client key,
// submits them in commit, sync or async mode, runs read-only SQL through
// abci_query, and reads node status. It never imports the application or
// a backend.
package client
