package gateway

import (
	"os"
	"testing"
)

// referencePostgres is the DSN of the real PostgreSQL the gateway's
// answers are compared with (RELCHAIN_TEST_PG; scripts/test.sh starts a
// private one). Without it the comparison cannot run: that fails the test,
// except under -short, where it is skipped by name.
func referencePostgres(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("RELCHAIN_TEST_PG")
	if dsn == "" {
		if testing.Short() {
			t.Skip("-short: no reference PostgreSQL (RELCHAIN_TEST_PG) to compare the gateway's answers with")
		}
		t.Fatal("RELCHAIN_TEST_PG is not set: this test compares the gateway with a real PostgreSQL; run it through scripts/test.sh (make test), which starts one, or set RELCHAIN_TEST_PG to a superuser DSN")
	}
	return dsn
}
