package app_test

import (
	"syscall"
	"time"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// Helpers app's benchmarks share (bench/appbench has its own copies).

// cpuTime is the process's CPU time so far (user+system, every thread).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const benchChainID = "bench"

// benchParams are the genesis parameters of a benchmark's SQLite chain.
func benchParams() app.Params {
	p := app.DefaultParams()
	p.Backend = "sqlite"
	p.MaxStatements = txn.MaxStatements
	return p
}
