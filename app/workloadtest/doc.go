// Package workloadtest runs workloads through relchain's real block
// executor in process (no network): a real backend (SQLite in a temporary
// directory, a fresh PostgreSQL database from pgtest or a fresh MySQL/MariaDB
// database from mysqltest), the real determinism gate, savepoints,
// rewriting and state digests. Workload packages use it to test that their
// SQL passes the gate and keeps their consistency conditions. Test packages
// that use PostgreSQL or MySQL must stop pgtest's and mysqltest's private
// servers when their tests end (Main does both).
//
// It lives under app, not bench: it is a test harness of the executor, and
// the benchmark lab (bench/, cmd/relchain-bench) drives relchain through its
// public packages only; it imports neither app nor a backend (but for the
// MySQL connector of the raw baseline, bench/raw).
package workloadtest
