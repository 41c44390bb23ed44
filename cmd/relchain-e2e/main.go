package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/relchain/relchain/test/e2e"
)

// Exit statuses: a violation is a finding, not a failure of the tool.
const (
	exitViolation = 1
	exitError     = 2
	// exitUnsupported: this machine cannot run the manifest (e.g. a
	// disk-full fault without root); a skip.
	exitUnsupported = 3
)

func main() {
	err := rootCmd().Execute()
	var v *violationsError
	switch {
	case err == nil:
	case errors.Is(err, e2e.ErrUnsupported):
		fmt.Fprintln(os.Stderr, "skipped:", err)
		os.Exit(exitUnsupported)
	case errors.As(err, &v):
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(exitViolation)
	default:
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitError)
	}
}
