package sqlite_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/sqlite"
)

// openPerTest gives each test its own database file and reopens the same
// file when called again with the same t.
func openPerTest() backendtest.Open {
	var mu sync.Mutex
	paths := map[*testing.T]string{}
	return func(t *testing.T) backend.Backend {
		mu.Lock()
		p, ok := paths[t]
		if !ok {
			p = filepath.Join(t.TempDir(), "relchain.db")
			paths[t] = p
		}
		mu.Unlock()
		b, err := sqlite.Open(context.Background(), p)
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		return b
	}
}

func TestConformance(t *testing.T) {
	backendtest.Run(t, openPerTest())
}

func BenchmarkBlock(b *testing.B) {
	backendtest.BenchmarkBlock(b, func(b *testing.B) backend.Backend {
		be, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "relchain.db"))
		if err != nil {
			b.Fatal(err)
		}
		return be
	})
}

// A client's query must not change the shared read connections' settings.
func TestQueryCannotRunPragmaOrTransactionControl(t *testing.T) {
	b, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, sql := range []string{"PRAGMA case_sensitive_like = ON", "PRAGMA foreign_keys", "COMMIT", "ATTACH ':memory:' AS x"} {
		if _, _, err := b.Query(context.Background(), sql, nil); backend.AsError(err) == nil {
			t.Errorf("query %q: err = %v, want a statement failure", sql, err)
		}
	}
	rows, _, err := b.Query(context.Background(), "SELECT 'a' LIKE 'A'", nil)
	if err != nil || len(rows.Rows) != 1 || rows.Rows[0][0] != int64(1) {
		t.Fatalf("LIKE is case-insensitive after the refused pragma: rows %v, err %v", rows, err)
	}
}
