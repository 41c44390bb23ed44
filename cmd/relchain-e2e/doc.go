// Command relchain-e2e runs one fault manifest of test/e2e outside `go
// test`: `relchain-e2e run manifest.toml [--seed N] [--out DIR]` starts
// the manifest's network, runs its load under its fault schedule, checks
// its invariants, tears everything down, writes report.json and
// history.jsonl to the output directory, and exits non-zero if the
// checker found a violation (1) or the run could not be carried out (2).
// It runs the same runner as `go test ./test/e2e`.
//
// The nodes run the relchain binary given by --bin, else $RELCHAIN_BIN,
// else the relchain next to this executable, else relchain in PATH. A
// PostgreSQL or MySQL manifest needs --dsn-template (a DSN with {node},
// one database per node, on a server the caller owns).
package main
