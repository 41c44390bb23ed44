package node

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/internal/dbrestore"
	"github.com/relchain/relchain/snapshot"
	"github.com/relchain/relchain/txn"
)

// sourceDB makes a SQLite database of a few blocks, a checkpoint of it,
// and returns the checkpoint and the AppHash the chain committed for it.
func sourceDB(t *testing.T) (backend.Checkpoint, []byte) {
	return checkpointAfter(t, app.DefaultParams(), nil,
		"CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)",
		"INSERT INTO acct (id, bal) VALUES (1, 10), (2, 20), (3, 30)",
		"UPDATE acct SET bal = bal + 1 WHERE id = 2")
}

// checkpointAfter makes a SQLite database (opened with opts) of a chain
// of params, one block per statement, takes a checkpoint of it and
// returns the checkpoint and the AppHash the chain committed for it.
func checkpointAfter(t *testing.T, params app.Params, opts []sqlite.Option, stmts ...string) (backend.Checkpoint, []byte) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "src.db")
	be, err := sqlite.Open(ctx, path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := app.NewExecutor(ctx, be, "c", params)
	if err != nil {
		t.Fatal(err)
	}
	runBlocks(t, ex, "c", stmts...)
	appHash := ex.State().AppHash
	be.Close()
	if err := sqlite.TakeCheckpoint(path, filepath.Join(dir, "cps"), 2); err != nil {
		t.Fatal(err)
	}
	cps, err := sqlite.Checkpoints(filepath.Join(dir, "cps"))
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints: %v %v", cps, err)
	}
	return cps[0], appHash
}

// runBlocks commits one block per statement, each one tx of a fresh key's.
func runBlocks(t *testing.T, ex *app.Executor, chainID string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	_, key, _ := ed25519.GenerateKey(nil)
	for i, sql := range stmts {
		tx := &txn.Tx{ChainID: chainID, Nonce: uint64(i + 1), Statements: []txn.Statement{{SQL: sql}}}
		tx.Sign(key)
		h := ex.State().Height + 1
		res, _, err := ex.FinalizeBlock(ctx, app.BlockInfo{Height: h, Time: time.Unix(h, 0).UTC(), Hash: []byte{byte(h)}}, [][]byte{txn.Encode(tx)})
		if err != nil || res[0].Code != 0 {
			t.Fatalf("block %d: %v %+v", h, err, res)
		}
		if _, err := ex.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// joiner is an empty SQLite node home's state sync.
func joiner(t *testing.T) *stateSync {
	t.Helper()
	home := t.TempDir()
	rc := DefaultConfig()
	be, err := OpenBackend(context.Background(), home, rc)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := app.NewExecutor(context.Background(), be, "c", app.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Backend().Close() })
	return newStateSync(home, rc, ex, log.NewNopLogger())
}

// offer serves cp as a snapshot in chunks of 1 KiB and feeds it to s with
// the trusted AppHash; it returns the last chunk's verdict.
func offer(t *testing.T, s *stateSync, cp backend.Checkpoint, appHash []byte) *abci.ResponseApplySnapshotChunk {
	t.Helper()
	src := newStateSync(t.TempDir(), DefaultConfig(), nil, log.NewNopLogger()).src
	src.List = func() ([]backend.Checkpoint, error) { return []backend.Checkpoint{cp}, nil }
	src.ChunkSize = 1 << 10
	defer src.Close()
	return offerFrom(t, s, src, appHash)
}

// offerFrom feeds src's one snapshot to s with the trusted AppHash; it
// returns the last chunk's verdict.
func offerFrom(t *testing.T, s *stateSync, src *snapshot.Source, appHash []byte) *abci.ResponseApplySnapshotChunk {
	t.Helper()
	ctx := context.Background()
	snaps, err := src.Snapshots(10)
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots: %v %v", snaps, err)
	}
	res, err := s.OfferSnapshot(ctx, &abci.RequestOfferSnapshot{Snapshot: snaps[0], AppHash: appHash})
	if err != nil || res.Result != abci.ResponseOfferSnapshot_ACCEPT {
		t.Fatalf("offer: %v %v", res, err)
	}
	var last *abci.ResponseApplySnapshotChunk
	for i := uint32(0); i < snaps[0].Chunks; i++ {
		chunk, err := src.Chunk(snaps[0].Height, snaps[0].Format, i)
		if err != nil {
			t.Fatal(err)
		}
		last, err = s.ApplySnapshotChunk(ctx, &abci.RequestApplySnapshotChunk{Index: i, Chunk: chunk, Sender: fmt.Sprint("peer", i%2)})
		if err != nil {
			t.Fatal(err)
		}
		if i+1 < snaps[0].Chunks && last.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
			t.Fatalf("chunk %d: %v", i, last)
		}
	}
	return last
}

// A snapshot whose chunks all match its own manifest but whose contents
// were changed (a lying peer) is rejected with its senders; the honest
// one is installed, and the node then holds the chain's state.
func TestStateSyncRejectsALyingSnapshot(t *testing.T) {
	cp, appHash := sourceDB(t)
	lying := forged(t, cp, "DROP TRIGGER IF EXISTS relchain_cap_u_acct", "UPDATE acct SET bal = 1000000 WHERE id = 1")

	s := joiner(t)
	res := offer(t, s, lying, appHash)
	if res.Result != abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT || len(res.RejectSenders) != 2 {
		t.Fatalf("lying snapshot: %v, want REJECT_SNAPSHOT naming both senders", res)
	}
	if h := s.ex.State().Height; h != 0 {
		t.Fatalf("the node installed the lying snapshot (height %d)", h)
	}

	// The honest snapshot but a different trusted AppHash: rejected too.
	other := bytes.Repeat([]byte{7}, 32)
	if res := offer(t, s, cp, other); res.Result != abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT {
		t.Fatalf("snapshot against another AppHash: %v", res)
	}

	if res := offer(t, s, cp, appHash); res.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
		t.Fatalf("honest snapshot: %v", res)
	}
	st := s.ex.State()
	if st.Height != cp.Height || !bytes.Equal(st.AppHash, appHash) {
		t.Fatalf("after state sync the node is at %d/%X, want %d/%X", st.Height, st.AppHash, cp.Height, appHash)
	}
	rows, _, err := s.ex.Backend().Query(context.Background(), "SELECT bal FROM acct ORDER BY id", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[10] [21] [30]]" {
		t.Fatalf("restored rows %v, %v", rows, err)
	}
}

// forged is a copy of the checkpoint cp changed by stmts, run directly on
// its SQLite file (a lying peer's snapshot).
func forged(t *testing.T, cp backend.Checkpoint, stmts ...string) backend.Checkpoint {
	t.Helper()
	lying := backend.Checkpoint{Height: cp.Height, Path: filepath.Join(t.TempDir(), "lying.db")}
	if err := dbrestore.CopyFile(cp.Path, lying.Path); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite3.Open(lying.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return lying
}

// A chunk that does not match the manifest is refused before it is
// written: the verdict asks for it again and rejects its sender.
func TestStateSyncRefusesACorruptChunk(t *testing.T) {
	cp, appHash := sourceDB(t)
	s := joiner(t)
	src := newStateSync(t.TempDir(), DefaultConfig(), nil, log.NewNopLogger()).src
	src.List = func() ([]backend.Checkpoint, error) { return []backend.Checkpoint{cp}, nil }
	defer src.Close()
	snaps, _ := src.Snapshots(1)
	ctx := context.Background()
	if res, _ := s.OfferSnapshot(ctx, &abci.RequestOfferSnapshot{Snapshot: snaps[0], AppHash: appHash}); res.Result != abci.ResponseOfferSnapshot_ACCEPT {
		t.Fatalf("offer: %v", res)
	}
	chunk, err := src.Chunk(snaps[0].Height, snaps[0].Format, 0)
	if err != nil {
		t.Fatal(err)
	}
	chunk[len(chunk)/2] ^= 0xff // as a byzantine server (testhooks.go) serves it
	res, _ := s.ApplySnapshotChunk(ctx, &abci.RequestApplySnapshotChunk{Index: 0, Chunk: chunk, Sender: "bad"})
	if res.Result != abci.ResponseApplySnapshotChunk_RETRY || len(res.RefetchChunks) != 1 || res.RefetchChunks[0] != 0 || len(res.RejectSenders) != 1 || res.RejectSenders[0] != "bad" {
		t.Fatalf("corrupt chunk: %v, want RETRY of chunk 0 rejecting sender bad", res)
	}
}
