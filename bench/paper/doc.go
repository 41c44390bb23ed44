// Package paper reproduces the evaluation of Schuhknecht and Jörz, "The
// Easiest Way of Turning your Relational Database into a Blockchain — and
// the Cost of Doing So" (BTW 2023), on relchain.
//
// Plan turns the paper's experiments (Figs. 2, 3, 4-5, 6-7, 8, 9, 10, 11a,
// 11b and 12) into measurement points scaled to a small machine; each
// Experiment also carries, in words and numbers, what the paper found.
// Run measures the
// points through a RunFunc (the runner that starts networks and drives
// workloads lives elsewhere: this package only plans, collects and
// reports), measuring identical points once, and goes on past failures.
// Write renders one PNG chart per figure (gonum.org/v1/plot), a report.md
// that puts our numbers beside the paper's, and suite.json with every
// Result.
//
// Estimate predicts how long a plan takes from a simple cost model
// (network start-up, workload setup, per-transaction rates of each mode),
// so the quick plan can be held to its time budget by a test.
package paper
