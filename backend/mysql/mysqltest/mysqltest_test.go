package mysqltest

import (
	"context"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// The private server (or RELCHAIN_TEST_MYSQL's) gives each test a database
// with relchain's server defaults.
func TestDSNGivesAFreshUTF8MB4BinDatabase(t *testing.T) {
	dsn := DSN(t)
	db, err := open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var charset, collation string
	if err := db.QueryRowContext(context.Background(),
		`SELECT @@character_set_database, @@collation_database`).Scan(&charset, &collation); err != nil {
		t.Fatal(err)
	}
	if charset != "utf8mb4" || collation != "utf8mb4_bin" {
		t.Fatalf("database charset %s collation %s, want utf8mb4 utf8mb4_bin", charset, collation)
	}
}
