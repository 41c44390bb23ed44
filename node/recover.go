package node

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
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	sm "github.com/cometbft/cometbft/state"
	"github.com/cometbft/cometbft/store"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
)

// RecoverReport is what Recover did.
type RecoverReport struct {
	// Checkpoint is the height of the checkpoint restored.
	Checkpoint int64 `json:"checkpoint"`
	// Rejected lists newer checkpoints that failed verification, and why.
	Rejected []string `json:"rejected,omitempty"`
	// StateHeight is CometBFT's state height after the rollback; the node
	// replays the blocks after Checkpoint up to its block store's height
	// when it starts.
	StateHeight int64 `json:"state_height"`
	// Replaced is where the database that was replaced now lies.
	Replaced string `json:"replaced"`
}

// Recover restores a stopped node's database from its newest checkpoint
// that verifies: the chain confirms its AppHash, and its rows match the
// state digest it recorded. (SQLite: a copy of the file; PostgreSQL:
// pg_restore into a new database that then takes the old one's name.)
// It rolls CometBFT's state back one height: the last block this node
// applied may have been applied to the deviating database, and its AppHash
// is the one the network refused. The replaced database is kept. Starting
// the node then replays, from its own block store, every block after the
// checkpoint (CometBFT's handshake), checking each AppHash against the
// chain's headers.
func Recover(ctx context.Context, home string) (RecoverReport, error) {
	var rep RecoverReport
	cc, rc, err := LoadConfig(home)
	if err != nil {
		return rep, err
	}
	r, err := restorerFor(home, rc)
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	cps, err := r.list(CheckpointDir(home))
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	if len(cps) == 0 {
		return rep, fmt.Errorf("recover: no checkpoint in %s (relchain.toml [checkpoint] every = N makes them)", CheckpointDir(home))
	}
	// A checkpoint counts only if the chain confirms it: the header of the
	// next block in this node's block store carries the AppHash every
	// validator agreed on for the checkpoint's height. A checkpoint taken
	// after this node deviated is consistent in itself, but not confirmed.
	confirmed, err := confirmedAppHashes(cc, cps)
	if err != nil {
		return rep, fmt.Errorf("recover: read the block store (is the node stopped?): %w", err)
	}
	// The rollback below leaves CometBFT's state at limit: a newer
	// checkpoint cannot be used with it.
	limit, err := rollbackTarget(cc)
	if err != nil {
		return rep, fmt.Errorf("recover: read CometBFT's state (is the node stopped?): %w", err)
	}
	var chosen *backend.Checkpoint
	for i := range cps {
		if cps[i].Height > limit {
			rep.Rejected = append(rep.Rejected, fmt.Sprintf("height %d: newer than height %d, where recover leaves CometBFT's state", cps[i].Height, limit))
			continue
		}
		want, ok := confirmed[cps[i].Height]
		if !ok {
			rep.Rejected = append(rep.Rejected, fmt.Sprintf("height %d: not confirmed by the chain (this node's block store has no block %d)", cps[i].Height, cps[i].Height+1))
			continue
		}
		if err := r.stage(ctx, cps[i], want); err != nil {
			rep.Rejected = append(rep.Rejected, fmt.Sprintf("height %d: %v", cps[i].Height, err))
			continue
		}
		chosen = &cps[i]
		break
	}
	if chosen == nil {
		return rep, fmt.Errorf("recover: no checkpoint verifies: %v", rep.Rejected)
	}
	rep.Checkpoint = chosen.Height
	if rep.StateHeight, err = rollbackOneHeight(cc); err != nil {
		r.discard(ctx)
		return rep, fmt.Errorf("recover: roll back CometBFT's state: %w", err)
	}
	if rep.StateHeight < chosen.Height {
		r.discard(ctx)
		return rep, fmt.Errorf("recover: checkpoint %d is newer than CometBFT's state at height %d", chosen.Height, rep.StateHeight)
	}
	if rep.Replaced, err = r.install(ctx, time.Now().UTC().Format("20060102T150405Z")); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	// The database the node stopped on is replaced: its halt record goes.
	if err := clearHaltRecord(home); err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	return rep, nil
}

// rollbackTarget is the height rollbackOneHeight will leave CometBFT's
// state at: one below the state's, unless the block store is one ahead of
// the state (the node stopped inside the next block, as on an out-of-band
// change), where CometBFT's rollback keeps the state's height.
func rollbackTarget(cc *cmtcfg.Config) (int64, error) {
	blocks, states, closeStores, err := openStores(cc)
	if err != nil {
		return 0, err
	}
	defer closeStores()
	st, err := states.Load()
	if err != nil {
		return 0, err
	}
	if blocks.Height() == st.LastBlockHeight+1 {
		return st.LastBlockHeight, nil
	}
	return st.LastBlockHeight - 1, nil
}

// restorerFor is the restorer of a node home's backend: a server's
// (registry.Driver.Restore) or a file's.
func restorerFor(home string, rc Config) (restorer, error) {
	d, err := registry.Lookup(rc.Backend.Kind)
	if err != nil {
		return nil, err
	}
	// A restored database is opened to verify it: with the node's
	// privilege setting, the gate on and no checkpoints of its own.
	open := func(ctx context.Context, dsn string) (backend.Backend, error) {
		return d.Open(ctx, registry.Spec{DSN: dsn, UnsafeSuperuser: rc.Backend.UnsafeSuperuser})
	}
	if d.Restore == nil {
		return &fileRestorer{db: rc.SQLitePath(home), checkpoints: d.Checkpoints, open: open}, nil
	}
	return &serverRestorer{ops: *d.Restore, checkpoints: d.Checkpoints, open: open, dsn: rc.Backend.DSN}, nil
}

// restorer is a backend's side of Recover and of state sync.
type restorer interface {
	list(dir string) ([]backend.Checkpoint, error)
	// stage restores cp beside the live database and verifies it against
	// appHash, the chain's AppHash at cp's height (nil: the AppHash it
	// holds, once its contents reproduce it); verified says what it held.
	stage(ctx context.Context, cp backend.Checkpoint, appHash []byte) error
	verified() backend.State
	// discard removes what stage made.
	discard(ctx context.Context)
	// install replaces the live database by the staged one and says
	// where the replaced one lies.
	install(ctx context.Context, stamp string) (string, error)
	// dropReplaced deletes the database install set aside.
	dropReplaced(ctx context.Context) error
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

func (r *fileRestorer) list(dir string) ([]backend.Checkpoint, error) { return r.checkpoints(dir) }

func (r *fileRestorer) stage(ctx context.Context, cp backend.Checkpoint, appHash []byte) error {
	_ = removeDB(r.staged())
	if err := copyFile(cp.Path, r.staged()); err != nil {
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

func (r *fileRestorer) verified() backend.State { return r.state }

func (r *fileRestorer) discard(context.Context) { _ = removeDB(r.staged()) }

func (r *fileRestorer) install(_ context.Context, stamp string) (string, error) {
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

func (r *fileRestorer) dropReplaced(context.Context) error {
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
	suffix      string // of the staged database's name; "_recover" when empty
	staged      string // database name
	replaced    string // database name
	state       backend.State
}

func (r *serverRestorer) verified() backend.State { return r.state }

func (r *serverRestorer) list(dir string) ([]backend.Checkpoint, error) { return r.checkpoints(dir) }

func (r *serverRestorer) stage(ctx context.Context, cp backend.Checkpoint, appHash []byte) error {
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
		r.discard(ctx)
	}
	return err
}

func (r *serverRestorer) discard(ctx context.Context) {
	if r.staged != "" {
		_ = r.ops.Drop(ctx, r.dsn, r.staged)
	}
}

func (r *serverRestorer) install(ctx context.Context, stamp string) (string, error) {
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

func (r *serverRestorer) dropReplaced(ctx context.Context) error {
	if r.replaced == "" {
		return nil
	}
	return r.ops.Drop(ctx, r.dsn, r.replaced)
}

// confirmedAppHashes returns, for each checkpoint height h whose next
// block is in the block store, the AppHash that block's header carries
// (the app's state after h, as the validators signed it).
func confirmedAppHashes(cc *cmtcfg.Config, cps []backend.Checkpoint) (map[int64][]byte, error) {
	blockDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "blockstore", Config: cc})
	if err != nil {
		return nil, err
	}
	defer blockDB.Close()
	bs := store.NewBlockStore(blockDB)
	out := make(map[int64][]byte)
	for _, cp := range cps {
		if meta := bs.LoadBlockMeta(cp.Height + 1); meta != nil {
			out[cp.Height] = meta.Header.AppHash
		}
	}
	return out, nil
}

// rollbackOneHeight is CometBFT's own rollback (as `cometbft rollback`):
// the state goes back to the previous height, its AppHash taken from the
// header of the block it undoes; the block stays in the store and is
// replayed at start.
func rollbackOneHeight(cc *cmtcfg.Config) (int64, error) {
	blocks, ss, closeStores, err := openStores(cc)
	if err != nil {
		return 0, err
	}
	defer closeStores()
	before, err := ss.Load()
	if err != nil {
		return 0, err
	}
	h, _, err := sm.Rollback(blocks, ss, false)
	if err != nil {
		return 0, err
	}
	// Rollback takes the app version from the consensus parameters (0
	// here); the headers carry the one relchain reports in Info, which the
	// state held. Without this, replay refuses the next header's version.
	st, err := ss.Load()
	if err != nil {
		return 0, err
	}
	if st.Version.Consensus.App != before.Version.Consensus.App {
		st.Version.Consensus.App = before.Version.Consensus.App
		if err := ss.Save(st); err != nil {
			return 0, err
		}
	}
	return h, nil
}

// openStores opens a stopped node's CometBFT block store and state store;
// closeStores closes both.
func openStores(cc *cmtcfg.Config) (blocks *store.BlockStore, states sm.Store, closeStores func(), err error) {
	blockDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "blockstore", Config: cc})
	if err != nil {
		return nil, nil, nil, err
	}
	stateDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "state", Config: cc})
	if err != nil {
		blockDB.Close()
		return nil, nil, nil, err
	}
	closeStores = func() {
		stateDB.Close()
		blockDB.Close()
	}
	states = sm.NewStore(stateDB, sm.StoreOptions{DiscardABCIResponses: cc.Storage.DiscardABCIResponses})
	return store.NewBlockStore(blockDB), states, closeStores, nil
}

func copyFile(from, to string) error {
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
	return syncDir(filepath.Dir(to))
}

func removeDB(path string) error {
	for _, f := range dbFiles(path) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
