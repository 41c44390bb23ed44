// Package e2e holds black-box tests of whole relchain networks, in the
// spirit of CometBFT's test/e2e: they build the relchain binary, run real
// validators as child processes on loopback (package netctl), and speak to
// them only over CometBFT's RPC (packages client, txn and api) or through
// the CLI. They never import the application or a backend.
//
// Run them with
//
//	go test ./test/... -count=1 -v -timeout 20m
//
// The PostgreSQL variants use a private cluster started by backend/postgres/pgtest
// (or the server named by RELCHAIN_TEST_PG); set RELCHAIN_SKIP_PG=1 to skip
// them where PostgreSQL is not installed. RELCHAIN_E2E_RACE_BIN=1 builds
// the node binary with the race detector too.
//
// Tests whose network is their own and stays healthy (no killed or paused
// validators, no per-tx time limits, nothing timed) call
// runBesideOtherNetworks and run in parallel, two networks at a time
// (RELCHAIN_E2E_NETWORKS=N for N; 1 runs them one after another). As go
// test runs parallel tests, such a top-level test starts once the others,
// which run alone, are done; such subtests run beside their siblings.
package e2e
