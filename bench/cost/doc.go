// Package cost measures what the executor costs over the raw database, in
// process: one relchain executor (package app over a backend opened
// through backend/registry) and one raw baseline (package raw) on the same
// backend kind — two SQLite files in one directory, or two databases of
// one PostgreSQL or MariaDB server — run the same wl-transaction stream in
// the same grouping (a block is one db-transaction, each wl-transaction in
// its own savepoint), in alternating turns (executor, raw, executor, raw,
// …) in one invocation. Each turn reports CPU time per wl-transaction: the
// Go process's (getrusage) and, for a server, the server's whole process
// tree (/proc); Run reports the medians over the turns and their ratio.
// No consensus, no network between the validator and its client: what is
// left is the executor (signature check cache, gate, savepoints, change
// capture, digests, results) against the statements alone.
//
// relchain-bench cost is the command; scripts/cost.sh runs the issue-19
// rows. bench/DESIGN.md ("The executor's cost is measured in process")
// says what is measured and why.
package cost
