package sqlite_test

import (
	"testing"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// The postgres dialect's comparisons with PostgreSQL run on
// RELCHAIN_TEST_PG's server, or on a private cluster pgtest starts (and
// stops here when the tests end).
func TestMain(m *testing.M) { pgtest.Main(m) }
