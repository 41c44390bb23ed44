package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// WithCheckpoints makes the backend copy its database into dir every
// `every` committed blocks (checkpoint-<height>.db), keeping the newest
// keep; onError (may be nil) hears of every failed checkpoint. A checkpoint is taken with VACUUM INTO on a connection of its own,
// in the background: it reads one WAL snapshot, so blocks go on committing
// while it runs, and it is named by the height that snapshot holds. When
// the previous checkpoint is still being written, a due one is skipped.
// Checkpoints are this node's own: nothing about them enters consensus.
func WithCheckpoints(dir string, every int64, keep int, onError func(error)) Option {
	return func(o *options) {
		o.ckptDir, o.ckptEvery, o.ckptKeep, o.ckptOnError = dir, every, max(keep, 1), onError
	}
}

// checkpointExt is the extension of SQLite checkpoints.
const checkpointExt = ".db"

// maybeCheckpoint starts a checkpoint after block height committed, if
// one is due and none is running.
func (b *Backend) maybeCheckpoint(height int64) {
	b.ckpt.StartDue(height, b.opts.ckptEvery, func(context.Context) error {
		return TakeCheckpoint(b.path, b.opts.ckptDir, b.opts.ckptKeep)
	})
}

// CheckpointError is the error of the last background checkpoint, if it
// failed (a failed checkpoint never stops blocks).
func (b *Backend) CheckpointError() error { return b.ckpt.Err() }

// WaitCheckpoint waits for a running checkpoint to finish.
func (b *Backend) WaitCheckpoint() { b.ckpt.Wait() }

// LastCheckpoint is the last finished background checkpoint (metrics).
func (b *Backend) LastCheckpoint() backend.CheckpointRun { return b.ckpt.Last() }

// TakeCheckpoint copies the database at path into dir as
// checkpoint-<height>.db, where height is the committed height of the
// snapshot it copied, and keeps the newest keep checkpoints. The copy is
// written under a temporary name and renamed when complete, so a crash
// never leaves a partial file under a checkpoint's name.
func TakeCheckpoint(path, dir string, keep int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := filepath.Join(dir, "checkpoint.tmp")
	_ = os.Remove(tmp)
	height, err := vacuumInto(path, tmp)
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, backend.CheckpointName(height, checkpointExt))); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return backend.PruneCheckpoints(dir, checkpointExt, keep)
}

// CheckpointNow copies the database at path into dir at once
// (backend.TakeCheckpointNow), as the background checkpoints do: VACUUM
// INTO on a read-only connection of its own reads one WAL snapshot, so a
// running node goes on committing blocks. Nothing is pruned.
func CheckpointNow(path, dir string) (backend.Checkpoint, error) {
	return backend.TakeCheckpointNow(dir, checkpointExt, func(tmp string) (int64, error) { return vacuumInto(path, tmp) })
}

// vacuumInto copies the database at path into the new file tmp and returns
// the committed height of the copy.
func vacuumInto(path, tmp string) (int64, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	src, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return 0, fmt.Errorf("checkpoint: open %s: %w", path, err)
	}
	err = src.Exec("VACUUM INTO " + quoteLiteral(tmp))
	src.Close()
	if err != nil {
		return 0, fmt.Errorf("checkpoint: copy %s: %w", path, err)
	}
	if err := stripHistory(tmp); err != nil {
		return 0, err
	}
	return checkpointHeight(tmp)
}

// stripHistory drops the row history from the copy at path: history is
// the node's own, never part of a checkpoint (history.go). secure_delete
// overwrites the pages it held; the backend that opens the copy creates
// the tables again, empty.
func stripHistory(path string) error {
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer c.Close()
	err = c.Exec("PRAGMA secure_delete = ON; BEGIN; DROP TABLE IF EXISTS relchain_history_versions; DROP TABLE IF EXISTS relchain_history_blocks; DROP TABLE IF EXISTS relchain_history_states; DROP TABLE IF EXISTS relchain_history_roots; COMMIT")
	if err != nil {
		return fmt.Errorf("checkpoint %s: drop the row history: %w", path, err)
	}
	return nil
}

// checkpointHeight reads the committed height stored in a database file.
func checkpointHeight(path string) (int64, error) {
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return 0, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer c.Close()
	st, err := readState(c)
	if err != nil {
		return 0, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return st.Height, nil
}

// Checkpoints lists the SQLite checkpoints in dir, newest first.
func Checkpoints(dir string) ([]backend.Checkpoint, error) {
	return backend.ListCheckpoints(dir, checkpointExt)
}
