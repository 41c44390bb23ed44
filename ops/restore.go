package ops

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/internal/cometstore"
	"github.com/relchain/relchain/internal/dbrestore"
	"github.com/relchain/relchain/node"
)

// Limits on what a backup file may declare: a manifest is a few hundred
// bytes; a checkpoint may be large, but not beyond this.
const (
	maxManifestBytes   = 64 << 10
	maxCheckpointBytes = 1 << 40
)

// RestoreOptions say how Restore may proceed.
type RestoreOptions struct {
	// Force replaces a database that already holds blocks.
	Force bool
	// NodeURL is the RPC address of a node of the chain: it confirms the
	// backup's AppHash (the header of the next block) and, for a home
	// whose block store is empty, gives CometBFT's state at the backup's
	// height (light-client verified, as offline state sync).
	NodeURL string
	// RPC makes the RPC client of NodeURL (TLS settings); nil: plain.
	RPC RPCDialer
	// Progress shows the copy of the checkpoint out of the backup file.
	Progress Progress
}

// RestoreReport is what Restore did.
type RestoreReport struct {
	Manifest BackupManifest `json:"manifest"`
	// ConfirmedBy says where the chain's AppHash for the backup's height
	// came from ("block store", the node's URL), empty when nothing could
	// confirm it.
	ConfirmedBy string `json:"confirmed_by,omitempty"`
	// StateHeight is CometBFT's state height after the restore.
	StateHeight int64 `json:"state_height"`
	// Replaced is where the replaced database lies, if there was one.
	Replaced string `json:"replaced,omitempty"`
}

// ErrBadBackup marks a backup file that Restore refuses.
var ErrBadBackup = errors.New("refused backup")

// Restore restores a backup file into a stopped node's home. Before
// anything is written under the database's name it checks the file (the
// manifest, the checkpoint's size and SHA-256), restores the checkpoint
// beside the live database and verifies that its rows reproduce the
// manifest's AppHash, and that the chain's AppHash for that height (the
// header of the next block, from the node's block store or opts.NodeURL)
// is the same. A home whose CometBFT state is empty gets its state at the
// backup's height from opts.NodeURL (CometBFT's offline state sync
// bootstrap); a home whose state is at or past that height keeps it and
// replays the blocks after the backup from its block store when it starts.
func Restore(ctx context.Context, home, file string, opts RestoreOptions) (RestoreReport, error) {
	var rep RestoreReport
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		return rep, err
	}
	gen, err := cmttypes.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		return rep, fmt.Errorf("restore: read the genesis: %w", err)
	}
	existed, err := refuseLiveDatabase(ctx, home, rc, opts.Force)
	if err != nil {
		return rep, err
	}
	work, err := os.MkdirTemp(filepath.Join(home, "data"), "restore-")
	if err != nil {
		return rep, fmt.Errorf("restore: %w", err)
	}
	defer os.RemoveAll(work)
	m, cp, err := readBackup(file, work, opts.Progress)
	if err != nil {
		return rep, err
	}
	rep.Manifest = m
	r, err := rc.Restorer(home)
	if err != nil {
		return rep, fmt.Errorf("restore: %w", err)
	}
	stage, err := backupStage(gen, rc, m, r)
	if err != nil {
		return rep, err
	}
	want, _ := hex.DecodeString(m.AppHash)
	plan, err := planCometState(ctx, cc, m, want, opts)
	if err != nil {
		return rep, err
	}
	rep.ConfirmedBy = plan.confirmedBy
	if err := stage(ctx, cp, want); err != nil {
		return rep, fmt.Errorf("%w: the checkpoint does not verify: %v", ErrBadBackup, err)
	}
	if rep.StateHeight, err = plan.apply(ctx, cc); err != nil {
		r.Discard(ctx)
		return rep, fmt.Errorf("restore: CometBFT's state: %w", err)
	}
	if rep.Replaced, err = r.Install(ctx, time.Now().UTC().Format("20060102T150405Z")); err != nil {
		return rep, fmt.Errorf("restore: %w", err)
	}
	if !existed {
		rep.Replaced = ""
		_ = r.DropReplaced(ctx)
	}
	if err := node.ClearHaltRecord(home); err != nil {
		return rep, fmt.Errorf("restore: %w", err)
	}
	return rep, nil
}

// backupStage is how r stages the checkpoint of the backup m: r.Stage
// for a backup of the node's chain and engine; for one of another engine
// its genesis lists (a network over several engines), through the
// checkpoint's canonical rows (dbrestore.CrossEngine) if r can.
func backupStage(gen *cmttypes.GenesisDoc, rc node.Config, m BackupManifest, r dbrestore.Restorer) (func(context.Context, backend.Checkpoint, []byte) error, error) {
	refused := fmt.Errorf("%w: it is of chain %q on %s, this node is of chain %q on %s", ErrBadBackup, m.ChainID, m.Backend, gen.ChainID, rc.Backend.Kind)
	switch {
	case m.ChainID != gen.ChainID:
		return nil, refused
	case m.Backend == rc.Backend.Kind:
		return r.Stage, nil
	}
	params, err := app.ParseParams(gen.AppState)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	foreign, ok := dbrestore.Foreign(r, params, m.Backend)
	if !ok {
		return nil, fmt.Errorf("%w (a network over several engines restores a SQLite validator's backup on PostgreSQL, and a PostgreSQL or MariaDB validator's written with backup --portable anywhere: docs/mixed-networks.md)", refused)
	}
	return func(ctx context.Context, cp backend.Checkpoint, appHash []byte) error {
		return foreign.StageForeign(ctx, m.Backend, cp, appHash)
	}, nil
}

// refuseLiveDatabase refuses to restore over a database that holds blocks
// unless force, and says whether it holds blocks (then it is kept aside).
// A server's database is opened (and so created, empty, if it was not);
// a file database that does not exist is left so.
func refuseLiveDatabase(ctx context.Context, home string, rc node.Config, force bool) (bool, error) {
	d, s, err := rc.BackendSpec(home)
	if err != nil {
		return false, err
	}
	if !d.Server {
		if _, err := os.Stat(s.DSN); errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
	}
	be, err := node.OpenBackend(ctx, home, rc)
	if err != nil {
		return false, fmt.Errorf("restore: open the node's database: %w", err)
	}
	defer be.Close()
	st, err := be.LoadState(ctx)
	if err != nil {
		return false, fmt.Errorf("restore: read the node's database: %w", err)
	}
	if st.Height > 0 && !force {
		return true, fmt.Errorf("restore: the node's database already holds height %d; give --force to replace it (it is kept aside)", st.Height)
	}
	return st.Height > 0, nil
}

var checkpointFileName = regexp.MustCompile(`^checkpoint-([1-9][0-9]{0,18})\.[a-z]{1,16}$`)

// readBackup checks a backup file and copies its checkpoint into dir.
func readBackup(file, dir string, progress Progress) (BackupManifest, backend.Checkpoint, error) {
	var m BackupManifest
	f, err := os.Open(file)
	if err != nil {
		return m, backend.Checkpoint{}, fmt.Errorf("restore: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	if m, err = readManifest(tr); err != nil {
		return m, backend.Checkpoint{}, fmt.Errorf("%w: %s: %v", ErrBadBackup, file, err)
	}
	cp := backend.Checkpoint{Height: m.Height, Path: filepath.Join(dir, m.File)}
	if err := copyCheckpoint(tr, m, cp.Path, progress); err != nil {
		return m, cp, fmt.Errorf("%w: %s: %v", ErrBadBackup, file, err)
	}
	if _, err := tr.Next(); !errors.Is(err, io.EOF) {
		return m, cp, fmt.Errorf("%w: %s: something follows the checkpoint (or the end of the tar is damaged: %v)", ErrBadBackup, file, err)
	}
	return m, cp, nil
}

// readManifest reads and checks the first entry of a backup.
func readManifest(tr *tar.Reader) (BackupManifest, error) {
	var m BackupManifest
	h, err := tr.Next()
	if err != nil {
		return m, fmt.Errorf("not a relchain backup (a tar starting with %s): %w", manifestName, err)
	}
	if h.Name != manifestName || h.Typeflag != tar.TypeReg || h.Size <= 0 || h.Size > maxManifestBytes {
		return m, fmt.Errorf("not a relchain backup: its first entry is %q (%d bytes), not %s", h.Name, h.Size, manifestName)
	}
	b, err := io.ReadAll(io.LimitReader(tr, maxManifestBytes))
	if err != nil {
		return m, fmt.Errorf("read %s: %w", manifestName, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%s: %w", manifestName, err)
	}
	return m, checkManifest(m)
}

func checkManifest(m BackupManifest) error {
	sub := checkpointFileName.FindStringSubmatch(m.File)
	app, aerr := hex.DecodeString(m.AppHash)
	sum, serr := hex.DecodeString(m.SHA256)
	switch {
	case m.Format != BackupFormat:
		return fmt.Errorf("format %q, want %q", m.Format, BackupFormat)
	case m.Height <= 0:
		return fmt.Errorf("height %d", m.Height)
	case aerr != nil || len(app) != sha256.Size:
		return fmt.Errorf("app_hash %q is not %d bytes of hex", m.AppHash, sha256.Size)
	case serr != nil || len(sum) != sha256.Size:
		return fmt.Errorf("sha256 %q is not %d bytes of hex", m.SHA256, sha256.Size)
	case sub == nil || sub[1] != strconv.FormatInt(m.Height, 10):
		return fmt.Errorf("file %q is not the checkpoint of height %d", m.File, m.Height)
	case m.Size <= 0 || m.Size > maxCheckpointBytes:
		return fmt.Errorf("size %d out of range", m.Size)
	case m.ChainID == "" || len(m.ChainID) > cmttypes.MaxChainIDLen:
		return fmt.Errorf("chain_id %q", m.ChainID)
	}
	return nil
}

// copyCheckpoint copies the checkpoint entry that follows the manifest
// into path, checking its name, size and SHA-256 against m.
func copyCheckpoint(tr *tar.Reader, m BackupManifest, path string, progress Progress) error {
	h, err := tr.Next()
	if err != nil {
		return fmt.Errorf("no checkpoint after the manifest: %w", err)
	}
	if h.Name != m.File || h.Typeflag != tar.TypeReg || h.Size != m.Size {
		return fmt.Errorf("the entry after the manifest is %q (%d bytes), the manifest says %q (%d bytes)", h.Name, h.Size, m.File, m.Size)
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	sum := sha256.New()
	pw, done := progress.start("restore", m.Size)
	n, err := io.Copy(io.MultiWriter(out, sum, pw), io.LimitReader(tr, m.Size))
	done()
	switch {
	case err != nil:
		return fmt.Errorf("read the checkpoint (truncated?): %w", err)
	case n != m.Size:
		return fmt.Errorf("the checkpoint is %d bytes, the manifest says %d (truncated)", n, m.Size)
	case hex.EncodeToString(sum.Sum(nil)) != m.SHA256:
		return fmt.Errorf("the checkpoint's SHA-256 is not the manifest's: the file was damaged")
	}
	return out.Sync()
}

// cometPlan is what Restore does with CometBFT's state.
type cometPlan struct {
	height      int64
	confirmedBy string
	bootstrap   *cmtcfg.Config // an empty state: bootstrapped from a node
	rollback    bool           // a state past the backup: rolled back one height
	appHash     []byte
}

// planCometState decides what becomes of CometBFT's state and confirms the
// backup's AppHash against the chain where it can.
func planCometState(ctx context.Context, cc *cmtcfg.Config, m BackupManifest, want []byte, opts RestoreOptions) (cometPlan, error) {
	p := cometPlan{height: m.Height, appHash: want}
	blocks, states, closeStores, err := cometstore.Open(cc)
	if err != nil {
		return p, fmt.Errorf("restore: open CometBFT's stores (is the node stopped?): %w", err)
	}
	st, err := states.Load()
	var chain []byte
	if meta := blocks.LoadBlockMeta(m.Height + 1); meta != nil {
		chain, p.confirmedBy = meta.Header.AppHash, "block store"
	}
	storeHeight := blocks.Height()
	closeStores()
	if err != nil {
		return p, fmt.Errorf("restore: read CometBFT's state: %w", err)
	}
	if chain == nil && opts.NodeURL != "" {
		if chain, err = chainAppHash(ctx, opts, m); err != nil {
			return p, fmt.Errorf("restore: ask %s for the chain's AppHash at height %d: %w", opts.NodeURL, m.Height, err)
		}
		p.confirmedBy = opts.NodeURL
	}
	if chain != nil && !bytes.Equal(chain, want) {
		return p, fmt.Errorf("%w: its AppHash %s at height %d is not the chain's %X (%s)", ErrBadBackup, m.AppHash, m.Height, chain, p.confirmedBy)
	}
	switch {
	case st.LastBlockHeight == 0 && storeHeight == 0:
		if opts.NodeURL == "" {
			return p, fmt.Errorf("restore: this node's CometBFT state is empty: give --node URL (a node of the chain) to set it at height %d", m.Height)
		}
		if p.bootstrap, err = bootstrapConfig(ctx, cc, opts, m.Height); err != nil {
			return p, fmt.Errorf("restore: %w", err)
		}
	case st.LastBlockHeight < m.Height:
		return p, fmt.Errorf("restore: this node's CometBFT state is at height %d, below the backup's %d: restore into a new node home (relchain add-node) with --node URL", st.LastBlockHeight, m.Height)
	default:
		target, err := rollbackTarget(cc)
		if err != nil {
			return p, fmt.Errorf("restore: %w", err)
		}
		p.rollback = target >= m.Height
	}
	return p, nil
}

// apply sets CometBFT's state as planned and returns its height.
func (p cometPlan) apply(ctx context.Context, cc *cmtcfg.Config) (int64, error) {
	switch {
	case p.bootstrap != nil:
		if err := bootstrapState(ctx, p.bootstrap, p.height, p.appHash); err != nil {
			return 0, fmt.Errorf("bootstrap at height %d: %w", p.height, err)
		}
		return p.height, nil
	case p.rollback:
		return rollbackOneHeight(cc)
	}
	_, states, closeStores, err := cometstore.Open(cc)
	if err != nil {
		return 0, err
	}
	defer closeStores()
	st, err := states.Load()
	return st.LastBlockHeight, err
}
