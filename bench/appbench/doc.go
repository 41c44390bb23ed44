// Package appbench holds in-process benchmarks of relchain's executor
// (package app) driven by the lab's workloads: the real executor on a real
// database file, without consensus or a network, to measure what a block
// costs to execute and commit. It has tests only.
//
// They live on the lab's side because they use its workloads (Smallbank):
// app, with its tests, imports nothing of bench/ (internal/lint's
// layerCycles), and these benchmarks use app's exported API only.
//
//	go test ./bench/appbench -run '^$' -bench SmallbankBatchSQLite -benchtime 40x
package appbench
