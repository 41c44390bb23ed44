package node

import (
	"context"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/internal/dbrestore"
)

// WithUnsafeSuperuser is relchain.toml's backend.unsafe_superuser = true
// for this run (relchain node --unsafe-superuser): the node may open its
// database with roles or accounts that hold server-wide or dangerous
// privileges. Tests only: any statement that slips past the gate then acts
// with them.
func WithUnsafeSuperuser() Option { return func(o *options) { o.unsafeSuperuser = true } }

// PrepareBackend turns the administrator's DSN of a new node (init,
// testnet, localnet, add-node) into the node's least-privilege roles or
// accounts, as its backend does it (registry.Driver.Prepare: PostgreSQL
// roles <db>_writer and <db>_reader, MySQL/MariaDB writer and reader
// accounts), and points b at them. A DSN that already names them, or
// whose account may not create them, is kept; with UnsafeSuperuser,
// PostgreSQL keeps the DSN's role.
func PrepareBackend(ctx context.Context, b *BackendConfig) error {
	d, err := registry.Lookup(b.Kind)
	if err != nil {
		return err
	}
	if d.Prepare == nil {
		return nil
	}
	s := registry.Spec{DSN: b.DSN, ReaderDSN: b.ReaderDSN, UnsafeSuperuser: b.UnsafeSuperuser}
	if err := d.Prepare(ctx, &s); err != nil {
		return err
	}
	b.DSN, b.ReaderDSN = s.DSN, s.ReaderDSN
	return nil
}

// backendSpec is the registry's description of a node home's database.
// onCheckpointErr hears of failed checkpoints.
func (c Config) backendSpec(home string, onCheckpointErr func(error)) (registry.Driver, registry.Spec, error) {
	d, err := registry.Lookup(c.Backend.Kind)
	if err != nil {
		return d, registry.Spec{}, err
	}
	s := registry.Spec{DSN: c.Backend.DSN, ReaderDSN: c.Backend.ReaderDSN,
		UnsafeSuperuser: c.Backend.UnsafeSuperuser, NoGate: c.Backend.UnsafeNoGate,
		SQLDialect: c.SQL.Name, SQLDialectVersion: c.SQL.VersionOf(c.Backend.Kind)}
	if s.ReadTimeout, err = c.ReadTimeout(); err != nil {
		return d, registry.Spec{}, err
	}
	if !d.Server {
		s.DSN = c.SQLitePath(home)
	}
	if c.Checkpoint.Every > 0 {
		s.Checkpoints = registry.Checkpoints{Dir: CheckpointDir(home), Every: c.Checkpoint.Every,
			Keep: c.Checkpoint.Keep, OnError: onCheckpointErr}
	}
	return d, s, nil
}

// BackendSpec is the registry's driver and description of the database a
// node home is configured with, as the node opens it (a failed scheduled
// checkpoint is reported on stderr): what the operator's tools (package
// ops) and fault injection (relchain debug tamper) ask the registry with.
func (c Config) BackendSpec(home string) (registry.Driver, registry.Spec, error) {
	return c.backendSpec(home, onCheckpointError)
}

// OpenBackend opens the database a node home is configured with.
func OpenBackend(ctx context.Context, home string, rc Config) (backend.Backend, error) {
	return openBackend(ctx, home, rc, onCheckpointError)
}

// openBackend is OpenBackend with failed checkpoints reported to onErr.
func openBackend(ctx context.Context, home string, rc Config, onErr func(error)) (backend.Backend, error) {
	d, s, err := rc.backendSpec(home, onErr)
	if err != nil {
		return nil, err
	}
	return d.Open(ctx, s)
}

// Restorer is the dbrestore.Restorer of a node home's database: state
// sync installs a snapshot with it, relchain recover, restore and backup
// a checkpoint. It opens a restored database as the node opens its own
// (its SQL dialect included).
func (c Config) Restorer(home string) (dbrestore.Restorer, error) {
	return dbrestore.For(c.Backend.Kind, c.SQLitePath(home), registry.Spec{DSN: c.Backend.DSN,
		UnsafeSuperuser: c.Backend.UnsafeSuperuser, SQLDialect: c.SQL.Name, SQLDialectVersion: c.SQL.VersionOf(c.Backend.Kind),
		SQLDialectVersions: c.SQL.Versions})
}
