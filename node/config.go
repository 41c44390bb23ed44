package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/BurntSushi/toml"
	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/types"
	"github.com/spf13/viper"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/registry"
)

// RelchainConfigFile is relchain's own settings file inside a node home.
const RelchainConfigFile = "config/relchain.toml"

// Config is a node's relchain section: where its database lives. Settings
// that change how blocks execute are network-wide and live in the genesis
// app_state instead (see app.Params).
type Config struct {
	Backend BackendConfig `toml:"backend"`
	// Query bounds the read path.
	Query QueryConfig `toml:"query"`
	// Checkpoint schedules local copies of the database, from
	// which `relchain recover` restores a node.
	Checkpoint CheckpointConfig `toml:"checkpoint"`
	// Recover says what the node does when its state diverges from the
	// network's.
	Recover RecoverConfig `toml:"recover"`
	// Block bounds this node's execution of proposed blocks.
	Block BlockConfig `toml:"block"`
	// PG is the node's PostgreSQL wire-protocol listener (package
	// gateway); off unless Listen is set.
	PG PGConfig `toml:"pg"`
	// History is this node's row history and its proofs at past heights
	// (docs/history-and-changes.md): node-local, never part of a block.
	History HistoryConfig `toml:"history"`
	// SQL is the network's SQL dialect as the genesis fixes it (app_state
	// sql_dialect and sql_dialect_version; docs/dialects.md), which the
	// database is opened for. Not a setting of relchain.toml: LoadConfig
	// reads it from the home's genesis.
	SQL SQLDialect `toml:"-"`
}

// SQLDialect is a network's SQL dialect and its translations' versions
// (app.Params.SQLDialect, SQLDialectVersion, SQLDialectVersions).
type SQLDialect struct {
	Name    string
	Version int
	// Versions are the versions of the engines translating it on a network
	// where several do (sql_dialect_versions); nil otherwise.
	Versions map[string]int
}

// VersionOf is the version of the dialect's translation on engine (0
// where engine does not translate it: the registry checks that).
func (s SQLDialect) VersionOf(engine string) int {
	if s.Versions != nil {
		return s.Versions[engine]
	}
	return s.Version
}

// PGConfig configures a node's PostgreSQL wire-protocol listener.
type PGConfig struct {
	// Listen is the address PostgreSQL clients connect to, e.g.
	// "127.0.0.1:5433"; empty: no listener.
	Listen string `toml:"listen"`
	// Users is the users file (relchain gateway users add); relative paths
	// are inside the node home. Default: config/pg-users.toml.
	Users string `toml:"users"`
	// TLSCert and TLSKey (PEM files) turn TLS on; RequireTLS refuses
	// clients that do not use it.
	TLSCert    string `toml:"tls_cert"`
	TLSKey     string `toml:"tls_key"`
	RequireTLS bool   `toml:"require_tls"`
	// Connection limits (node/pglimits.go, package pgwire's Limits). Counts
	// and sizes: 0 or absent is the default, -1 no limit. Durations ("30s",
	// "1h"): absent is the default, "0" turns the timeout off (not
	// startup_timeout, which must be positive).
	MaxConnections           int    `toml:"max_connections"`             // default 256
	MaxConnectionsPerAddress int    `toml:"max_connections_per_address"` // default 32
	StartupTimeout           string `toml:"startup_timeout"`             // default "10s"
	IdleSessionTimeout       string `toml:"idle_session_timeout"`        // default "1h"
	IdleInTransactionTimeout string `toml:"idle_in_transaction_timeout"` // default "10m"
	WriteTimeout             string `toml:"write_timeout"`               // default "1m"
	MaxMessageBytes          int    `toml:"max_message_bytes"`           // default 16 MiB
	MaxSessionMemoryBytes    int    `toml:"max_session_memory_bytes"`    // default 64 MiB
}

// DefaultPGUsers is a node's users file when [pg] users is empty.
const DefaultPGUsers = "config/pg-users.toml"

// UsersFile is the users file's path for a node home.
func (c PGConfig) UsersFile(home string) string {
	return inHome(home, c.Users, DefaultPGUsers)
}

// inHome resolves path (def when empty) inside home; "" stays "".
func inHome(home, path, def string) string {
	if path == "" {
		path = def
	}
	if path == "" {
		return ""
	}
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(home, path)
}

// BlockConfig bounds this node's execution of a proposed block before it
// votes (app.App.ProcessProposal): a block one of whose txs runs longer
// than TxTimeout (e.g. "30s"; empty: the default, 30s) gets this node's
// vote against it, and that tx is quarantined, so that no client's tx can
// make a decided block this node cannot apply. A decided block is applied
// without a time limit.
//
// Lanes is how many database connections a block's transactions may run
// on at once (issue 38; docs/parallel-execution.md): 0 or 1 runs every
// block serially; k > 1 runs a block whose transactions split into
// independent groups on up to k connections, on PostgreSQL storage
// (other storages run serially). Node-local: validators of one network
// may differ in it, and the results do not.
//
// A block that splits runs on lanes only while blocks on lanes are
// measured faster than serial ones on this node (app.WithAdaptiveLanes:
// where the cores are shared, lanes add work they cannot absorb);
// LanesAlways runs every block that splits on lanes (tests, benchmarks).
type BlockConfig struct {
	TxTimeout   string `toml:"tx_timeout"`
	Lanes       int    `toml:"lanes"`
	LanesAlways bool   `toml:"lanes_always"`
}

// HistoryConfig configures a node's row history ([history]).
type HistoryConfig struct {
	// Off keeps no row history (and no proofs of rows that changed since
	// a past height).
	Off bool `toml:"off"`
	// RetainBlocks keeps the versions of the last RetainBlocks blocks; 0
	// (the default) keeps every block.
	RetainBlocks int64 `toml:"retain_blocks"`
	// ProofHeights is how many past states proofs at a named height
	// reach (blocks that changed the state); 0 is the default, 100.
	ProofHeights int `toml:"proof_heights"`
}

// AppHistory is the executor's form of c.History.
func (c Config) AppHistory() app.HistoryConfig {
	return app.HistoryConfig{Off: c.History.Off, RetainBlocks: c.History.RetainBlocks, ProofHeights: c.History.ProofHeights}
}

// maxLanes bounds [block] lanes: each lane is a connection and, on
// PostgreSQL, a prepared transaction at every parallel block's commit.
const maxLanes = 64

// Lanes checks Block.Lanes and returns it (at least 1).
func (c Config) Lanes() (int, error) {
	if c.Block.Lanes < 0 || c.Block.Lanes > maxLanes {
		return 0, fmt.Errorf("relchain.toml [block] lanes = %d: give a number of connections from 1 to %d (1: serial execution)", c.Block.Lanes, maxLanes)
	}
	return max(c.Block.Lanes, 1), nil
}

// TxTimeout parses Block.TxTimeout (0 when empty: the default).
func (c Config) TxTimeout() (time.Duration, error) {
	if c.Block.TxTimeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(c.Block.TxTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("relchain.toml [block] tx_timeout = %q: give a positive duration such as \"30s\"", c.Block.TxTimeout)
	}
	return d, nil
}

// What a node does when it detects that its AppHash differs from the
// network's (RecoverConfig.OnMismatch).
const (
	// OnMismatchStop stops the node with a report (the default).
	OnMismatchStop = "stop"
	// OnMismatchRecover makes `relchain node` restore its newest
	// chain-confirmed checkpoint and start again by itself.
	OnMismatchRecover = "recover"
)

// RecoverConfig says what `relchain node` does on a divergence (see
// DivergenceError): OnMismatch "stop" (default: exit non-zero with the
// report) or "recover" (run Recover and start again; needs checkpoints).
type RecoverConfig struct {
	OnMismatch string `toml:"on_mismatch"`
}

// CheckpointConfig schedules checkpoints: a consistent copy of the
// database every Every committed blocks (0: none) in
// HOME/data/checkpoints, keeping the newest and the Keep before it (the
// newest is not yet confirmed by the chain when it is taken). They are also the snapshots this node serves
// to nodes joining by state sync, in chunks of SnapshotChunkBytes (0: 8
// MiB).
type CheckpointConfig struct {
	Every              int64 `toml:"every"`
	Keep               int   `toml:"keep"`
	SnapshotChunkBytes int64 `toml:"snapshot_chunk_bytes"`
}

// BackendConfig selects and locates the database.
type BackendConfig struct {
	// Kind names the backend (package backend/registry): "sqlite"
	// (default), "postgres" or "mysql".
	Kind string `toml:"kind"`
	// DSN is the PostgreSQL connection string (as the node's writer role
	// <db>_writer; its reader <db>_reader follows, see package
	// backend/postgres/pgsetup) or the MySQL/MariaDB DSN
	// (go-sql-driver/mysql form; one database per node), or for SQLite
	// the database file, relative to the node home (default
	// data/relchain.db).
	DSN string `toml:"dsn"`
	// UnsafeNoGate turns relchain's determinism and safety gate off. Only
	// for benchmarks that measure the gate's cost: a node without the gate
	// executes statements every other node refuses, and diverges. Only a
	// test-hooks build (go build -tags testhooks) starts with it; a
	// default build refuses it (registry.ErrNoGate).
	UnsafeNoGate bool `toml:"unsafe_no_gate"`
	// ReaderDSN (MySQL) is the DSN of the read-only account that serves
	// queries (init creates it with the writer's, see
	// PrepareBackend); empty: queries use the writer's account.
	// PostgreSQL derives its reader role from the writer's DSN.
	ReaderDSN string `toml:"reader_dsn"`
	// UnsafeSuperuser lets the node connect with more privilege than
	// relchain needs (a PostgreSQL superuser, a MySQL account with
	// server-wide privileges) and, on PostgreSQL, without a reader role.
	// Only for tests and benchmarks: a statement that slipped past the
	// gate could then read the server's files or end other sessions.
	// Without it the node refuses such roles at start
	// (relchain node --unsafe-superuser).
	UnsafeSuperuser bool `toml:"unsafe_superuser"`
	// ExecTimeout is ignored. It used to bound a block's statements on
	// the PostgreSQL writer, which could halt a node on a decided block;
	// node-local limits now apply before the vote ([block] tx_timeout).
	ExecTimeout string `toml:"exec_timeout"`
}

// QueryConfig bounds the read path.
type QueryConfig struct {
	// MaxWait bounds how long a query waits for its min_height, e.g. "10s".
	MaxWait string `toml:"max_wait"`
	// ReadTimeout bounds one read on the database (PostgreSQL
	// statement_timeout, MariaDB max_statement_time, SQLite's interrupt),
	// e.g. "10s"; empty: a third of [block] tx_timeout. It must be below
	// tx_timeout (Validate refuses it otherwise): a read that started just
	// before a block must never be what pushes one of the block's txs past
	// tx_timeout (a block that changes the schema also cancels the reads
	// in flight, see app/DESIGN.md).
	ReadTimeout string `toml:"read_timeout"`
}

// ReadTimeout is the read limit the node applies: Query.ReadTimeout, or a
// third of the tx timeout when empty. An unparsable value, or one not
// below the tx timeout, is an error naming both settings.
func (c Config) ReadTimeout() (time.Duration, error) {
	tx, err := c.TxTimeout()
	if err != nil {
		return 0, err
	}
	if tx == 0 {
		tx = app.DefaultTxTimeout
	}
	if c.Query.ReadTimeout == "" {
		return tx / 3, nil
	}
	d, err := time.ParseDuration(c.Query.ReadTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("relchain.toml [query] read_timeout = %q: give a positive duration such as \"10s\"", c.Query.ReadTimeout)
	}
	if d >= tx {
		return 0, fmt.Errorf("relchain.toml [query] read_timeout = %s must be below [block] tx_timeout = %s: a read that started just before a block could hold a lock the block's tx waits for past tx_timeout, and the tx would be quarantined; lower read_timeout (a third of tx_timeout, the default, is %s) or raise tx_timeout", d, tx, tx/3)
	}
	return d, nil
}

// DefaultConfig is the relchain section of a new node.
func DefaultConfig() Config {
	return Config{Backend: BackendConfig{Kind: registry.Default}, Query: QueryConfig{MaxWait: "10s"},
		Block:      BlockConfig{TxTimeout: "30s"},
		Checkpoint: CheckpointConfig{Every: 1000, Keep: 2},
		Recover:    RecoverConfig{OnMismatch: OnMismatchStop},
		History:    HistoryConfig{ProofHeights: app.DefaultProofHeights},
		PG:         defaultPGConfig()}
}

// Validate checks the configuration.
func (c Config) Validate() error {
	d, err := registry.Lookup(c.Backend.Kind)
	if err != nil {
		return err
	}
	if d.Server && c.Backend.DSN == "" {
		return fmt.Errorf("backend %s needs a dsn, e.g. %s", d.Name, d.DSNExample())
	}
	if c.Checkpoint.Every < 0 || (c.Checkpoint.Every > 0 && c.Checkpoint.Keep < 1) {
		return fmt.Errorf("checkpoint: every = %d, keep = %d: every is a number of blocks (0 turns checkpoints off) and keep at least 1", c.Checkpoint.Every, c.Checkpoint.Keep)
	}
	if n := c.Checkpoint.SnapshotChunkBytes; n != 0 && (n < 1<<10 || n > 15<<20) {
		return fmt.Errorf("checkpoint: snapshot_chunk_bytes = %d: give 0 (8 MiB) or between 1 KiB and 15 MiB (CometBFT refuses chunk messages over 16 MB)", n)
	}
	if _, err := c.TxTimeout(); err != nil {
		return err
	}
	if _, err := c.Lanes(); err != nil {
		return err
	}
	if c.History.RetainBlocks < 0 || c.History.ProofHeights < 0 {
		return fmt.Errorf("relchain.toml [history] retain_blocks = %d, proof_heights = %d: give numbers of blocks (0: every block; the default of 100 states)", c.History.RetainBlocks, c.History.ProofHeights)
	}
	if _, err := c.PG.Limits(); err != nil {
		return err
	}
	if _, err := c.ReadTimeout(); err != nil {
		return err
	}
	switch c.Recover.OnMismatch {
	case "", OnMismatchStop:
	case OnMismatchRecover:
		if c.Checkpoint.Every == 0 {
			return fmt.Errorf("recover: on_mismatch = %q restores a checkpoint, but checkpoints are off ([checkpoint] every = 0): set every to a number of blocks, or on_mismatch = %q", OnMismatchRecover, OnMismatchStop)
		}
	default:
		return fmt.Errorf("recover: on_mismatch = %q: use %q (stop and report the divergence; the default) or %q (restore the newest checkpoint the chain confirms and start again)", c.Recover.OnMismatch, OnMismatchStop, OnMismatchRecover)
	}
	return nil
}

// AutoRecover reports whether the node recovers by itself on a divergence.
func (c Config) AutoRecover() bool { return c.Recover.OnMismatch == OnMismatchRecover }

// CheckpointDir is where a node home's checkpoints live.
func CheckpointDir(home string) string { return filepath.Join(home, "data", "checkpoints") }

// SQLitePath returns the database file of a node home whose backend keeps
// its database in a file (not a server).
func (c Config) SQLitePath(home string) string {
	p := c.Backend.DSN
	if p == "" {
		p = filepath.Join("data", "relchain.db")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(home, p)
	}
	return p
}

// LoadConfig reads a node home: CometBFT's config.toml (as CometBFT's own
// binary reads it) and relchain.toml.
func LoadConfig(home string) (*cmtcfg.Config, Config, error) {
	rc := DefaultConfig()
	cfgPath := filepath.Join(home, "config", "config.toml")
	if _, err := os.Stat(cfgPath); err != nil {
		return nil, rc, fmt.Errorf("no node at %s (%w): create one with `relchain init --home %s`", home, err, home)
	}
	v := viper.New()
	v.SetConfigFile(cfgPath)
	if err := v.ReadInConfig(); err != nil {
		return nil, rc, fmt.Errorf("read %s: %w", cfgPath, err)
	}
	cc := cmtcfg.DefaultConfig()
	if err := v.Unmarshal(cc); err != nil {
		return nil, rc, fmt.Errorf("parse %s: %w", cfgPath, err)
	}
	cc.SetRoot(home)
	if err := cc.ValidateBasic(); err != nil {
		return nil, rc, fmt.Errorf("invalid %s: %w", cfgPath, err)
	}
	rcPath := filepath.Join(home, RelchainConfigFile)
	if _, err := toml.DecodeFile(rcPath, &rc); err != nil {
		return nil, rc, fmt.Errorf("read %s: %w", rcPath, err)
	}
	if err := rc.Validate(); err != nil {
		return nil, rc, fmt.Errorf("invalid %s: %w", rcPath, err)
	}
	sql, err := genesisSQLDialect(cc.GenesisFile())
	if err != nil {
		return nil, rc, err
	}
	rc.SQL = sql
	return cc, rc, nil
}

// genesisSQLDialect is the SQL dialect the genesis at path fixes; a home
// without a genesis yet runs its database's own.
func genesisSQLDialect(path string) (SQLDialect, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return SQLDialect{}, nil
	}
	gen, err := types.GenesisDocFromFile(path)
	if err != nil {
		return SQLDialect{}, fmt.Errorf("load genesis: %w", err)
	}
	// Only the dialect: the node validates the whole app_state when it
	// builds the application (app.ParseParams), and tools that open the
	// database (verify, restore) need no more.
	var p struct {
		SQLDialect         string         `json:"sql_dialect"`
		SQLDialectVersion  int            `json:"sql_dialect_version"`
		SQLDialectVersions map[string]int `json:"sql_dialect_versions"`
	}
	if len(gen.AppState) > 0 {
		if err := json.Unmarshal(gen.AppState, &p); err != nil {
			return SQLDialect{}, fmt.Errorf("%s: app_state: %w", path, err)
		}
	}
	return SQLDialect{Name: p.SQLDialect, Version: p.SQLDialectVersion, Versions: p.SQLDialectVersions}, nil
}

// SaveConfig writes both configuration files of a node home.
func SaveConfig(home string, cc *cmtcfg.Config, rc Config) error {
	if err := rc.Validate(); err != nil {
		return err
	}
	cmtcfg.EnsureRoot(home)
	cc.SetRoot(home)
	cmtcfg.WriteConfigFile(filepath.Join(home, "config", "config.toml"), cc)
	// Owner-only: the DSN may hold the database roles' password.
	f, err := os.OpenFile(filepath.Join(home, RelchainConfigFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write relchain config: %w", err)
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil { // a file from before keeps its mode otherwise
		return fmt.Errorf("write relchain config: %w", err)
	}
	fmt.Fprintln(f, "# relchain node settings. Network-wide execution settings live in genesis.json app_state.")
	if err := toml.NewEncoder(f).Encode(rc); err != nil {
		return fmt.Errorf("write relchain config: %w", err)
	}
	return f.Close()
}
