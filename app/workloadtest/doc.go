// Package workloadtest runs blocks through relchain's real block executor
// in process (no network): a real backend (SQLite in a temporary
// directory, a fresh PostgreSQL database from pgtest or a fresh MySQL/MariaDB
// database from mysqltest), the real determinism gate, savepoints,
// rewriting and state digests. Test packages that use PostgreSQL or MySQL
// must stop pgtest's and mysqltest's private servers when their tests end
// (Main does both).
//
// NewChainSpeaking opens a chain whose genesis fixes a SQL dialect its
// storage translates (PostgreSQL's SQL on SQLite, docs/dialects.md) at the
// translator version this binary implements: Chain.Dialect is then the SQL
// the chain takes, Chain.Storage the database that stores it.
//
// It knows nothing of the benchmark lab: bench/workload/workloadtest runs
// the lab's workloads (Setup, Run, Check) on a Chain of this package, so
// the lab's tests import app and never the other way round
// (internal/lint's layering_neutral_test.go forbids app, with its tests,
// to import bench).
package workloadtest
