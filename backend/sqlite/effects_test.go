package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck"
)

// A write made out of band on a connection without relchain's functions
// (like the sqlite3 shell) on a database written before the hook, with
// capture triggers on every table (MakeTriggerEra), is still captured, and
// stops the next block before it starts (backend.ErrOutOfBandChange): it
// enters no digest.
func TestOutOfBandWritesStopTheNextBlock(t *testing.T) {
	ctx := context.Background()
	run := func(oob bool) backend.Changes {
		path := filepath.Join(t.TempDir(), "relchain.db")
		step := func(height int64, tx int, sql string) backend.Changes {
			t.Helper()
			b, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			blk, err := b.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer blk.Rollback(ctx)
			if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: tx}); err != nil {
				t.Fatal(err)
			}
			if _, err := blk.Exec(ctx, sql, nil); err != nil {
				t.Fatal(err)
			}
			if err := blk.Release(ctx); err != nil {
				t.Fatal(err)
			}
			c, err := blk.ChangeDigest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := blk.StateDigest(ctx); err != nil {
				t.Fatal(err)
			}
			if err := blk.Commit(ctx, backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
				t.Fatal(err)
			}
			return c
		}
		step(1, 0, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`)
		step(2, 0, `INSERT INTO t (id, v) VALUES (1, 'a')`)
		if oob {
			if err := sqlite.MakeTriggerEra(path); err != nil {
				t.Fatal(err)
			}
			raw, err := sqlite3.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{`INSERT INTO t (id, v) VALUES (5, 'oob')`, `UPDATE t SET v = 'b' WHERE id = 1`} {
				if err := raw.Exec(s); err != nil {
					t.Fatalf("%s on a plain connection: %v", s, err)
				}
			}
			raw.Close()
		}
		if oob {
			b, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			_, err = b.Begin(ctx)
			if !errors.Is(err, backend.ErrOutOfBandChange) || !strings.Contains(err.Error(), "3 change record(s) that no block made, in t (3)") {
				t.Fatalf("Begin after out-of-band writes: %v, want ErrOutOfBandChange naming t and its 3 records", err)
			}
			return backend.Changes{}
		}
		return step(3, 4, `INSERT INTO t (id, v) VALUES (7, 'g')`)
	}
	run(true)
	clean := run(false)
	if len(clean.Effects) != 1 || !bytes.Equal(clean.Block, clean.Effects[4]) {
		t.Fatal("the only tx's effect digest differs from its block's digest")
	}
}
