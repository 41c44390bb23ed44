// Command benchsummary writes BENCHMARKS.md, the one page of today's
// benchmark figures, from benchmarks/current.json: for each figure its value,
// the command that measured it, the date and the journal entry
// (benchmarks/JOURNAL.md) that records the measurement. `make bench-summary`
// runs it; its test fails when the committed BENCHMARKS.md is not what the
// data file gives.
//
//	go run ./tools/benchsummary -data benchmarks/current.json -out BENCHMARKS.md
package main
