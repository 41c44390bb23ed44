package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/dialect"
)

// Default is the backend a node uses when its configuration names none.
const Default = dialect.Default

// Driver describes one database relchain runs on: its dialect.Dialect
// (Name, Server, DSNTemplate, Wire: what needs no driver) and how to open
// it.
type Driver struct {
	dialect.Dialect
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
	// SchemaJudge, if not nil, makes a judge of statements as this
	// engine's validators judge them, without the engine
	// (dialect.Dialect.SchemaJudged; app.WithSchemaJudge).
	SchemaJudge func() backend.SchemaJudge
	// TranslatorVersion is the version of the translation of the SQL
	// dialect it translates (Dialect.Translates) this binary implements;
	// 0 when it translates none.
	TranslatorVersion int
}

// GenesisSQLDialect is what a new network of backend name whose SQL
// dialect is sql writes in its genesis (app_state sql_dialect and
// sql_dialect_version): "" and 0 for the backend's own dialect (sql ""
// or its name: the genesis then reads as before dialects existed), or sql
// and the version of its translation this binary implements. It refuses a
// dialect the backend cannot speak.
func GenesisSQLDialect(name, sql string) (string, int, error) {
	d, err := Lookup(name)
	if err != nil {
		return "", 0, err
	}
	if !d.Speaks(sql) {
		return "", 0, fmt.Errorf("backend %s cannot run the %q SQL dialect (it speaks %s; see docs/dialects.md)", name, sql, d.Spoken())
	}
	if !d.Translated(sql) {
		return "", 0, nil
	}
	return sql, d.TranslatorVersion, nil
}

// SchemaJudges are the executor options giving a validator of a network
// over engines the schema judge of each that has one (app needs them on
// every validator of a network over several engines with such an engine).
func SchemaJudges(engines []string) map[string]func() backend.SchemaJudge {
	out := make(map[string]func() backend.SchemaJudge)
	for _, name := range engines {
		if d, err := Lookup(name); err == nil && d.SchemaJudge != nil {
			out[name] = d.SchemaJudge
		}
	}
	return out
}

// GenesisSQLDialectVersions are the translator versions a new network
// over engines (sorted, two or more) speaking SQL dialect sql writes in
// its genesis: sql_dialect_version when one engine translates sql,
// sql_dialect_versions when several do (app.Params.checkSQLDialect),
// neither when none does.
func GenesisSQLDialectVersions(engines []string, sql string) (version int, versions map[string]int, err error) {
	found := make(map[string]int)
	for _, name := range engines {
		translated, v, err := GenesisSQLDialect(name, sql)
		if err != nil {
			return 0, nil, fmt.Errorf("a network over %v: %w", engines, err)
		}
		if translated != "" {
			found[name] = v
		}
	}
	if len(found) > 1 {
		return 0, found, nil
	}
	for _, v := range found {
		version = v
	}
	return version, nil, nil
}

// mustDialect is the dialect called name; a Driver without one is a
// programming error.
func mustDialect(name string) dialect.Dialect {
	d, err := dialect.Lookup(name)
	if err != nil {
		panic(fmt.Sprintf("registry: %v", err))
	}
	return d
}

// ServerOps restore a checkpoint of a database server's backend.
type ServerOps struct {
	// DatabaseName is the database dsn names.
	DatabaseName func(dsn string) (string, error)
	// Restore restores cp into a new database db on dsn's server and
	// returns db's DSN.
	Restore func(ctx context.Context, dsn string, cp backend.Checkpoint, db string) (string, error)
	// Create makes a new, empty database db on dsn's server and returns
	// its DSN; nil when the backend cannot take a database of another
	// engine (dbrestore.Fill: its SQL dialect is not PostgreSQL's).
	Create func(ctx context.Context, dsn, db string) (string, error)
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
	// SQLDialect is the network's SQL dialect (genesis sql_dialect): ""
	// is the database's own; another one the database translates
	// (dialect.Dialect.Translates) opens it translating, and Open refuses
	// one it cannot speak.
	SQLDialect string
	// SQLDialectVersion is the genesis' sql_dialect_version: for a
	// translated dialect, Open refuses a version this binary does not
	// implement, naming both (the translator's startup check). On a
	// network where several engines translate the dialect it is the
	// version of the database's engine.
	SQLDialectVersion int
	// SQLDialectVersions are the genesis' sql_dialect_versions, each
	// translating engine's version, on a network where several engines
	// translate the dialect; nil elsewhere. OnEngine reads them.
	SQLDialectVersions map[string]int
}

// OnEngine is s for a database of another engine of the same network
// (a checkpoint of another engine read, a database of another engine
// written): the same SQL dialect, at that engine's translation version
// (sql_dialect_versions), or at the one version of the network's one
// translating engine.
func (s Spec) OnEngine(kind string) Spec {
	out := Spec{SQLDialect: s.SQLDialect, SQLDialectVersion: s.SQLDialectVersion, SQLDialectVersions: s.SQLDialectVersions}
	if s.SQLDialectVersions != nil {
		out.SQLDialectVersion = s.SQLDialectVersions[kind]
	}
	return out
}

// checkSQLDialect refuses a Spec whose SQL dialect d cannot speak, or
// whose translated dialect's version is not the binary's (version).
func checkSQLDialect(d dialect.Dialect, s Spec, version int) error {
	if !d.Speaks(s.SQLDialect) {
		return fmt.Errorf("the genesis says the network speaks the %q SQL dialect, which backend %s cannot run (see docs/dialects.md)", s.SQLDialect, d.Name)
	}
	if d.Translated(s.SQLDialect) && s.SQLDialectVersion != version {
		return fmt.Errorf("the genesis fixes version %d of the %s dialect's translation on %s (sql_dialect_version), this relchain binary implements version %d: run a binary of the network's version",
			s.SQLDialectVersion, s.SQLDialect, d.Name, version)
	}
	return nil
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
