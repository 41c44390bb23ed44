package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that runs the long tests: make test-e2e
// sets it to 1.
const Env = "RELCHAIN_LONG_TESTS"

// Require skips t unless the long tests run (Env=1), naming why it is long
// and where it runs. Call it first in the test.
func Require(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(Env) != "1" {
		t.Skipf("long test (%s): make test-e2e runs it (%s=1)", why, Env)
	}
}
