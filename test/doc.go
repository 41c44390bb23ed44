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
// A behaviour that runs on several backends is one test over the harness's
// table of backends (testBackends, onBackends in backends_test.go), with a
// subtest per backend named by it: TestNetworkReplicatesWrites/sqlite,
// /postgres, /mysql. A backend a test leaves out is named in the test with
// the reason (notOn).
//
// The PostgreSQL subtests use a private cluster started by backend/postgres/pgtest
// (or the server named by RELCHAIN_TEST_PG), the MySQL ones a private MariaDB
// started by backend/mysql/mysqltest (or RELCHAIN_TEST_MYSQL's); without a
// server they fail saying how to get one, and skip only with
// RELCHAIN_SKIP_PG=1 or RELCHAIN_SKIP_MYSQL=1. RELCHAIN_E2E_RACE_BIN=1 builds
// the node binary with the race detector too.
//
// The benchmark workloads through consensus (TPC-C, Smallbank, YCSB in
// benchset_test.go) are built only with -tags benchset (make test-bench,
// the lab's long set); TestBenchSmoke runs `relchain bench` on a tiny load
// in every run.
//
// Tests whose network is their own and stays healthy (no killed or paused
// validators, no per-tx time limits, nothing timed) call
// runBesideOtherNetworks and run in parallel, two networks at a time
// (RELCHAIN_E2E_NETWORKS=N for N; 1 runs them one after another). As go
// test runs parallel tests, such a top-level test starts once the others,
// which run alone, are done; such subtests run beside their siblings.
package e2e
