package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// WithCheckpoints makes the backend copy its database into dir every
// `every` committed blocks (checkpoint-<height>.db), keeping the newest
// keep. A checkpoint is taken with VACUUM INTO on a connection of its own,
// in the background: it reads one WAL snapshot, so blocks go on committing
// while it runs, and it is named by the height that snapshot holds. When
// the previous checkpoint is still being written, a due one is skipped.
// Checkpoints are this node's own: nothing about them enters consensus.
func WithCheckpoints(dir string, every int64, keep int) Option {
	return func(o *options) { o.ckptDir, o.ckptEvery, o.ckptKeep = dir, every, max(keep, 1) }
}

// checkpointer is the background copy's state.
type checkpointer struct {
	mu      sync.Mutex
	running bool
	wg      sync.WaitGroup
	lastErr error
}

// maybeCheckpoint starts a checkpoint after block height committed, if
// one is due and none is running.
func (b *Backend) maybeCheckpoint(height int64) {
	if b.opts.ckptEvery <= 0 || height%b.opts.ckptEvery != 0 {
		return
	}
	c := &b.ckpt
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return
	}
	c.running = true
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := TakeCheckpoint(b.path, b.opts.ckptDir, b.opts.ckptKeep)
		c.mu.Lock()
		c.running, c.lastErr = false, err
		c.mu.Unlock()
	}()
}

// CheckpointError is the error of the last background checkpoint, if it
// failed (the node logs it; a failed checkpoint never stops blocks).
func (b *Backend) CheckpointError() error {
	b.ckpt.mu.Lock()
	defer b.ckpt.mu.Unlock()
	return b.ckpt.lastErr
}

// WaitCheckpoint waits for a running checkpoint to finish.
func (b *Backend) WaitCheckpoint() { b.ckpt.wg.Wait() }

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
	src, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return fmt.Errorf("checkpoint: open %s: %w", path, err)
	}
	err = src.Exec("VACUUM INTO " + quoteLiteral(tmp))
	src.Close()
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("checkpoint: copy %s: %w", path, err)
	}
	height, err := checkpointHeight(tmp)
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, checkpointName(height))); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return pruneCheckpoints(dir, keep)
}

func checkpointName(height int64) string { return fmt.Sprintf("checkpoint-%d.db", height) }

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

// Checkpoint is one checkpoint file.
type Checkpoint struct {
	Height int64
	Path   string
}

// Checkpoints lists the checkpoints in dir, newest first. A missing dir
// holds none.
func Checkpoints(dir string) ([]Checkpoint, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	var out []Checkpoint
	for _, e := range entries {
		name := e.Name()
		h, ok := strings.CutPrefix(name, "checkpoint-")
		if !ok || !strings.HasSuffix(h, ".db") {
			continue
		}
		height, err := strconv.ParseInt(strings.TrimSuffix(h, ".db"), 10, 64)
		if err != nil {
			continue
		}
		out = append(out, Checkpoint{Height: height, Path: filepath.Join(dir, name)})
	}
	slices.SortFunc(out, func(a, b Checkpoint) int { return int(b.Height - a.Height) })
	return out, nil
}

func pruneCheckpoints(dir string, keep int) error {
	cps, err := Checkpoints(dir)
	if err != nil {
		return err
	}
	for _, cp := range cps[min(keep, len(cps)):] {
		if err := os.Remove(cp.Path); err != nil {
			return fmt.Errorf("checkpoint: prune %s: %w", cp.Path, err)
		}
	}
	return nil
}
