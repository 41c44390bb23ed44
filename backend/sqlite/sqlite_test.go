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
