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
)

// tamperSetup opens a hook-capture backend on a new database holding
// tables t and u after two blocks.
func tamperSetup(t *testing.T) (*sqlite.Backend, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "relchain.db")
	b, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	runBlock(t, b, 1, [][]string{{`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`, `CREATE TABLE u (k TEXT PRIMARY KEY) WITHOUT ROWID`}})
	runBlock(t, b, 2, [][]string{{`INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b')`, `INSERT INTO u (k) VALUES ('x')`}})
	return b, path
}

// writeOutOfBand runs stmts on a plain connection, like the sqlite3 shell.
func writeOutOfBand(t *testing.T, path string, stmts ...string) {
	t.Helper()
	raw, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, s := range stmts {
		if err := raw.Exec(s); err != nil {
			t.Fatalf("%s on a plain connection: %v", s, err)
		}
	}
}

// wantOutOfBand asserts that the next Begin refuses to start naming
// exactly tables, and that the stored state is still the last block's.
func wantOutOfBand(t *testing.T, b *sqlite.Backend, stored []byte, tables string) {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err == nil {
		blk.Rollback(ctx)
		t.Fatal("Begin after an out-of-band write succeeded")
	}
	var oob *backend.OutOfBandChange
	if !errors.Is(err, backend.ErrOutOfBandChange) || !errors.As(err, &oob) {
		t.Fatalf("Begin after an out-of-band write: %v, want ErrOutOfBandChange", err)
	}
	if !strings.Contains(err.Error(), "rows that no block wrote, in "+tables+" (their tables differ from the state the last block committed)") {
		t.Fatalf("Begin after an out-of-band write: %v, want it to name %s", err, tables)
	}
	now, _, err := b.StoredState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(now.Digest(), stored) {
		t.Fatal("the stored state changed")
	}
}

func storedDigest(t *testing.T, b *sqlite.Backend) []byte {
	t.Helper()
	s, _, err := b.StoredState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s.Digest()
}

// With hook capture, a write by another connection while the node runs is
// found at the next Begin (PRAGMA data_version), which names the changed
// tables and starts no block, however often it is retried.
func TestHookCaptureFindsOutOfBandWriteWhileRunning(t *testing.T) {
	b, path := tamperSetup(t)
	stored := storedDigest(t, b)
	writeOutOfBand(t, path, `UPDATE t SET v = 'tampered' WHERE id = 2`, `DELETE FROM u`)
	wantOutOfBand(t, b, stored, "t (rows changed), u (rows changed)")
	wantOutOfBand(t, b, stored, "t (rows changed), u (rows changed)")
}

// A write made while the node was stopped is found at the first Begin
// after Open; a clean reopen and a reading connection are not taken for
// one.
func TestHookCaptureFindsOutOfBandWriteWhileStopped(t *testing.T) {
	ctx := context.Background()
	b, path := tamperSetup(t)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	reopen := func() *sqlite.Backend {
		b, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	b = reopen()
	writeOutOfBand(t, path, `SELECT count(*) FROM t`)
	runBlock(t, b, 3, [][]string{{`INSERT INTO t (id, v) VALUES (3, 'c')`}})
	stored := storedDigest(t, b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	writeOutOfBand(t, path, `INSERT INTO t (id, v) VALUES (9, 'oob')`)
	wantOutOfBand(t, reopen(), stored, "t (rows changed)")
}

// A database written before the hook, with capture triggers on every
// table (built here by MakeTriggerEra), opens with hook capture: its
// capture triggers are dropped (the rowid guards stay), records an
// out-of-band write left in relchain_changes still stop the next block,
// and without them blocks go on with the same digests as on a database
// that never had the triggers.
func TestHookCaptureMigratesATriggerDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, twin := filepath.Join(dir, "migrated.db"), filepath.Join(dir, "twin.db")
	for _, p := range []string{path, twin} {
		b, err := sqlite.Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		runBlock(t, b, 1, [][]string{{`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`}})
		runBlock(t, b, 2, [][]string{{`INSERT INTO t (id, v) VALUES (1, 'a')`}})
		b.Close()
	}
	if err := sqlite.MakeTriggerEra(path); err != nil {
		t.Fatal(err)
	}
	writeOutOfBand(t, path, `UPDATE t SET v = 'tampered'`) // captured by the trigger
	b, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Begin(ctx); !errors.Is(err, backend.ErrOutOfBandChange) || !strings.Contains(err.Error(), "in t (2)") {
		t.Fatalf("Begin with out-of-band records left by a trigger: %v, want ErrOutOfBandChange naming t", err)
	}
	raw, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	st, _, err := raw.Prepare(`SELECT group_concat(name, ' ' ORDER BY name) FROM sqlite_schema WHERE type = 'trigger'`)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Step() || st.ColumnText(0) != "relchain_cap_g_t" {
		t.Fatalf("triggers after opening with hook capture: %q, want only the rowid guard relchain_cap_g_t", st.ColumnText(0))
	}
	// Undo the write and its records (the repair `relchain recover` makes
	// by restoring a checkpoint), then both databases go on alike.
	if err := raw.Exec(`UPDATE t SET v = 'a'; DELETE FROM relchain_changes`); err != nil {
		t.Fatal(err)
	}
	other, err := sqlite.Open(ctx, twin)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	blocks := [][][]string{{{`UPDATE t SET v = 'b'`, `INSERT INTO t (id, v) VALUES (2, 'x')`}}, {{`DELETE FROM t WHERE id = 1`}}}
	for i, txs := range blocks {
		want, got := runBlock(t, other, int64(3+i), txs), runBlock(t, b, int64(3+i), txs)
		if !bytes.Equal(want.changes.Block, got.changes.Block) || !bytes.Equal(want.state, got.state) {
			t.Fatalf("block %d: digests differ between the migrated database and its twin", 3+i)
		}
	}
}
