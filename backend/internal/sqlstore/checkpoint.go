package sqlstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/relchain/relchain/backend"
)

// CheckpointOptions are what a server backend's WithCheckpoints asks for:
// a dump of the database every Every committed blocks into Dir (as
// checkpoint-<height><ext>, the extension the backend's dump format has),
// keeping the newest Keep (at least one); OnError (may be nil) hears of
// every failed checkpoint, which never stops blocks. The dump runs in the
// background on one read-only snapshot that also reads the height, so it
// is exactly the state committed at that height while blocks go on
// committing.
type CheckpointOptions struct {
	Dir     string
	Every   int64
	Keep    int
	OnError func(error)
}

// NewCheckpointOptions is CheckpointOptions with keep raised to at least
// one: a node always keeps a checkpoint to recover from.
func NewCheckpointOptions(dir string, every int64, keep int, onError func(error)) CheckpointOptions {
	return CheckpointOptions{Dir: dir, Every: every, Keep: max(keep, 1), OnError: onError}
}

// Checkpointing runs a server backend's background checkpoints, at most
// one at a time (a checkpoint that falls due while one runs is skipped).
type Checkpointing struct {
	opts   CheckpointOptions
	ext    string
	runner backend.Checkpointer
}

// Configure applies o, once, when the backend opens; ext is the extension
// of the backend's checkpoint files.
func (c *Checkpointing) Configure(o CheckpointOptions, ext string) {
	c.opts, c.ext = o, ext
	c.runner.OnError = o.OnError
}

// CheckpointError is the error of the last background checkpoint, if it
// failed (a failed checkpoint never stops blocks).
func (c *Checkpointing) CheckpointError() error { return c.runner.Err() }

// WaitCheckpoint waits for a running checkpoint to finish.
func (c *Checkpointing) WaitCheckpoint() { c.runner.Wait() }

// LastCheckpoint is the last finished background checkpoint.
func (c *Checkpointing) LastCheckpoint() backend.CheckpointRun { return c.runner.Last() }

// MaybeCheckpoint takes a checkpoint in the background after block height
// committed (WriteCheckpoint with dump), if one is due and none is running.
func (c *Checkpointing) MaybeCheckpoint(height int64, dump func(ctx context.Context, tmp string) (int64, error)) {
	c.runner.StartDue(height, c.opts.Every, func(ctx context.Context) error {
		return WriteCheckpoint(ctx, c.opts, c.ext, dump)
	})
}

// WriteCheckpoint takes one checkpoint as o asks: dump writes the
// database, in one snapshot, into the file tmp (creating or replacing it)
// and says the height committed in that snapshot. Only a complete file is
// renamed checkpoint-<height><ext>, so a crash leaves no partial
// checkpoint; the older ones are then pruned to o.Keep.
func WriteCheckpoint(ctx context.Context, o CheckpointOptions, ext string, dump func(ctx context.Context, tmp string) (height int64, err error)) error {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := filepath.Join(o.Dir, "checkpoint.tmp")
	height, err := dump(ctx, tmp)
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(o.Dir, backend.CheckpointName(height, ext))); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return backend.PruneCheckpoints(o.Dir, ext, o.Keep)
}
