package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/sqlcheck"
)

// Defaults for Options: those of every server backend (see
// backend/internal/sqlstore).
const (
	DefaultQueryTimeout, DefaultMaxReaders    = sqlstore.DefaultQueryTimeout, sqlstore.DefaultMaxReaders
	DefaultMaxQueryRows, DefaultMaxQueryBytes = sqlstore.DefaultMaxQueryRows, sqlstore.DefaultMaxQueryBytes
)

// SQLMode is the sql_mode of every connection: strict for every table
// (an out-of-range or truncated value fails the statement instead of
// being clipped with a warning, whatever the engine), no zero dates,
// division by zero an error, ONLY_FULL_GROUP_BY (a non-aggregated column
// not functionally dependent on the GROUP BY would return an arbitrary
// row's value), and no silent engine substitution (a table must be
// InnoDB, transactional, on every node). PIPES_AS_CONCAT and ANSI_QUOTES
// stay off: the gate's parser reads || as OR and "..." as a string, as
// MySQL does by default.
const SQLMode = "STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,ONLY_FULL_GROUP_BY,NO_ENGINE_SUBSTITUTION"

// Option configures Open.
type Option func(*options)

type options struct {
	queryTimeout time.Duration
	maxReaders   int
	maxRows      int
	maxBytes     int64
	readerDSN    string
	unsafeSuper  bool
	noGate       bool
	// ddlHook, when set (tests), runs at the stages of a DDL statement
	// (see block.execDDL): "before" (recovery record committed, DDL not
	// run) and "after" (DDL and triggers done, block not reopened). An
	// error it returns is returned by Exec as a node fault: a simulated
	// crash at that point.
	ddlHook func(stage string) error
	ckpt    sqlstore.CheckpointOptions // WithCheckpoints
	// pg: WithPostgresDialect.
	pg bool
}

// withoutGate turns the determinism and safety gate (backend/mysql/mysqlgate) off.
// The backend's own backstop (statement kinds that would break the block's
// db-transaction or session) stays. For benchmarks and tests only: a node
// without the gate executes statements every other node refuses.
func withoutGate() Option { return func(o *options) { o.noGate = true } }

// WithQueryTimeout bounds a Query's statement (MariaDB max_statement_time,
// MySQL max_execution_time; 0 disables it). It never applies to the block
// writer: a timeout must not decide a transaction's outcome.
func WithQueryTimeout(d time.Duration) Option { return func(o *options) { o.queryTimeout = d } }

// WithMaxReaders sets the size of Query's connection pool.
func WithMaxReaders(n int) Option { return func(o *options) { o.maxReaders = n } }

// WithQueryLimits bounds the rows and bytes (of values) one Query returns
// (0: no bound). Past either, Query fails with a ClassResource error.
func WithQueryLimits(rows int, bytes int64) Option {
	return func(o *options) { o.maxRows, o.maxBytes = rows, bytes }
}

// WithReaderDSN makes Query connect with another account (see
// SetupAccounts: one with SELECT on the node's database only). Without
// it, Query uses the writer's account, in read-only transactions.
func WithReaderDSN(dsn string) Option { return func(o *options) { o.readerDSN = dsn } }

// WithUnsafeSuperuser lets Open use accounts that hold server-wide or
// dangerous privileges (see checkPrivileges). Never in production: any
// statement that slips past the gate then acts with them.
func WithUnsafeSuperuser() Option { return func(o *options) { o.unsafeSuper = true } }

// WithCheckpoints turns on background checkpoints, files
// checkpoint-<height>.mysqldump in dir (every, keep and onError as
// backend/internal/sqlstore.CheckpointOptions says for every server
// backend). The dump is relchain's own (dumpSnapshot), in one
// consistent-snapshot read-only transaction: InnoDB readers never block
// the writer.
func WithCheckpoints(dir string, every int64, keep int, onError func(error)) Option {
	return func(o *options) { o.ckpt = sqlstore.NewCheckpointOptions(dir, every, keep, onError) }
}

// Backend is a MySQL or MariaDB database of one validator: one dedicated
// writer connection for blocks, a pool of read-only connections for
// Query, and, on the writer's account, a killer connection (it stops a
// cancelled block's statement on the server, see block.watch) and a small
// internal pool (the server's syntax check, state, system state and
// checkpoint reads) that hostile reads cannot exhaust.
type Backend struct {
	// HistoryReader implements backend.HistoryReader (history.go).
	sqlstore.HistoryReader
	// pgCatalog is the emulated PostgreSQL catalog's Engine (pgcatalog.go),
	// made on first use.
	pgCatalog     *catalogCache
	pgCatalogOnce sync.Once
	// schemaGen counts the DDL statements of this node's blocks that
	// changed the schema (block.schemaChanged): the emulated catalog is
	// read again when it moved (catalogCache.refresh). Node-local.
	schemaGen atomic.Uint64
	// conflictCat is the conflict catalog read at a schemaGen
	// (conflict_catalog.go).
	conflictCat conflictCatalogCache
	gate        *backend.TextGate // the gate seam (gateseam.go)
	opts        options
	flavor      flavor
	dbName      string
	writer      *sql.DB // at most one connection; a block holds it as a *sql.Conn
	killer      *sql.DB // KILL QUERY / KILL of the writer's connection
	internal    *sql.DB
	readers     *sql.DB
	verdict     verdictCache
	// pgTr caches translations in the postgres dialect (pgcache.go).
	pgTr translations
	ckpt sqlstore.Checkpointing
	// profile is the network's expected server profile and what the
	// writer's server has (profile.go).
	profile *profile

	// readKiller, on the reader's account, stops a cancelled read's
	// statement on the server (see readOnServer).
	readKiller *sql.DB

	mu     sync.Mutex // guards open, closed
	open   *block
	closed bool

	// Lanes (lanes.go): lanePool holds the lanes' connections (the
	// writer's account and settings); xaErr is why the account cannot
	// recover XA transactions (checked once); xaLeftovers: a parallel
	// block may have left a prepared lane, which the next Begin resolves
	// (Open resolves those a crash left);
	// laneGate is the read gate (readGate).
	lanePool    *sql.DB
	xaOnce      sync.Once
	xaErr       error
	xaLeftovers atomic.Bool
	laneGate    backend.ReadGate
}

var _ backend.Backend = (*Backend)(nil)

// flavor is the server family: the session variables differ.
type flavor struct {
	mariadb bool
	version string
}

// Open connects to the database named by dsn (a go-sql-driver/mysql DSN,
// e.g. root@tcp(127.0.0.1:3306)/relchain_node0), creating it (utf8mb4,
// utf8mb4_bin) if it does not exist, checks the server, and installs
// relchain's tables.
func Open(ctx context.Context, dsn string, opts ...Option) (*Backend, error) {
	o := options{queryTimeout: DefaultQueryTimeout, maxReaders: DefaultMaxReaders,
		maxRows: DefaultMaxQueryRows, maxBytes: DefaultMaxQueryBytes}
	for _, f := range opts {
		f(&o)
	}
	cfg, err := connConfig(dsn)
	if err != nil {
		return nil, err
	}
	rcfg := cfg
	if o.readerDSN != "" {
		if rcfg, err = connConfig(o.readerDSN); err != nil {
			return nil, fmt.Errorf("reader: %w", err)
		}
		if rcfg.DBName != cfg.DBName {
			return nil, fmt.Errorf("mysql: the reader's dsn names database %q, the writer's %q", rcfg.DBName, cfg.DBName)
		}
	}
	// PostgreSQL counts rows matched (WithPostgresDialect).
	cfg.ClientFoundRows, rcfg.ClientFoundRows = o.pg, o.pg
	fl, err := createDatabase(ctx, cfg)
	if err != nil {
		// A server that cannot be reached is
		// backend.ErrDatabaseUnavailable: the node waits for it.
		return nil, unavailable(ctx, err)
	}
	if o.pg && !fl.mariadb {
		return nil, fmt.Errorf("mysql: WithPostgresDialect needs MariaDB (the translation's text is MariaDB's), the server is %s", fl.version)
	}
	b := &Backend{opts: o, flavor: fl, dbName: cfg.DBName, verdict: newVerdictCache(!o.noGate), profile: newProfile(fl)}
	b.HistoryReader = sqlstore.HistoryReader{Read: b.historyRead, SQL: &historySQL}
	b.gate = b.newGate()
	b.ckpt.Configure(o.ckpt, checkpointExt)
	if err := b.openPools(cfg, rcfg); err != nil {
		return nil, err
	}
	if err := b.checkAccounts(ctx, o.readerDSN != ""); err != nil {
		b.closeDBs()
		return nil, err
	}
	if err := b.checkServer(ctx); err != nil {
		b.closeDBs()
		return nil, err
	}
	if err := b.install(ctx); err != nil {
		b.closeDBs()
		return nil, err
	}
	if b.flavor.mariadb {
		// A crashed parallel block may have left prepared lanes: resolved
		// now, before the first read, which would otherwise see a decided
		// block's writer part (its height) without its prepared lanes.
		if err := b.resolveAtOpen(ctx); err != nil {
			b.closeDBs()
			return nil, unavailable(ctx, err)
		}
	}
	return b, nil
}

// resolveAtOpen resolves the prepared lanes a crashed process left
// (resolveLeftovers) on a writer's connection.
func (b *Backend) resolveAtOpen(ctx context.Context) error {
	conn, err := b.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("mysql: open: connect writer: %w", err)
	}
	defer conn.Close()
	if err := resolveLeftovers(ctx, conn, b.dbName); err != nil {
		return fmt.Errorf("mysql: open: %w", err)
	}
	return nil
}

// connConfig parses a DSN and fixes the connection settings relchain
// relies on.
func connConfig(dsn string) (*gomysql.Config, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql: parse dsn: %w", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("mysql: the dsn names no database (…/dbname)")
	}
	cfg.Collation = "utf8mb4_bin"
	// One round trip per statement with arguments: the driver quotes them
	// into the text (with NO_BACKSLASH_ESCAPES honoured) instead of a
	// server-side prepare, execute and close. See execArgs.
	cfg.InterpolateParams = true
	cfg.ParseTime = false
	cfg.MultiStatements = false
	cfg.ClientFoundRows = false
	cfg.Loc = time.UTC
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	return cfg, nil
}

// openPools opens the writer, killer and internal pools on the writer's
// account (cfg) and Query's pool on the reader's (rcfg).
func (b *Backend) openPools(cfg, rcfg *gomysql.Config) error {
	pool := func(c *gomysql.Config, init []string, n int) (*sql.DB, error) {
		conn, err := gomysql.NewConnector(c)
		if err != nil {
			return nil, fmt.Errorf("mysql: %w", err)
		}
		db := sql.OpenDB(&initConnector{inner: conn, init: init})
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
		return db, nil
	}
	var err error
	if b.writer, err = pool(cfg, b.withPG(sessionInit(b.flavor, true, 0)), 1); err != nil {
		return err
	}
	b.writer.SetConnMaxLifetime(0)
	if b.lanePool, err = pool(cfg, b.withPG(sessionInit(b.flavor, true, 0)), maxLaneConns); err != nil {
		return err
	}
	b.lanePool.SetMaxIdleConns(laneWarmMax)
	if b.killer, err = pool(cfg, nil, 1); err != nil {
		b.closeDBs()
		return err
	}
	if b.internal, err = pool(cfg, b.withPG(sessionInit(b.flavor, false, 0)), 2); err != nil {
		b.closeDBs()
		return err
	}
	if b.readers, err = pool(rcfg, b.withPG(sessionInit(b.flavor, false, b.opts.queryTimeout)), b.opts.maxReaders); err != nil {
		b.closeDBs()
		return err
	}
	if b.readKiller, err = pool(rcfg, nil, 1); err != nil {
		b.closeDBs()
		return err
	}
	return nil
}

// createDatabase connects without a database, creates cfg.DBName if it
// does not exist and reports the server's flavor.
func createDatabase(ctx context.Context, cfg *gomysql.Config) (flavor, error) {
	c := cfg.Clone()
	c.DBName = ""
	conn, err := gomysql.NewConnector(c)
	if err != nil {
		return flavor{}, fmt.Errorf("mysql: %w", err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var fl flavor
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&fl.version); err != nil {
		return flavor{}, fmt.Errorf("mysql: connect: %w", err)
	}
	fl.mariadb = strings.Contains(strings.ToLower(fl.version), "mariadb")
	// A least-privilege account sees its own database and may not create
	// one (even with IF NOT EXISTS): create it only if it is not there.
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
		cfg.DBName).Scan(&n); err != nil {
		return flavor{}, fmt.Errorf("mysql: look for database %q: %w", cfg.DBName, err)
	}
	if n > 0 {
		return fl, nil
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(cfg.DBName)+
		" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		return flavor{}, fmt.Errorf("mysql: create database %q: %w", cfg.DBName, err)
	}
	return fl, nil
}

// sessionInit is the statement sequence run on every new connection: the
// pinned session settings (see DESIGN.md, "Server configuration"). Anything that
// changes a statement's result, error or row images is pinned, so a node's
// my.cnf cannot make it compute differently.
func sessionInit(fl flavor, writer bool, timeout time.Duration) []string {
	set := []string{
		"time_zone = '+00:00'",
		"sql_mode = '" + SQLMode + "'",
		"autocommit = 1",
		// Scale of DECIMAL division results (1/3 = 0.3333).
		"div_precision_increment = 4",
		"foreign_key_checks = 1",
		"unique_checks = 1",
		"sql_auto_is_null = 0",
		"sql_safe_updates = 0",
		"sql_select_limit = DEFAULT",
		"max_join_size = DEFAULT",
		"sql_big_selects = 1",
		"group_concat_max_len = 1048576",
		"max_sort_length = 1024",
		"lc_time_names = 'en_US'",
		"default_week_format = 0",
		"auto_increment_increment = 1",
		"auto_increment_offset = 1",
		"explicit_defaults_for_timestamp = 1",
		"default_storage_engine = 'InnoDB'",
		"updatable_views_with_limit = 'YES'",
		// Whether some CREATE/ALTER TABLE options fail or only warn.
		"innodb_strict_mode = ON",
	}
	iso := "REPEATABLE-READ"
	if writer {
		// The writer is the only writer: read committed is enough.
		iso = "READ-COMMITTED"
		// A block's DDL waits for the metadata locks of reads in flight
		// (each bounded by the readers' statement time limit); a node's
		// my.cnf must not turn that wait into a failed block (1205, a
		// node fault): the longest wait the server allows.
		set = append(set, "lock_wait_timeout = 31536000")
		// A server-wide read-only default would fail every write (1792).
		if fl.mariadb {
			set = append(set, "tx_read_only = 0")
		} else {
			set = append(set, "transaction_read_only = 0")
		}
	}
	if fl.mariadb {
		set = append(set,
			"tx_isolation = '"+iso+"'",
			"check_constraint_checks = 1",
			"old_mode = 'UTF8_IS_UTF8MB3'",
			"max_recursive_iterations = 1000",
			// REGEXP's PCRE flags: DOTALL, MULTILINE, EXTENDED ... change
			// what a pattern matches (issue 32, reproduction 4).
			"default_regex_flags = ''",
			// IF EXISTS implied on DROP/ALTER: a missing object would not fail.
			"sql_if_exists = 0",
			// ALTER TABLE ... fails when the algorithm it forces is not
			// possible for the change: let the server choose.
			"alter_algorithm = 'DEFAULT'",
			// Memory and temporary-table limits: past them a statement
			// fails (1290, 1114: node faults, see classOf); pinned at the
			// server's defaults so that only the server's real resources
			// can stop a statement.
			"max_session_mem_used = 9223372036854775807",
			"tmp_disk_table_size = 18446744073709551615",
			"tmp_memory_table_size = 16777216",
			"max_heap_table_size = 16777216",
			// WITH RECURSIVE as the SQL standard has it.
			"standard_compliant_cte = 1",
			// New tables are not page-compressed (row size limits).
			"innodb_compression_default = OFF",
			"character_set_filesystem = 'binary'",
			"max_sp_recursion_depth = 0",
			fmt.Sprintf("max_statement_time = %g", timeout.Seconds()))
	} else {
		set = append(set,
			"transaction_isolation = '"+iso+"'",
			"cte_max_recursion_depth = 1000",
			fmt.Sprintf("max_execution_time = %d", timeout.Milliseconds()))
	}
	return []string{
		"SET NAMES utf8mb4 COLLATE utf8mb4_bin",
		"SET SESSION " + strings.Join(set, ", "),
	}
}

// WriterConnector wraps inner so that every connection it opens pins the
// session settings of a node's block writer, without a statement time
// limit: for a raw baseline that must compute exactly as a node does.
// mariadb selects MariaDB's variable names over MySQL's.
func WriterConnector(inner driver.Connector, mariadb bool) driver.Connector {
	return &initConnector{inner: inner, init: sessionInit(flavor{mariadb: mariadb}, true, 0)}
}

// initConnector runs init on every connection it opens, after the
// server ran its init_connect (which it does while the connection is
// established, before the client's first statement): relchain's pins
// win over whatever init_connect set (and the profile refuses a server
// with an init_connect: see profile.go).
type initConnector struct {
	inner driver.Connector
	init  []string
}

func (c *initConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, errors.New("mysql: driver connection cannot execute")
	}
	for _, s := range c.init {
		if _, err := ex.ExecContext(ctx, s, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("mysql: pin session settings: %s: %w", s, err)
		}
	}
	return conn, nil
}

func (c *initConnector) Driver() driver.Driver { return c.inner.Driver() }

// MaxAllowedPacket is the max_allowed_packet every node's server must run
// with (its largest value): it cannot be pinned per session, and results
// larger than it become NULL.
const MaxAllowedPacket = 1 << 30

// checkServer verifies what relchain cannot pin per session.
func (b *Backend) checkServer(ctx context.Context) error {
	var lctn int
	var packet int64
	var charset, collation, engine string
	err := b.internal.QueryRowContext(ctx, `SELECT @@lower_case_table_names, @@character_set_database,
		@@collation_database, @@default_storage_engine, @@global.max_allowed_packet`).Scan(&lctn, &charset, &collation, &engine, &packet)
	if err != nil {
		return fmt.Errorf("mysql: inspect server: %w", err)
	}
	if packet != MaxAllowedPacket {
		return fmt.Errorf("mysql: server has max_allowed_packet=%d; relchain needs %d (1 GiB) on every node: "+
			"string functions (REPEAT, LPAD, CONCAT, ...) return NULL for results larger than it, so a "+
			"different value makes the same statement store different rows on different nodes. "+
			"Fix: start the server with --max-allowed-packet=1G (or SET GLOBAL max_allowed_packet = %d)",
			packet, MaxAllowedPacket, MaxAllowedPacket)
	}
	if lctn != 1 {
		return fmt.Errorf("mysql: server has lower_case_table_names=%d; relchain needs 1 on every node, "+
			"so that table names compare the same everywhere and match the gate's lower-cased names. "+
			"Fix: start the server with --lower-case-table-names=1 (MySQL 8: at initialisation)", lctn)
	}
	if charset != "utf8mb4" || collation != "utf8mb4_bin" {
		return fmt.Errorf("mysql: database %q has character set %s, collation %s; relchain needs utf8mb4 with "+
			"utf8mb4_bin so that comparisons, ORDER BY and unique keys are byte-wise on every node. "+
			"Fix: point the DSN at a database that does not exist yet (relchain creates it), or "+
			"ALTER DATABASE %s CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", b.dbName, charset, collation, quoteIdent(b.dbName))
	}
	if !strings.EqualFold(engine, "InnoDB") {
		return fmt.Errorf("mysql: default storage engine is %s; relchain needs InnoDB (transactional)", engine)
	}
	return b.checkBinlog(ctx)
}

// checkBinlog: with binary logging on, creating triggers (the capture
// triggers) needs SUPER unless log_bin_trust_function_creators is set,
// and relchain's accounts have no SUPER.
func (b *Backend) checkBinlog(ctx context.Context) error {
	if b.opts.unsafeSuper {
		return nil
	}
	var logBin, trust int
	if err := b.internal.QueryRowContext(ctx, "SELECT @@log_bin, @@log_bin_trust_function_creators").Scan(&logBin, &trust); err != nil {
		return fmt.Errorf("mysql: inspect server: %w", err)
	}
	if logBin == 1 && trust == 0 {
		return errors.New("mysql: the server logs binary (log_bin=ON) without log_bin_trust_function_creators: " +
			"relchain's least-privilege writer cannot create its capture triggers then (it would need SUPER). " +
			"Fix: SET GLOBAL log_bin_trust_function_creators = 1 (and in my.cnf), or run the server with --skip-log-bin")
	}
	return nil
}

// DDLCommitsImplicitly reports that a block's DDL statement is committed
// at once, whatever becomes of the block: a block with DDL must be
// executed only once it is decided (FinalizeBlock), never speculatively
// (ProcessProposal), on this backend. A rolled-back execution of the same
// block replays correctly; one of another block makes Commit fail with
// ErrAbandonedDDL. See DESIGN.md (Cancellation).
func (b *Backend) DDLCommitsImplicitly() bool { return true }

// Dialect implements backend.Backend.
func (b *Backend) Dialect() string { return "mysql" }

// LoadState implements backend.Backend.
func (b *Backend) LoadState(ctx context.Context) (backend.State, error) {
	var s backend.State
	// The connection is taken before the read gate: a reader must never
	// wait for a pool while holding it (readGate).
	conn, err := b.internal.Conn(ctx)
	if err != nil {
		return backend.State{}, unavailable(ctx, fmt.Errorf("mysql: load state: %w", err))
	}
	defer conn.Close()
	unlock := b.readGate()
	err = conn.QueryRowContext(ctx, `SELECT height, app_hash FROM relchain_meta WHERE id = 1`).Scan(&s.Height, &s.AppHash)
	unlock()
	if errors.Is(err, sql.ErrNoRows) {
		return backend.State{}, nil
	}
	if err != nil {
		return backend.State{}, unavailable(ctx, fmt.Errorf("mysql: load state: %w", err))
	}
	if s.AppHash == nil {
		s.AppHash = []byte{}
	}
	return s, nil
}

// Begin implements backend.Backend.
func (b *Backend) Begin(ctx context.Context) (backend.Block, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := sqlstore.CheckBegin("mysql", b.closed, b.open != nil); err != nil {
		return nil, err
	}
	conn, err := b.writer.Conn(ctx)
	if err != nil {
		return nil, unavailable(ctx, fmt.Errorf("mysql: begin: connect writer: %w", err))
	}
	if b.xaLeftovers.Load() {
		if err := resolveLeftovers(ctx, conn, b.dbName); err != nil {
			discard(conn)
			return nil, unavailable(ctx, fmt.Errorf("mysql: begin: %w", err))
		}
		b.xaLeftovers.Store(false)
	}
	k := &block{b: b, delta: make(backend.TableDelta)}
	k.session = &session{b: b, blk: k, mu: &b.mu, conn: conn}
	if err := k.start(ctx); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
		conn.Close()
		return nil, unavailable(ctx, fmt.Errorf("mysql: begin: %w", err))
	}
	// The block's height: the next after the committed one (read in the
	// block's own db-transaction). DDL recovery records are keyed by it.
	// The same round trip reads the server's profile: a server that
	// differs from the network's (its configuration changed since the
	// last block, say) runs no block, a node fault naming the setting.
	vals := make([]string, len(b.profile.settings))
	dest := []any{&k.connID, &k.height}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	if err := conn.QueryRowContext(ctx, `SELECT CONNECTION_ID(), COALESCE((SELECT height FROM relchain_meta WHERE id = 1), 0), `+
		b.profile.columns).Scan(dest...); err != nil {
		k.abandon()
		return nil, unavailable(ctx, fmt.Errorf("mysql: begin: read height: %w", err))
	}
	if err := b.profile.check(vals); err != nil {
		k.abandon()
		return nil, fmt.Errorf("mysql: begin: %w", err)
	}
	k.height++
	// Change records no block made stop the block before it starts.
	if err := outOfBand(ctx, conn); err != nil {
		k.abandon()
		return nil, unavailable(ctx, fmt.Errorf("mysql: begin: %w", err))
	}
	b.open = k
	return classified(k), nil
}

// analyze is the gate's verdict on committed state (gateseam.go): the
// backend's backstop, the gate, and the server's parser (a prepare, never
// executed; its verdict cached by text) for syntax.
func (b *Backend) analyze(ctx context.Context, sql string) (sqlcheck.Analysis, error) {
	st, err := b.verdict.gated(sql)
	if err != nil {
		return st.analysis, b.syntaxFirst(ctx, st, err)
	}
	if err := b.serverSyntax(ctx, st); err != nil {
		return st.analysis, err
	}
	return st.analysis, nil
}

// Close implements backend.Backend.
func (b *Backend) Close() error {
	return sqlstore.Close(&b.mu, &b.closed, &b.ckpt, func(ctx context.Context) error {
		if b.open == nil {
			return nil
		}
		return b.open.rollback(ctx)
	}, b.closeDBs)
}

func (b *Backend) closeDBs() {
	b.catalog().close()
	for _, db := range []*sql.DB{b.writer, b.killer, b.internal, b.readers, b.readKiller, b.lanePool} {
		if db != nil {
			db.Close()
		}
	}
}

// quoteIdent quotes a MySQL identifier.
func quoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// quoteString quotes a string literal (NO_BACKSLASH_ESCAPES-proof: the
// only escapes used are doubled quotes, and backslashes are doubled only
// when the mode lets them escape; relchain's own texts hold none).
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}
