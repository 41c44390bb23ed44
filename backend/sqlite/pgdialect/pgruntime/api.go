package pgruntime

import (
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// Register installs the runtime functions translations call on c. Call
// it once per connection, before any translated statement runs there.
func Register(c *sqlite3.Conn) error { return nil }

// NewCatalog returns the Catalog of c's schema: each table's columns with
// the PostgreSQL types CREATE TABLE declared. It reads the schema when
// asked, so it sees tables created earlier in c's open transaction.
func NewCatalog(c *sqlite3.Conn) pgdialect.Catalog { return nil }

// Value converts a value SQLite returned for a result column of type t to
// the Go value relchain's results carry for it (nil, int64, float64,
// string, []byte or bool): a bool column's 0/1 becomes false/true.
func Value(t pgdialect.Type, v any) (any, error) { return v, nil }
