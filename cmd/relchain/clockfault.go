//go:build e2e_clock

package main

import (
	"fmt"
	"os"

	"github.com/relchain/relchain/internal/clockfault"
)

// A fault-injection build (go build -tags e2e_clock, made by the e2e
// harness only) offsets the whole process's wall clock by
// RELCHAIN_E2E_CLOCK_OFFSET, before any command runs: a validator whose
// clock is off. A default build ignores the variable.
func init() {
	d, err := clockfault.InstallFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	if d != 0 {
		fmt.Fprintf(os.Stderr, "FAULT INJECTION (e2e_clock build): this process's wall clock is offset by %v\n", d)
	}
}
