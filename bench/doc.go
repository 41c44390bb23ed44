// Package bench measures relchain the way "A Relational Blockchain" (BTW
// 2023) did, as a library that the benchmark lab cmd/relchain-bench
// (`relchain-bench`, `relchain-bench paper`; `relchain bench …` runs it)
// and tests share. It is not linked into the node binary. It talks to
// nodes only through the client package and starts networks of relchain
// node binaries through netctl; it imports neither app nor a backend (the
// raw baseline, package raw, uses the MySQL block writer's connector).
//
// A measurement (Measure) starts a loopback network (StartNetwork), sets a
// workload (package workload and its implementations smallbank, tpcc,
// ycsb) up through consensus (SetupWorkload), runs it in one of the
// paper's modes (RunWorkload: sync, pseudo-sync, async) and records a
// Trace of what the chain executed; then, on request, replays that trace on
// a standalone database of the same backend (package raw, RunBaseline),
// checks the workload's consistency conditions and compares the two final
// states (TableDigests), and measures CometBFT's kvstore on an identically
// configured network (the ceiling). RunMicro keeps relchain's own
// micro-workloads (single-row UPDATEs, kvstore txs). MeasureGateway
// measures the PostgreSQL gateway of a node (relchain node --pg-listen)
// against the Go client, the raw backend and under explicit transactions
// (`relchain-bench gateway`). DESIGN.md says why it
// is built this way. Workloads speak SQLite's, PostgreSQL's and MySQL's
// dialects; MySQL's is the SQLite form in MySQL syntax (DESIGN.md).
package bench
