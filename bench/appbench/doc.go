// Package appbench holds in-process benchmarks of relchain's executor
// (package app) driven by the lab's workloads: the real executor on a real
// database file, without consensus or a network, to measure what a block
// costs to execute and commit. It has tests only.
//
// They live on the lab's side because they use its workloads (Smallbank):
// app, with its tests, imports nothing of bench/ (internal/lint's
// layerCycles), and these benchmarks use app's exported API only.
//
// The Dialect benchmarks compare, side by side in one run, a SQLite
// network speaking SQLite's SQL with one speaking PostgreSQL's
// (translated, issue 35): CheckTx per statement and the executor's CPU per
// wl-transaction (Smallbank; TPC-C NewOrder, which skips naming the
// statement while the translator refuses one it needs).
//
//	go test ./bench/appbench -run '^$' -bench SmallbankBatchSQLite -benchtime 40x
//	go test ./bench/appbench -run '^$' -bench 'Dialect(CheckTx|Smallbank|NewOrder)' -benchtime 20x -count 5
package appbench
