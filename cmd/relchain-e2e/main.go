package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/relchain/relchain/test/e2e"
)

// Exit statuses: a violation is a finding, not a failure of the tool.
const (
	exitOK        = 0
	exitViolation = 1
	exitError     = 2
	// exitUnsupported: this machine cannot run the manifest (e.g. a
	// disk-full fault without root); a skip.
	exitUnsupported = 3
)

func main() {
	err := rootCmd().Execute()
	code, prefix := exitStatus(err)
	if err != nil {
		fmt.Fprintln(os.Stderr, prefix, err)
	}
	os.Exit(code)
}

// exitStatus maps a run's error to the exit status and the word its
// message starts with.
func exitStatus(err error) (int, string) {
	var v *violationsError
	switch {
	case err == nil:
		return exitOK, ""
	case errors.Is(err, e2e.ErrUnsupported):
		return exitUnsupported, "skipped:"
	case errors.As(err, &v):
		return exitViolation, "FAIL:"
	default:
		return exitError, "error:"
	}
}
