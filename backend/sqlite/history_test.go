package sqlite_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/sqlite"
)

func TestHistoryConformance(t *testing.T) {
	backendtest.RunHistory(t, openPerTest(sqlite.WithPostgresDialect()), spelling, backendtest.HistoryOptions{
		Tables:      []string{"relchain_history_blocks", "relchain_history_versions", "relchain_history_states", "relchain_history_roots"},
		Restore:     restoreForTest,
		DropHistory: dropHistoryForTest,
		Dump: func(t *testing.T, _ backend.Backend) []byte {
			p, _ := dbPaths.Load(t)
			var buf bytes.Buffer
			if _, err := sqlite.Dump(context.Background(), p.(string), &buf); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		},
	})
}

// A checkpoint is a copy of the database file: the row history, the
// node's own, must not be in it, not even in its free pages.
func TestCheckpointHoldsNoHistoryBytes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "relchain.db")
	b, err := sqlite.Open(ctx, path, sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	marker := []byte("only-in-the-row-history")
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	v := backend.RowVersion{Table: "t", Key: []byte{1}, Op: backend.HistoryInsert, Image: bytes.Repeat(marker, 200)}
	if err := blk.(backend.HistoryBlock).AppendHistory(ctx, backend.HistoryBlockInfo{Height: 1, AppHash: []byte{1}}, []backend.RowVersion{v}, 0); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := sqlite.TakeCheckpoint(path, dir, 1); err != nil {
		t.Fatal(err)
	}
	cps, err := sqlite.Checkpoints(dir)
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints %v, %v", cps, err)
	}
	data, err := os.ReadFile(cps[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, marker) {
		t.Fatal("the checkpoint file holds bytes of the row history")
	}
}

func BenchmarkAppendHistory(b *testing.B) {
	backendtest.BenchmarkAppendHistory(b, func(b *testing.B) backend.Backend {
		be, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
		if err != nil {
			b.Fatal(err)
		}
		return be
	})
}

// dropHistoryForTest drops the history tables of t's database file.
func dropHistoryForTest(t *testing.T) {
	p, _ := dbPaths.Load(t)
	c, err := sqlite3.Open(p.(string))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Exec("DROP TABLE relchain_history_versions; DROP TABLE relchain_history_blocks; DROP TABLE relchain_history_states; DROP TABLE relchain_history_roots"); err != nil {
		t.Fatal(err)
	}
}
