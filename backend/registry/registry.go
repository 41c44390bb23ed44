package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/relchain/relchain/backend"
)

// Default is the backend a node uses when its configuration names none.
const Default = "sqlite"

// Driver describes one database relchain runs on.
type Driver struct {
	// Name is the backend's name in relchain.toml (backend.kind), on the
	// command line (--backend) and in the genesis (app.Params.Backend).
	Name string
	// Server is true for a database server reached by a DSN: every node
	// needs its own database (a DSN; networks give a template with
	// {node}). Otherwise the database is a file in the node home.
	Server bool
	// DSNTemplate is an example DSN with {node} for the node's name, for
	// error messages; empty for a file database.
	DSNTemplate string
	// Open opens the database s locates.
	Open func(ctx context.Context, s Spec) (backend.Backend, error)
	// Prepare turns the administrator's DSN of a new node into the node's
	// least-privilege roles or accounts, rewriting s.DSN (and
	// s.ReaderDSN); nil when there is nothing to prepare.
	Prepare func(ctx context.Context, s *Spec) error
	// Checkpoints lists the checkpoints in dir, newest first.
	Checkpoints func(dir string) ([]backend.Checkpoint, error)
	// CheckpointNow takes a checkpoint of the database s locates into dir
	// at once, in one snapshot, while a node may be running on it (relchain
	// checkpoint, relchain backup); nil when the backend cannot.
	CheckpointNow func(ctx context.Context, s Spec, dir string) (backend.Checkpoint, error)
	// Dump writes the replicated tables of the database s locates to w as
	// SQL text (CREATE TABLE, INSERTs in primary-key order), without
	// relchain's own tables and triggers, from one snapshot, and returns
	// its height; nil when the backend has none.
	Dump func(ctx context.Context, s Spec, w io.Writer) (int64, error)
	// Restore are the operations recover and state sync use to restore a
	// checkpoint beside a server's live database; nil for a file database
	// (restored by copying the file).
	Restore *ServerOps
	// SetupSQL, if not nil, returns the SQL an administrator runs once to
	// create the database dsn names and the node's least-privilege roles
	// (relchain init --print-pg-setup).
	SetupSQL func(dsn string) (string, error)
	// Wire is what the PostgreSQL wire-protocol gateway needs to know of
	// the backend's SQL dialect.
	Wire WireDialect
}

// WireDialect describes a backend's SQL dialect to the PostgreSQL
// wire-protocol gateway (package gateway).
type WireDialect struct {
	// DollarQuotes: $tag$…$tag$ is a string literal (PostgreSQL), so a
	// semicolon inside one does not end a statement.
	DollarQuotes bool
	// PGCatalog: the database answers PostgreSQL's catalog queries
	// (pg_catalog, information_schema as psql's \d and ORMs ask them).
	PGCatalog bool
	// CatalogHint, when PGCatalog is false, tells a user how to list
	// tables in the backend's own SQL.
	CatalogHint string
	// Placeholders is how the backend numbers parameters; the gateway
	// rewrites the $n that PostgreSQL clients send into it.
	Placeholders string
	// NativeTypes: the database's values are PostgreSQL's own, in
	// PostgreSQL's text forms (time, timetz, interval, arrays), and a
	// parameter's text is read by PostgreSQL's own input functions, so the
	// gateway announces those types as themselves and passes input forms it
	// does not parse on to the database.
	NativeTypes bool
}

// Placeholder styles (WireDialect.Placeholders).
const (
	PlaceholdersDollar   = ""           // $1, $2 (PostgreSQL): sent as they are
	PlaceholdersNumbered = "numbered"   // ?1, ?2 (SQLite)
	PlaceholdersOrdered  = "positional" // ? bound in order of appearance (MySQL)
)

// DSNExample is an example DSN of a node named node0.
func (d Driver) DSNExample() string { return strings.ReplaceAll(d.DSNTemplate, "{node}", "node0") }

// ServerOps restore a checkpoint of a database server's backend.
type ServerOps struct {
	// DatabaseName is the database dsn names.
	DatabaseName func(dsn string) (string, error)
	// Restore restores cp into a new database db on dsn's server and
	// returns db's DSN.
	Restore func(ctx context.Context, dsn string, cp backend.Checkpoint, db string) (string, error)
	// Drop deletes database db of dsn's server.
	Drop func(ctx context.Context, dsn, db string) error
	// Swap renames dsn's database to replaced and staged to dsn's name.
	Swap func(ctx context.Context, dsn, staged, replaced string) error
}

// Spec says which database to open and how.
type Spec struct {
	// DSN locates the database: a server's DSN, or the path of a file
	// database.
	DSN string
	// ReaderDSN (MySQL) is the read-only account that serves queries;
	// empty: queries use DSN's account.
	ReaderDSN string
	// UnsafeSuperuser lets the node connect with more privilege than it
	// needs (tests and benchmarks only; relchain.toml
	// backend.unsafe_superuser).
	UnsafeSuperuser bool
	// Checkpoints schedules checkpoints; none when Every is 0.
	Checkpoints Checkpoints
	// NoGate turns the determinism and safety gate off (benchmarks of
	// the gate's cost). Only a test-hooks build can; Open refuses it with
	// ErrNoGate otherwise.
	NoGate bool
	// ReadTimeout, if not 0, bounds one read of the read path (Query) on
	// the database; 0 keeps the backend's default.
	ReadTimeout time.Duration
	// SQLiteTriggerCapture makes a SQLite backend capture every row change
	// with triggers instead of the pre-update hook (A/B benchmarks of
	// issue 19; the records are the same).
	SQLiteTriggerCapture bool
}

// Checkpoints schedules a backend's checkpoints: every Every committed
// blocks into Dir, keeping Keep; OnError reports a failed one.
type Checkpoints struct {
	Dir     string
	Every   int64
	Keep    int
	OnError func(error)
}

// ErrNoGate is Open's error for Spec.NoGate in a default build.
var ErrNoGate = errors.New("backend.unsafe_no_gate = true needs a test-hooks build of relchain " +
	"(go build -tags testhooks ./cmd/relchain, or make build-testhooks): this binary cannot turn the gate off")

// testHooks is true in a test-hooks build (testhooks.go).
var testHooks bool

// TestHooks reports whether this is a test-hooks build.
func TestHooks() bool { return testHooks }

// checkNoGate refuses s.NoGate in a default build.
func checkNoGate(s Spec) error {
	if s.NoGate && !testHooks {
		return ErrNoGate
	}
	return nil
}

var drivers = []Driver{sqliteDriver(), postgresDriver(), mysqlDriver()}

// Names lists the supported backends.
func Names() []string {
	out := make([]string, len(drivers))
	for i, d := range drivers {
		out[i] = d.Name
	}
	return out
}

// Lookup returns the driver of the backend called name.
func Lookup(name string) (Driver, error) {
	for _, d := range drivers {
		if d.Name == name {
			return d, nil
		}
	}
	return Driver{}, fmt.Errorf("unknown backend %q (supported: %s)", name, strings.Join(Names(), ", "))
}
