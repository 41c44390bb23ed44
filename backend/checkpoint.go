package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Checkpoint is one checkpoint file of a node: checkpoint-<height><ext>,
// a copy of its database as committed at that height.
type Checkpoint struct {
	Height int64
	Path   string
}

// CheckpointName is the file name of the checkpoint at height.
func CheckpointName(height int64, ext string) string {
	return fmt.Sprintf("checkpoint-%d%s", height, ext)
}

// ListCheckpoints lists the checkpoints with extension ext in dir, newest
// first. A missing dir holds none.
func ListCheckpoints(dir, ext string) ([]Checkpoint, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	var out []Checkpoint
	for _, e := range entries {
		h, ok := strings.CutPrefix(e.Name(), "checkpoint-")
		if !ok || !strings.HasSuffix(h, ext) {
			continue
		}
		height, err := strconv.ParseInt(strings.TrimSuffix(h, ext), 10, 64)
		if err != nil {
			continue
		}
		out = append(out, Checkpoint{Height: height, Path: filepath.Join(dir, e.Name())})
	}
	slices.SortFunc(out, func(a, b Checkpoint) int { return int(b.Height - a.Height) })
	return out, nil
}

// PruneCheckpoints removes all but the newest checkpoint and the keep
// before it. The newest is not yet confirmed by the chain when it is taken
// (the next block's header carries the AppHash every validator agreed on):
// if this node deviated at that very block, the newest is useless to
// recover, and pruning must not have removed the good ones for it.
func PruneCheckpoints(dir, ext string, keep int) error {
	cps, err := ListCheckpoints(dir, ext)
	if err != nil {
		return err
	}
	for _, cp := range cps[min(keep+1, len(cps)):] {
		if err := os.Remove(cp.Path); err != nil {
			return fmt.Errorf("checkpoint: prune %s: %w", cp.Path, err)
		}
	}
	return nil
}

// Checkpointer runs at most one background checkpoint at a time: a
// checkpoint that falls due while the previous one runs is skipped.
type Checkpointer struct {
	// OnError, if set, is called with every failed checkpoint's error.
	OnError func(error)

	mu      sync.Mutex
	running bool
	wg      sync.WaitGroup
	lastErr error
	last    CheckpointRun
}

// CheckpointRun is a finished background checkpoint: when it started, how
// long it took and its error. A measurement of this node's clock for
// operators (metrics); nothing in consensus reads it.
type CheckpointRun struct {
	Start time.Time
	Took  time.Duration
	Err   error
}

// Start runs take in the background unless a checkpoint is running.
func (c *Checkpointer) Start(take func() error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return
	}
	c.running = true
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		start := time.Now()
		err := take()
		took := time.Since(start)
		if err != nil && c.OnError != nil {
			c.OnError(err)
		}
		c.mu.Lock()
		c.running, c.lastErr = false, err
		c.last = CheckpointRun{Start: start, Took: took, Err: err}
		c.mu.Unlock()
	}()
}

// StartDue starts take in the background after block height committed if
// a checkpoint is due (every > 0 and height a multiple of every) and none
// is running. take gets a context that ends after an hour.
func (c *Checkpointer) StartDue(height, every int64, take func(context.Context) error) {
	if every <= 0 || height%every != 0 {
		return
	}
	c.Start(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		return take(ctx)
	})
}

// Wait waits for a running checkpoint to finish.
func (c *Checkpointer) Wait() { c.wg.Wait() }

// Last is the last finished checkpoint (zero before the first).
func (c *Checkpointer) Last() CheckpointRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Err is the error of the last checkpoint, if it failed.
func (c *Checkpointer) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// TakeCheckpointNow takes one checkpoint into dir at once, outside any
// schedule (relchain checkpoint, relchain backup): dump writes the database,
// in one snapshot, into the file tmp (which does not exist yet) and says the
// height committed in that snapshot. tmp lies in a directory of its own
// inside dir, so a background checkpoint of a running node, which uses its
// own temporary name, is never disturbed; only a complete file is renamed
// checkpoint-<height><ext>. Nothing is pruned.
func TakeCheckpointNow(dir, ext string, dump func(tmp string) (height int64, err error)) (Checkpoint, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	work, err := os.MkdirTemp(dir, ".checkpoint-now-")
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	defer os.RemoveAll(work)
	tmp := filepath.Join(work, "checkpoint"+ext)
	height, err := dump(tmp)
	if err != nil {
		return Checkpoint{}, err
	}
	cp := Checkpoint{Height: height, Path: filepath.Join(dir, CheckpointName(height, ext))}
	if err := os.Rename(tmp, cp.Path); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	return cp, nil
}
