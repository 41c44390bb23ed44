package dbrestore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
)

// For is the Restorer of a node's database: a server's
// (registry.Driver.Restore) at live.DSN, or a file's at file, for the
// backend called kind. A restored database is opened to verify it as the
// node opens its own (live's privilege setting and SQL dialect: a
// translated dialect's tables have canonical rows, and the AppHash of
// protocol version 4 commits to them), with the gate on and no
// checkpoints of its own.
func For(kind, file string, live registry.Spec) (Restorer, error) {
	d, err := registry.Lookup(kind)
	if err != nil {
		return nil, err
	}
	open := func(ctx context.Context, dsn string) (backend.Backend, error) {
		return d.Open(ctx, registry.Spec{DSN: dsn, UnsafeSuperuser: live.UnsafeSuperuser,
			SQLDialect: live.SQLDialect, SQLDialectVersion: live.SQLDialectVersion})
	}
	if d.Restore == nil {
		return &fileRestorer{db: file, checkpoints: d.Checkpoints, open: open}, nil
	}
	return &serverRestorer{ops: *d.Restore, checkpoints: d.Checkpoints, open: open, dsn: live.DSN, live: live, driver: d}, nil
}

// Scratch makes r stage beside nothing live: a file database under work
// (work/verify.db), a server's database named after the node's with the
// suffix _backupcheck (relchain backup checks its checkpoint so).
func Scratch(r Restorer, work string) {
	switch r := r.(type) {
	case *fileRestorer:
		r.db = filepath.Join(work, "verify.db")
	case *serverRestorer:
		r.suffix = "_backupcheck"
	}
}

// Restorer is a backend's side of Recover and of state sync.
type Restorer interface {
	List(dir string) ([]backend.Checkpoint, error)
	// Stage restores cp beside the live database and verifies it against
	// appHash, the chain's AppHash at cp's height (nil: the AppHash it
	// holds, once its contents reproduce it); Verified says what it held.
	Stage(ctx context.Context, cp backend.Checkpoint, appHash []byte) error
	Verified() backend.State
	// Discard removes what Stage made.
	Discard(ctx context.Context)
	// Install replaces the live database by the staged one and says
	// where the replaced one lies.
	Install(ctx context.Context, stamp string) (string, error)
	// DropReplaced deletes the database Install set aside.
	DropReplaced(ctx context.Context) error
}

// verifyStaged checks a restored database: it must hold cp's height with
// the chain's AppHash for it, and its contents must reproduce that AppHash
// (app.VerifyState: a scan of every table, the system state and the
// block's recorded AppHash inputs), and a block must start on it. A nil
// appHash accepts the AppHash the database holds once its contents
// reproduce it (relchain backup learns it so); the state verified is
// returned.
func verifyStaged(ctx context.Context, be backend.Backend, cp backend.Checkpoint, appHash []byte) (backend.State, error) {
	st, err := app.VerifyState(ctx, be)
	switch {
	case err != nil:
		return st, err
	case st.Height != cp.Height:
		return st, fmt.Errorf("it holds height %d, its name says %d", st.Height, cp.Height)
	case appHash != nil && !bytes.Equal(st.AppHash, appHash):
		return st, fmt.Errorf("its AppHash %X is not the chain's %X at height %d", st.AppHash, appHash, cp.Height)
	}
	// A block must be able to start on it: no change records that no
	// block made (backend.ErrOutOfBandChange).
	blk, err := be.Begin(ctx)
	if err != nil {
		return st, fmt.Errorf("no block can start on it: %w", err)
	}
	return st, blk.Rollback(ctx)
}

// fileRestorer restores a checkpoint of a file database (a copy of the
// file) beside the node's (<file>.recover), verifies it and moves it in,
// keeping the replaced one as <file>.replaced-<stamp>.
type fileRestorer struct {
	db, replaced string
	state        backend.State
	checkpoints  func(dir string) ([]backend.Checkpoint, error)
	open         func(ctx context.Context, path string) (backend.Backend, error)
}

func (r *fileRestorer) staged() string { return r.db + ".recover" }

func (r *fileRestorer) List(dir string) ([]backend.Checkpoint, error) { return r.checkpoints(dir) }

func (r *fileRestorer) Stage(ctx context.Context, cp backend.Checkpoint, appHash []byte) error {
	_ = removeDB(r.staged())
	if err := CopyFile(cp.Path, r.staged()); err != nil {
		return err
	}
	be, err := r.open(ctx, r.staged())
	if err != nil {
		_ = removeDB(r.staged())
		return err
	}
	r.state, err = verifyStaged(ctx, be, cp, appHash)
	if cerr := be.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = removeDB(r.staged())
	}
	return err
}

func (r *fileRestorer) Verified() backend.State { return r.state }

func (r *fileRestorer) Discard(context.Context) { _ = removeDB(r.staged()) }

func (r *fileRestorer) Install(_ context.Context, stamp string) (string, error) {
	replaced := r.db + ".replaced-" + stamp
	if err := moveDB(r.db, replaced); err != nil {
		return "", fmt.Errorf("set the old database aside: %w", err)
	}
	if err := moveDB(r.staged(), r.db); err != nil {
		return "", fmt.Errorf("install the checkpoint: %w", err)
	}
	r.replaced = replaced
	return replaced, nil
}

func (r *fileRestorer) DropReplaced(context.Context) error {
	if r.replaced == "" {
		return nil
	}
	return removeDB(r.replaced)
}

// serverRestorer restores a checkpoint of a database-server backend into
// a database beside the node's (<name>_recover), verifies it, and swaps it
// in, keeping the replaced one as <name>_replaced_<stamp>.
type serverRestorer struct {
	ops         registry.ServerOps
	checkpoints func(dir string) ([]backend.Checkpoint, error)
	open        func(ctx context.Context, dsn string) (backend.Backend, error)
	dsn         string
	live        registry.Spec // the node's own database
	driver      registry.Driver
	suffix      string // of the staged database's name; "_recover" when empty
	staged      string // database name
	replaced    string // database name
	state       backend.State
}

func (r *serverRestorer) Verified() backend.State { return r.state }

func (r *serverRestorer) List(dir string) ([]backend.Checkpoint, error) { return r.checkpoints(dir) }

func (r *serverRestorer) Stage(ctx context.Context, cp backend.Checkpoint, appHash []byte) error {
	name, err := r.ops.DatabaseName(r.dsn)
	if err != nil {
		return err
	}
	r.staged = name + cmp.Or(r.suffix, "_recover")
	stagedDSN, err := r.ops.Restore(ctx, r.dsn, cp, r.staged)
	if err != nil {
		return err
	}
	be, err := r.open(ctx, stagedDSN)
	if err == nil {
		r.state, err = verifyStaged(ctx, be, cp, appHash)
		if cerr := be.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		r.Discard(ctx)
	}
	return err
}

func (r *serverRestorer) Discard(ctx context.Context) {
	if r.staged != "" {
		_ = r.ops.Drop(ctx, r.dsn, r.staged)
	}
}

func (r *serverRestorer) Install(ctx context.Context, stamp string) (string, error) {
	name, err := r.ops.DatabaseName(r.dsn)
	if err != nil {
		return "", err
	}
	replaced := name + "_replaced_" + strings.ToLower(stamp)
	if err := r.ops.Swap(ctx, r.dsn, r.staged, replaced); err != nil {
		return "", err
	}
	r.replaced = replaced
	return "database " + replaced, nil
}

func (r *serverRestorer) DropReplaced(ctx context.Context) error {
	if r.replaced == "" {
		return nil
	}
	return r.ops.Drop(ctx, r.dsn, r.replaced)
}

// CopyFile copies from into a new file to, synced to disk.
func CopyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// dbFiles are a SQLite database's files.
func dbFiles(path string) []string { return []string{path, path + "-wal", path + "-shm"} }

// moveDB renames a database with its WAL and shared-memory files.
func moveDB(from, to string) error {
	for i, f := range dbFiles(from) {
		if err := os.Rename(f, dbFiles(to)[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return SyncDir(filepath.Dir(to))
}

// removeDB removes a database with its WAL and shared-memory files.
func removeDB(path string) error {
	for _, f := range dbFiles(path) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// SyncDir syncs directory dir (a rename in it is then durable).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
