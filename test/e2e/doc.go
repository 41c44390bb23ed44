// Package e2e runs relchain networks described as data: a manifest (TOML,
// manifests/*/*.toml) names the network (validators, backend, whether each
// node gets a network namespace of its own), the load (a workload, its
// clients, rate and duration), a schedule of perturbations (kill, restart,
// pause, resume, partition, disconnect, heal; faults on a node's data and
// its database server; clock, a node's wall clock offset for the whole
// run), the fewest writes the run must acknowledge, and the invariants to
// check. Every fault confirms it took effect, and a node that exits
// without the schedule stopping it fails the run.
//
// Run starts the network through netctl, drives the load through client/
// while the schedule runs, and logs every client operation (invoke, then
// ok with its height, fail with its code, or unknown; resends of the same
// signed bytes) to history.jsonl in the report directory. The checker
// (check.go) then resolves unknown outcomes by looking the tx up by hash
// and verifies, Jepsen-style, that every acknowledged write is present
// exactly once on every node, that no write reported failed is present,
// that every resend answered the committed outcome, that reads at a
// minimum height saw every write acknowledged at or below it, that each
// node's own recorded AppHash is the chain's, that `relchain verify`
// passes on each node and reproduces the same AppHash, that block times
// increase and stay near the real clock, that a skewed node's votes show
// its offset, that no node's log has a consensus failure or a panic, and,
// for the bank workload, that money is conserved. report.json says what
// ran and what was found.
//
// TestManifests (go test ./test/e2e) runs the CI set; `make e2e-long` runs
// the long set with random schedules from a printed, replayable seed.
package e2e
