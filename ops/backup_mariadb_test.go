package ops

import (
	"context"
	"encoding/hex"
	"errors"
	"path/filepath"
	"testing"

	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/node"
)

// A MariaDB validator of a network over MariaDB, PostgreSQL and SQLite
// writes a portable backup (relchain backup --portable, issue 37): a
// SQLite database speaking PostgreSQL's SQL with the validator's height
// and AppHash. A SQLite node restores it as a backup of its own engine,
// a PostgreSQL node as one of another engine, each as Restore stages and
// installs it (its rows must reproduce the AppHash first); both then hold
// the validator's rows and go on with its defaults and constraints. The
// validator's native backup is refused on the SQLite node. (A short name:
// the scratch database of the test's, <db>_backupcheck_portable, must fit
// in MariaDB's 64 characters.)
func TestPortableBackupOfMariaDB(t *testing.T) {
	ctx := context.Background()
	home, params, judges, want, before := mariaDBValidator(t)
	portable, native := filepath.Join(t.TempDir(), "portable.backup"), filepath.Join(t.TempDir(), "native.backup")
	m, err := Backup(ctx, home, portable, BackupOptions{Portable: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Backend != "sqlite" || m.Height != want.Height || m.AppHash != hex.EncodeToString(want.AppHash) {
		t.Fatalf("portable backup %+v, want sqlite at height %d, AppHash %X", m, want.Height, want.AppHash)
	}
	if m, err := Backup(ctx, home, native, BackupOptions{}); err != nil || m.Backend != "mysql" {
		t.Fatalf("native backup %+v, %v", m, err)
	}
	for _, kind := range []string{"sqlite", "postgres"} {
		target, _ := mixedHomeOver(t, "mysql", "postgres", "sqlite")
		if kind == "postgres" {
			moveHomeTo(t, target, node.BackendConfig{Kind: "postgres", DSN: pgtest.DSN(t)})
		}
		if kind == "sqlite" {
			if err := stageBackup(t, target, native); !errors.Is(err, ErrBadBackup) {
				t.Fatalf("the native MariaDB backup on a SQLite node: %v, want ErrBadBackup", err)
			}
		}
		if err := stageBackup(t, target, portable); err != nil {
			t.Fatalf("%s node: %v", kind, err)
		}
		be, ex := openMoved(t, target, kind, params, want, judges)
		checkMovedFromMariaDB(t, be, ex, before)
	}
}

// moveHomeTo points the node home's relchain.toml at the new database bc
// (prepared as init prepares one).
func moveHomeTo(t *testing.T, home string, bc node.BackendConfig) {
	t.Helper()
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := node.PrepareBackend(context.Background(), &bc); err != nil {
		t.Fatal(err)
	}
	rc.Backend = bc
	if err := node.SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
}

// stageBackup restores the backup file into the stopped node home as
// Restore does once CometBFT's state is settled: the checkpoint staged
// beside the node's database and verified against the manifest's
// AppHash, then installed.
func stageBackup(t *testing.T, home, file string) error {
	t.Helper()
	ctx := context.Background()
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := cmttypes.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		t.Fatal(err)
	}
	m, cp, err := readBackup(file, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rc.Restorer(home)
	if err != nil {
		t.Fatal(err)
	}
	stage, err := backupStage(gen, rc, m, r)
	if err != nil {
		return err
	}
	want, _ := hex.DecodeString(m.AppHash)
	if err := stage(ctx, cp, want); err != nil {
		return err
	}
	_, err = r.Install(ctx, "test")
	return err
}
