package ops

import (
	"context"
	"fmt"
	"slices"

	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/internal/dbrestore"
	"github.com/relchain/relchain/node"
)

// MigrateOptions name the database a validator moves to.
type MigrateOptions struct {
	// ToBackend is the new engine, one the genesis' backends list.
	ToBackend string
	// DSN is the new database: a server's administrator DSN (the node's
	// least-privilege roles are made from it, as relchain init does), or
	// for SQLite the file, relative to the node home (default
	// data/relchain.db; it must not hold a database yet).
	DSN string
}

// MigrateReport says what Migrate did.
type MigrateReport struct {
	From, To   string
	Height     int64
	AppHash    string
	Statements int
}

// Migrate moves a stopped validator of a network over several engines to
// another engine (issue 37) without a new genesis: it checks the node's
// database against its AppHash, copies its replicated tables as
// PostgreSQL's SQL (the source's dump), its sequences and relchain's
// system state into the new, empty database in one block, checks that the
// new database gives the same AppHash at the same height (protocol
// version 5's AppHash is the same on every engine), and only then points
// relchain.toml at it. The old database is left as it was. CometBFT's
// state is unchanged: the node starts again at the same height.
func Migrate(ctx context.Context, home string, o MigrateOptions) (MigrateReport, error) {
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		return MigrateReport{}, err
	}
	r := MigrateReport{From: rc.Backend.Kind, To: o.ToBackend}
	if err := checkMigration(cc.GenesisFile(), rc, o); err != nil {
		return r, err
	}
	p, err := readSource(ctx, home, rc)
	if err != nil {
		return r, err
	}
	r.Height, r.AppHash = p.State.Height, fmt.Sprintf("%X", p.State.AppHash)
	target := rc
	target.Backend = node.BackendConfig{Kind: o.ToBackend, DSN: o.DSN}
	if err := node.PrepareBackend(ctx, &target.Backend); err != nil {
		return r, fmt.Errorf("migrate: prepare the new database: %w", err)
	}
	if r.Statements, err = writeTarget(ctx, home, target, p); err != nil {
		return r, err
	}
	if err := node.SaveConfig(home, cc, target); err != nil {
		return r, fmt.Errorf("migrate: the new database holds the node's state, but relchain.toml could not point at it: %w", err)
	}
	return r, nil
}

// checkMigration refuses a move the genesis does not allow.
func checkMigration(genesisFile string, rc node.Config, o MigrateOptions) error {
	gen, err := types.GenesisDocFromFile(genesisFile)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	params, err := app.ParseParams(gen.AppState)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	switch {
	case o.ToBackend == rc.Backend.Kind:
		return fmt.Errorf("migrate: the node already runs %s", o.ToBackend)
	case !params.Mixed() || !slices.Contains(params.Backends, o.ToBackend):
		return fmt.Errorf("migrate: the genesis lists the engines %v; a validator can only move to one of them (docs/mixed-networks.md)", params.Engines())
	}
	return nil
}

// readSource reads the node's stopped database as dbrestore.Portable: it
// must reproduce its AppHash, which must be canonical.
func readSource(ctx context.Context, home string, rc node.Config) (dbrestore.Portable, error) {
	d, s, err := rc.BackendSpec(home)
	if err != nil {
		return dbrestore.Portable{}, fmt.Errorf("migrate: %w", err)
	}
	p, err := dbrestore.ReadPortable(ctx, d, s, nil)
	if err != nil {
		return p, fmt.Errorf("migrate: the node's database: %w (stop the node first)", err)
	}
	return p, nil
}

// writeTarget writes p into the new, empty database of target and checks
// it against p's AppHash. It returns the number of statements run.
func writeTarget(ctx context.Context, home string, target node.Config, p dbrestore.Portable) (int, error) {
	be, err := node.OpenBackend(ctx, home, target)
	if err != nil {
		return 0, fmt.Errorf("migrate: open the new database: %w", err)
	}
	defer be.Close()
	n, err := dbrestore.Fill(ctx, be, p)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w (the old database is untouched)", err)
	}
	return n, nil
}
