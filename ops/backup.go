package ops

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/internal/dbrestore"
	"github.com/relchain/relchain/node"
)

// BackupFormat names the layout of a backup file (BackupManifest.Format).
const BackupFormat = "relchain-backup-v1"

// manifestName is the first entry of a backup file.
const manifestName = "manifest.json"

// BackupManifest describes a backup file: a tar holding manifest.json and
// then one checkpoint file of the backend (the same file a checkpoint,
// recover and state sync use).
type BackupManifest struct {
	Format  string `json:"format"`
	ChainID string `json:"chain_id"`
	Backend string `json:"backend"`
	// Height and AppHash (hex) are the committed state the checkpoint
	// holds: its rows reproduce that AppHash (checked when it was taken).
	Height  int64  `json:"height"`
	AppHash string `json:"app_hash"`
	// File is the checkpoint's name in the tar, Size its length and SHA256
	// its digest (hex).
	File    string `json:"file"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
	Created string `json:"created"`
}

// Progress, when not nil, is told of a long copy of total bytes (0:
// unknown) described by what; it returns a writer that counts the bytes
// copied and a function to call when the copy ends.
type Progress func(what string, total int64) (w io.Writer, done func())

func (p Progress) start(what string, total int64) (io.Writer, func()) {
	if p == nil {
		return io.Discard, func() {}
	}
	return p(what, total)
}

// TakeCheckpoint takes a checkpoint of a node's database now, into its
// checkpoint directory, while the node may be running (one snapshot of the
// committed state, as the scheduled checkpoints), and prunes the older
// ones as relchain.toml [checkpoint] keep says.
func TakeCheckpoint(ctx context.Context, home string) (backend.Checkpoint, error) {
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	cp, err := checkpointNow(ctx, home, rc, node.CheckpointDir(home))
	if err != nil {
		return cp, err
	}
	d, _ := registry.Lookup(rc.Backend.Kind)
	if rc.Checkpoint.Keep > 0 {
		cps, err := d.Checkpoints(node.CheckpointDir(home))
		if err != nil {
			return cp, err
		}
		for _, old := range cps[min(rc.Checkpoint.Keep+1, len(cps)):] {
			if old.Height != cp.Height {
				_ = os.Remove(old.Path)
			}
		}
	}
	return cp, nil
}

// checkpointNow takes a checkpoint of a node home's database into dir.
func checkpointNow(ctx context.Context, home string, rc node.Config, dir string) (backend.Checkpoint, error) {
	d, s, err := rc.BackendSpec(home)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	if d.CheckpointNow == nil {
		return backend.Checkpoint{}, fmt.Errorf("the %s backend cannot take a checkpoint on demand: %w", d.Name, errors.ErrUnsupported)
	}
	if !d.Server {
		if _, err := os.Stat(s.DSN); err != nil {
			return backend.Checkpoint{}, fmt.Errorf("no database to copy: %w", err)
		}
	}
	cp, err := d.CheckpointNow(ctx, s, dir)
	if err != nil {
		return cp, err
	}
	if cp.Height == 0 {
		_ = os.Remove(cp.Path)
		return cp, fmt.Errorf("the database holds no block yet: nothing to back up")
	}
	return cp, nil
}

// BackupOptions say how Backup writes.
type BackupOptions struct {
	// Progress shows the copy into the backup file.
	Progress Progress
	// Portable writes, for a server-database validator of a network over
	// several engines, the checkpoint as a SQLite database speaking
	// PostgreSQL's SQL (as its portable snapshots are), which a node of
	// any engine of the network restores.
	Portable bool
}

// Backup writes a backup of a node's database to the file output: a
// checkpoint taken now (the node may be running), verified before it is
// written — its rows must reproduce the AppHash it records, as recover
// verifies a checkpoint — with a manifest of its chain, height, AppHash and
// digest. The file appears under its name only when complete.
func Backup(ctx context.Context, home, output string, o BackupOptions) (BackupManifest, error) {
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		return BackupManifest{}, err
	}
	gen, err := cmttypes.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		return BackupManifest{}, fmt.Errorf("backup: read the genesis: %w", err)
	}
	work, err := os.MkdirTemp(filepath.Join(home, "data"), "backup-")
	if err != nil {
		return BackupManifest{}, fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(work)
	cp, err := checkpointNow(ctx, home, rc, work)
	if err != nil {
		return BackupManifest{}, fmt.Errorf("backup: %w", err)
	}
	st, err := verifyCheckpoint(ctx, home, rc, work, cp, nil)
	if err != nil {
		return BackupManifest{}, fmt.Errorf("backup: the checkpoint taken does not verify: %w", err)
	}
	kind := rc.Backend.Kind
	if o.Portable && kind != dialect.Portable {
		if cp, err = portableCheckpoint(ctx, home, rc, gen, cp, filepath.Join(work, "portable")); err != nil {
			return BackupManifest{}, fmt.Errorf("backup --portable: %w", err)
		}
		kind = dialect.Portable
	}
	m := BackupManifest{Format: BackupFormat, ChainID: gen.ChainID, Backend: kind,
		Height: st.Height, AppHash: hex.EncodeToString(st.AppHash), File: filepath.Base(cp.Path),
		Created: time.Now().UTC().Format(time.RFC3339)}
	if m.Size, m.SHA256, err = digestFile(cp.Path); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	if err := writeBackup(output, m, cp.Path, o.Progress); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	return m, nil
}

// portableCheckpoint exports cp, a checkpoint of a server database of a
// network over several engines, into dir as a SQLite database speaking
// PostgreSQL's SQL (dbrestore.Exporter: it must reproduce cp's AppHash).
func portableCheckpoint(ctx context.Context, home string, rc node.Config, gen *cmttypes.GenesisDoc, cp backend.Checkpoint, dir string) (backend.Checkpoint, error) {
	params, err := app.ParseParams(gen.AppState)
	if err != nil {
		return cp, err
	}
	r, err := rc.Restorer(home)
	if err != nil {
		return cp, err
	}
	dbrestore.Scratch(r, dir) // its scratch database apart from the running node's exports
	ex, ok := dbrestore.Export(r)
	if !params.Mixed() || !ok {
		return cp, fmt.Errorf("only a validator of a network over several engines writes a portable backup (docs/mixed-networks.md); this one's genesis lists %v", params.Engines())
	}
	return ex.ExportSQLite(ctx, cp, dir)
}

// verifyCheckpoint restores cp beside nothing live (a file under work, or
// a database named after the node's with a suffix of its own), checks it
// as recover does against appHash (nil: the one it holds) and removes what
// it restored.
func verifyCheckpoint(ctx context.Context, home string, rc node.Config, work string, cp backend.Checkpoint, appHash []byte) (backend.State, error) {
	r, err := rc.Restorer(home)
	if err != nil {
		return backend.State{}, err
	}
	dbrestore.Scratch(r, work)
	if err := r.Stage(ctx, cp, appHash); err != nil {
		return backend.State{}, err
	}
	r.Discard(ctx)
	return r.Verified(), nil
}

func digestFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// writeBackup writes the tar of m and the checkpoint file to output
// through a temporary file in its directory, synced and then renamed.
func writeBackup(output string, m BackupManifest, checkpoint string, progress Progress) (err error) {
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(output), "."+filepath.Base(output)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	tw := tar.NewWriter(tmp)
	mod := time.Now().UTC()
	if err := tw.WriteHeader(&tar.Header{Name: manifestName, Mode: 0o644, Size: int64(len(mj)), ModTime: mod, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(mj); err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: m.File, Mode: 0o644, Size: m.Size, ModTime: mod, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	in, err := os.Open(checkpoint)
	if err != nil {
		return err
	}
	defer in.Close()
	pw, done := progress.start("backup", m.Size)
	_, err = io.Copy(io.MultiWriter(tw, pw), in)
	done()
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), output); err != nil {
		return err
	}
	return dbrestore.SyncDir(filepath.Dir(output))
}

// Dump writes the replicated tables of a node's database to w as SQL text
// (registry.Driver.Dump) and returns the height it reflects; the node may
// be running.
func Dump(ctx context.Context, home string, w io.Writer) (int64, error) {
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		return 0, err
	}
	d, s, err := rc.BackendSpec(home)
	if err != nil {
		return 0, err
	}
	if d.Dump == nil {
		return 0, fmt.Errorf("dump: the %s backend has no dump in relchain yet (use its own tools, leaving out the relchain schema or relchain_* tables): %w", d.Name, errors.ErrUnsupported)
	}
	if !d.Server {
		if _, err := os.Stat(s.DSN); err != nil {
			return 0, fmt.Errorf("dump: no database: %w", err)
		}
	}
	return d.Dump(ctx, s, w)
}
