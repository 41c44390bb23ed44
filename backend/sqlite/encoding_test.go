package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite"
)

// A database file whose text encoding is not UTF-8 (an operator's own
// file, created as UTF-16) would compute hex() and casts to BLOB
// differently from every other node: Open refuses it, naming the
// encoding; relchain's own files are UTF-8.
func TestOpenRefusesAUTF16File(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relchain.db")
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec("PRAGMA encoding = 'UTF-16le'; CREATE TABLE t (id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := sqlite.Open(context.Background(), path)
	if err == nil {
		b.Close()
		t.Fatal("Open accepted a UTF-16 database file")
	}
	if !strings.Contains(err.Error(), "UTF-16le") || !strings.Contains(err.Error(), "Fix:") {
		t.Fatalf("Open: %v; want the encoding named and a fix", err)
	}

	fresh, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fresh.db"))
	if err != nil {
		t.Fatalf("Open of a new file: %v", err)
	}
	fresh.Close()
}
