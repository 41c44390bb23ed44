package sqlite_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/relchain/relchain/backend/sqlite"
)

// TestMain runs the package's tests on the capture path that
// RELCHAIN_TEST_SQLITE_CAPTURE names: "hook" (the default) or "triggers".
func TestMain(m *testing.M) {
	switch c := os.Getenv("RELCHAIN_TEST_SQLITE_CAPTURE"); c {
	case "", "hook":
	case "triggers":
		sqlite.SetDefaultCapture(false)
	default:
		fmt.Fprintf(os.Stderr, "RELCHAIN_TEST_SQLITE_CAPTURE=%q: want triggers or hook\n", c)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
