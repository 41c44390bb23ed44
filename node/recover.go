package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	sm "github.com/cometbft/cometbft/state"
	"github.com/cometbft/cometbft/store"

	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/statedigest"
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

// Recover restores a stopped node's SQLite database from its newest
// checkpoint that verifies (its rows against the state digest it
// recorded), and rolls CometBFT's state back one height: the last block
// this node applied may have been applied to the deviating database, and
// its AppHash is the one the network refused. The replaced database is
// kept beside the new one. Starting the node then replays, from its own
// block store, every block after the checkpoint (CometBFT's handshake),
// checking each AppHash against the chain's headers.
func Recover(ctx context.Context, home string) (RecoverReport, error) {
	var rep RecoverReport
	cc, rc, err := LoadConfig(home)
	if err != nil {
		return rep, err
	}
	if rc.Backend.Kind != "sqlite" {
		return rep, fmt.Errorf("recover: checkpoints exist for SQLite nodes only; rebuild this %s node from its peers (README: Verifying a node)", rc.Backend.Kind)
	}
	cps, err := sqlite.Checkpoints(CheckpointDir(home))
	if err != nil {
		return rep, fmt.Errorf("recover: %w", err)
	}
	if len(cps) == 0 {
		return rep, fmt.Errorf("recover: no checkpoint in %s (relchain.toml [checkpoint] every = N makes them)", CheckpointDir(home))
	}
	dbPath := rc.SQLitePath(home)
	staged := dbPath + ".recover"
	var chosen *sqlite.Checkpoint
	for i := range cps {
		cp := cps[i]
		if err := stageCheckpoint(ctx, cp, staged); err != nil {
			rep.Rejected = append(rep.Rejected, fmt.Sprintf("height %d: %v", cp.Height, err))
			continue
		}
		chosen = &cp
		break
	}
	if chosen == nil {
		return rep, fmt.Errorf("recover: no checkpoint verifies: %v", rep.Rejected)
	}
	rep.Checkpoint = chosen.Height
	if rep.StateHeight, err = rollbackOneHeight(cc); err != nil {
		_ = removeDB(staged)
		return rep, fmt.Errorf("recover: roll back CometBFT's state: %w", err)
	}
	if rep.StateHeight < chosen.Height {
		_ = removeDB(staged)
		return rep, fmt.Errorf("recover: checkpoint %d is newer than CometBFT's state at height %d", chosen.Height, rep.StateHeight)
	}
	rep.Replaced = fmt.Sprintf("%s.replaced-%s", dbPath, time.Now().UTC().Format("20060102T150405Z"))
	if err := moveDB(dbPath, rep.Replaced); err != nil {
		return rep, fmt.Errorf("recover: set the old database aside: %w", err)
	}
	if err := moveDB(staged, dbPath); err != nil {
		return rep, fmt.Errorf("recover: install the checkpoint: %w", err)
	}
	return rep, nil
}

// stageCheckpoint copies checkpoint cp to staged and verifies the copy:
// a scan of its rows must give the table sums it recorded, at its height.
func stageCheckpoint(ctx context.Context, cp sqlite.Checkpoint, staged string) error {
	_ = removeDB(staged)
	if err := copyFile(cp.Path, staged); err != nil {
		return err
	}
	be, err := sqlite.Open(ctx, staged)
	if err != nil {
		_ = removeDB(staged)
		return err
	}
	stored, h1, err := be.StoredState(ctx)
	if err == nil {
		var scanned statedigest.Tables
		var h2 int64
		scanned, h2, err = be.ScanState(ctx)
		switch {
		case err != nil:
		case h1 != cp.Height || h2 != cp.Height:
			err = fmt.Errorf("it holds height %d, its name says %d", h1, cp.Height)
		case len(statedigest.Diff(stored, scanned)) > 0:
			err = fmt.Errorf("%w: tables %v", statedigest.ErrMismatch, statedigest.Diff(stored, scanned))
		}
	}
	if cerr := be.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = removeDB(staged)
	}
	return err
}

// rollbackOneHeight is CometBFT's own rollback (as `cometbft rollback`):
// the state goes back to the previous height, its AppHash taken from the
// header of the block it undoes; the block stays in the store and is
// replayed at start.
func rollbackOneHeight(cc *cmtcfg.Config) (int64, error) {
	blockDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "blockstore", Config: cc})
	if err != nil {
		return 0, err
	}
	defer blockDB.Close()
	stateDB, err := cmtcfg.DefaultDBProvider(&cmtcfg.DBContext{ID: "state", Config: cc})
	if err != nil {
		return 0, err
	}
	defer stateDB.Close()
	ss := sm.NewStore(stateDB, sm.StoreOptions{DiscardABCIResponses: cc.Storage.DiscardABCIResponses})
	before, err := ss.Load()
	if err != nil {
		return 0, err
	}
	h, _, err := sm.Rollback(store.NewBlockStore(blockDB), ss, false)
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
