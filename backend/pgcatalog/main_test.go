package pgcatalog

import (
	"testing"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// The comparisons with PostgreSQL run on RELCHAIN_TEST_PG's server, or on
// a private cluster pgtest starts (and stops here when the tests end).
func TestMain(m *testing.M) { pgtest.Main(m) }
