package pgcatalog

import (
	"errors"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// Skeleton seam: database.go (buildDB) replaces this.

func buildDB(*Schema) (*sqlite3.Conn, error) { return nil, errors.New("not built yet") }
