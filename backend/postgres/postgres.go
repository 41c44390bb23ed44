package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/conflict"
)

// Defaults for Options. The query time limit, pool size and result bounds
// are every server backend's (see backend/internal/sqlstore).
const (
	DefaultQueryTimeout  = sqlstore.DefaultQueryTimeout
	DefaultMaxReaders    = sqlstore.DefaultMaxReaders
	DefaultMaxQueryRows  = sqlstore.DefaultMaxQueryRows
	DefaultMaxQueryBytes = sqlstore.DefaultMaxQueryBytes
	// DefaultQueryWorkMem is the work_mem of Query's connections: the
	// memory one sort or hash of a query may use before it spills to
	// temporary files (bounded by the reader role's temp_file_limit).
	DefaultQueryWorkMem = "16MB"
)

// Option configures Open.
type Option func(*options)

type options struct {
	queryTimeout    time.Duration
	maxReaders      int32
	maxQueryRows    int
	maxQueryBytes   int
	noGate          bool
	unsafeSuperuser bool
	truncateChanges bool                       // withTruncatedChanges
	ckpt            sqlstore.CheckpointOptions // WithCheckpoints
}

// withoutGate turns the determinism and safety gate (backend/postgres/pggate) off.
// For benchmarks that measure the gate's cost only: a node without the gate
// executes statements every other node refuses, and diverges.
func withoutGate() Option { return func(o *options) { o.noGate = true } }

// withTruncatedChanges makes every ChangeDigest try to consume the change
// records by TRUNCATE (consumeByTruncate), not only after a block with
// truncateAt records or more: for tests and benchmarks.
func withTruncatedChanges() Option { return func(o *options) { o.truncateChanges = true } }

// WithUnsafeSuperuser lets Open connect as roles with more than relchain
// needs (a superuser, CREATEROLE, BYPASSRLS, REPLICATION, membership in
// other roles) and without a reader role (Query then uses the writer's
// role). Without it Open refuses such roles: a role that may read the
// server's files or signal other sessions turns a hole in the gate into a
// compromised server.
func WithUnsafeSuperuser() Option { return func(o *options) { o.unsafeSuperuser = true } }

// WithQueryTimeout sets the statement_timeout of Query's connections (0
// disables it). It never applies to the block writer: a timeout must not
// decide a transaction's outcome.
func WithQueryTimeout(d time.Duration) Option { return func(o *options) { o.queryTimeout = d } }

// WithMaxReaders sets the size of Query's connection pool.
func WithMaxReaders(n int) Option { return func(o *options) { o.maxReaders = int32(n) } }

// WithQueryLimits bounds the rows and bytes (of the values' text form) one
// Query returns; a query that would return more fails with a
// backend.Error of ClassResource. 0 keeps the default.
func WithQueryLimits(rows, bytes int) Option {
	return func(o *options) {
		if rows > 0 {
			o.maxQueryRows = rows
		}
		if bytes > 0 {
			o.maxQueryBytes = bytes
		}
	}
}

// WithCheckpoints turns on background checkpoints, pg_dump files
// checkpoint-<height>.dump in dir (every, keep and onError as
// backend/internal/sqlstore.CheckpointOptions says for every server
// backend). pg_dump reads a snapshot that a REPEATABLE READ transaction
// exports (PostgreSQL readers never block writers); the cost is one read
// of the database and the dump file's size on disk. pg_dump and
// pg_restore of the server's version must be on PATH or under
// /usr/lib/postgresql/<version>/bin.
func WithCheckpoints(dir string, every int64, keep int, onError func(error)) Option {
	return func(o *options) { o.ckpt = sqlstore.NewCheckpointOptions(dir, every, keep, onError) }
}

// sessionSettings are pinned on every connection (writer and readers) in the
// startup packet, where they override ALTER DATABASE/ROLE ... SET and
// postgresql.conf: every node must render and compute values identically,
// whatever its server's configuration.
func sessionSettings() map[string]string {
	return map[string]string{
		// timestamptz input/output and date arithmetic in one zone.
		"TimeZone": "UTC",
		// Text form of dates and timestamps: ISO 8601 style, Y-M-D order
		// for ambiguous input such as '01/02/03'.
		"DateStyle": "ISO, YMD",
		// Text form of intervals: PostgreSQL's default, pinned.
		"IntervalStyle": "postgres",
		// Floats printed in the shortest form that round-trips exactly.
		"extra_float_digits": "3",
		// No parallel plans: parallel workers make row order and float
		// aggregation order (sum of doubles) depend on timing.
		"max_parallel_workers_per_gather": "0",
		// A sequential scan always starts at block 0, instead of joining a
		// scan already running in another session.
		"synchronize_seqscans": "off",
		// bytea text form; we decode it, and it appears in row images.
		"bytea_output":    "hex",
		"client_encoding": "UTF8",
		// Unqualified names resolve in public only.
		"search_path": "public",
		// Backslashes in '...' literals are literal, as in the standard.
		"standard_conforming_strings": "on",
		// Same handling of = NULL everywhere (off is the default).
		"transform_null_equals": "off",
		// Lock waits never time out (the writer is alone; a timeout must not
		// decide an outcome).
		"lock_timeout": "0",
		// Locale-dependent formatting (money, to_char) in the C locale.
		"lc_monetary": "C",
		"lc_numeric":  "C",
		"lc_time":     "C",
		// initdb picks it from the OS locale; to_tsvector(text) uses it.
		"default_text_search_config": "pg_catalog.simple",
		// Input of zone abbreviations such as 'EST'.
		"timezone_abbreviations": "Default",
		// Defaults that change results if altered, pinned.
		"xmloption":              "content",
		"xmlbinary":              "base64",
		"gin_fuzzy_search_limit": "0",
		"array_nulls":            "on",
		"quote_all_identifiers":  "off",
		"geqo_seed":              "0",
		"row_security":           "on",
		"application_name":       "relchain",
		// With exit_on_error, any failed statement (a tx's ordinary
		// failure) would end the session: a node fault instead of a result.
		"exit_on_error": "off",
		// Where and how new tables are stored: a role's own default
		// tablespace or access method could make CREATE TABLE fail (no
		// permission, no such method) on one node only, and
		// pg_column_compression shows the compression.
		"default_table_access_method": "heap",
		"default_tablespace":          "",
		"temp_tablespaces":            "",
		"default_toast_compression":   "pglz",
		// CREATE FUNCTION checks its body (as on every node).
		"check_function_bodies": "on",
		// '\'' in a literal: only relevant with standard_conforming_strings
		// off, pinned anyway.
		"backslash_quote": "safe_encoding",
		// Libraries a role's settings would load into relchain's session.
		"local_preload_libraries": "",
		// Only for SERIALIZABLE READ ONLY transactions; pinned.
		"default_transaction_deferrable": "off",
	}
}

// Backend is a PostgreSQL database of one validator: one dedicated writer
// connection for blocks and a pool of read-only connections for Query,
// each as its own least-privilege role (see package pgsetup).
type Backend struct {
	// HistoryReader implements backend.HistoryReader (history.go).
	sqlstore.HistoryReader
	gate      *backend.TextGate // the gate seam (gateseam.go)
	dsn       string            // the writer's
	opts      options
	ckpt      sqlstore.Checkpointing
	writerCfg *pgx.ConnConfig
	pool      *pgxpool.Pool
	syntax    syntaxCache
	// queryStmts are the query path's prepared statements, per pool
	// connection (see Query).
	queryStmts queryStmts

	mu sync.Mutex // guards writer, open, closed, lastRecords, stmts
	// stmts are the writer's prepared block statements (blockStmts).
	stmts  blockStmts
	writer *pgx.Conn // nil until the first Begin, and after it was lost
	open   *block
	closed bool
	// lastRecords is how many change records the last committed block
	// consumed: from truncateAt on, the next block consumes them by
	// TRUNCATE (consumeRecords).
	lastRecords int
	// oldImages: the database's table sums are of row image format 1
	// (imagesJSON); the next block migrates them (block.migrating).
	oldImages bool
	// profile is the network's expected server profile (profile.go).
	profile profile
	// seqs: whether relchain.sequences has rows, as far as known (see
	// flushSequences).
	seqs seqsKnown
	// Lanes (lanes.go): maxPrepared is the server's
	// max_prepared_transactions, read at Open; laneConns are the lanes'
	// connections kept between blocks; schemaGen counts the block DDL
	// statements that succeeded, so a kept lane connection knows its
	// prepared statements may be stale; laneGate keeps reads from seeing
	// half a parallel block (readSnapshot).
	maxPrepared int
	laneConns   []*laneConn
	laneWarmth  laneWarmth // what WarmLanes last made laneConns ready for
	schemaGen   uint64
	laneGate    backend.ReadGate
	// catalog is ConflictCatalog's answer while schemaGen is catalogGen.
	catalog    *conflict.Memo
	catalogGen uint64
}

var _ backend.Backend = (*Backend)(nil)

// Open connects to the database named by dsn as the writer, creating the
// database (UTF8, collation C) if it does not exist and the role may,
// checks that it is fit for relchain (collation C, least-privilege roles)
// and installs relchain's schema and change capture. The reader role is
// found from dsn (see pgsetup.SplitDSN); pgsetup.Provision makes both.
func Open(ctx context.Context, dsn string, opts ...Option) (*Backend, error) {
	o := options{queryTimeout: DefaultQueryTimeout, maxReaders: DefaultMaxReaders,
		maxQueryRows: DefaultMaxQueryRows, maxQueryBytes: DefaultMaxQueryBytes}
	for _, f := range opts {
		f(&o)
	}
	writerDSN, readerDSN, err := pgsetup.SplitDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	writerCfg, err := writerConfig(writerDSN)
	if err != nil {
		return nil, err
	}
	if readerDSN == "" && o.unsafeSuperuser {
		readerDSN = writerDSN
	}
	oldImages, maxPrepared, err := prepareDatabase(ctx, writerCfg, readerDSN, o)
	if err != nil {
		// A server that cannot be reached (or is starting) is
		// backend.ErrDatabaseUnavailable: the node waits for it.
		return nil, unavailable(ctx, err)
	}
	b := &Backend{dsn: writerDSN, opts: o, writerCfg: writerCfg, syntax: newSyntaxCache(!o.noGate), oldImages: oldImages, maxPrepared: maxPrepared}
	b.HistoryReader = sqlstore.HistoryReader{Read: b.historyRead, SQL: &historySQL}
	b.gate = b.newGate()
	pool, err := b.openReaders(ctx, readerDSN)
	if err != nil {
		return nil, err
	}
	b.pool = pool
	b.ckpt.Configure(o.ckpt, checkpointExt)
	return b, nil
}

// writerConfig is the block writer's connection configuration.
func writerConfig(dsn string) (*pgx.ConnConfig, error) {
	writerCfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	if writerCfg.Database == "" {
		writerCfg.Database = writerCfg.User
	}
	for k, v := range sessionSettings() {
		writerCfg.RuntimeParams[k] = v
	}
	// The writer is the only writer: read committed is enough, and it
	// waits for locks rather than failing with serialization errors.
	writerCfg.RuntimeParams["default_transaction_isolation"] = "read committed"
	writerCfg.RuntimeParams["default_transaction_read_only"] = "off"
	// Commit must be durable when it returns.
	writerCfg.RuntimeParams["synchronous_commit"] = "on"
	// No timeout may decide a block: a decided block runs to its end (the
	// app bounds a proposal's speculative execution with its context,
	// which cancels the statement; see cancelOnDone).
	writerCfg.RuntimeParams["statement_timeout"] = "0"
	writerCfg.RuntimeParams["idle_in_transaction_session_timeout"] = "0"
	// Nor may an idle writer be disconnected between blocks by a role's
	// or server's idle_session_timeout.
	writerCfg.RuntimeParams["idle_session_timeout"] = "0"
	// See execParams: statements run as unnamed statements with no
	// client-side cache; this mode applies to anything run through pgx.
	// Block statements are prepared by blockStmts; every statement, named
	// or not, gets the generic plan, whatever its history (see blockStmts).
	writerCfg.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	writerCfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	writerCfg.StatementCacheCapacity = 0
	writerCfg.DescriptionCacheCapacity = 0
	writerCfg.BuildContextWatcherHandler = cancelOnDone
	return writerCfg, nil
}

// cancelOnDone makes a done context cancel the running statement on the
// server (a cancel request) instead of breaking the connection: the
// statement fails, the call returns, and the connection stays usable, so
// the block can be rolled back. If the server does not answer within a
// few seconds, the connection's deadline ends the wait (and the
// connection; Begin then reconnects).
func cancelOnDone(pc *pgconn.PgConn) ctxwatch.Handler {
	return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 0, DeadlineDelay: 5 * time.Second}
}

// prepareDatabase checks the database and both roles and installs
// relchain's schema, as the writer.
func prepareDatabase(ctx context.Context, writerCfg *pgx.ConnConfig, readerDSN string, o options) (oldImages bool, maxPrepared int, err error) {
	conn, err := connectOrCreate(ctx, writerCfg)
	if err != nil {
		return false, 0, err
	}
	defer conn.Close(context.Background())
	if err := checkDatabase(ctx, conn); err != nil {
		return false, 0, err
	}
	if err := checkRole(ctx, conn, "writer", o.unsafeSuperuser); err != nil {
		return false, 0, err
	}
	if readerDSN == "" {
		return false, 0, errors.New("postgres: the DSN names no reader role: its user is not <db>_writer and it has no " +
			pgsetup.ParamReader + " parameter, so queries would run as the writer. " + roleFixHint)
	}
	readerCfg, err := pgx.ParseConfig(readerDSN)
	if err != nil {
		return false, 0, fmt.Errorf("postgres: parse reader dsn: %w", err)
	}
	readerCfg.Database = writerCfg.Database
	if err := checkReader(ctx, readerCfg, o.unsafeSuperuser); err != nil {
		return false, 0, err
	}
	if err := migrateEventTriggers(ctx, conn); err != nil {
		return false, 0, err
	}
	reader := ""
	if readerCfg.User != writerCfg.User {
		reader = readerCfg.User
	}
	if oldImages, err = install(ctx, conn, reader); err != nil {
		return false, 0, err
	}
	// Lanes a crash left prepared are finished before anything reads.
	if err := resolveLeftovers(ctx, conn, writerCfg.Database); err != nil {
		return false, 0, err
	}
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.current_setting('max_prepared_transactions')::int").Scan(&maxPrepared); err != nil {
		return false, 0, fmt.Errorf("postgres: read max_prepared_transactions: %w", err)
	}
	return oldImages, maxPrepared, nil
}

// openReaders opens Query's pool, as the reader.
func (b *Backend) openReaders(ctx context.Context, readerDSN string) (*pgxpool.Pool, error) {
	o := b.opts
	poolCfg, err := pgxpool.ParseConfig(readerDSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	poolCfg.ConnConfig.Database = b.writerCfg.Database
	for k, v := range sessionSettings() {
		poolCfg.ConnConfig.RuntimeParams[k] = v
	}
	poolCfg.ConnConfig.RuntimeParams["application_name"] = "relchain-query"
	poolCfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(o.queryTimeout.Milliseconds(), 10)
	poolCfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(2*o.queryTimeout.Milliseconds(), 10)
	poolCfg.ConnConfig.RuntimeParams["work_mem"] = DefaultQueryWorkMem
	poolCfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	poolCfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	poolCfg.ConnConfig.StatementCacheCapacity = 0
	poolCfg.ConnConfig.DescriptionCacheCapacity = 0
	// A cancelled read (a block that changes the schema cancels the reads
	// in flight) is cancelled on the server, which then releases its
	// locks at once, not closed under a statement that runs on.
	poolCfg.ConnConfig.BuildContextWatcherHandler = cancelOnDone
	poolCfg.MaxConns = o.maxReaders
	poolCfg.MinConns = 0
	poolCfg.BeforeClose = func(c *pgx.Conn) { b.queryStmts.forget(c.PgConn()) }
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open query pool: %w", err)
	}
	return pool, nil
}

// connectOrCreate connects to cfg's database, creating it through the
// maintenance database "postgres" on the same server if it does not exist.
func connectOrCreate(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		return conn, nil
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // invalid_catalog_name
		return nil, fmt.Errorf("postgres: connect to %q: %w", cfg.Database, err)
	}
	maint := cfg.Copy()
	maint.Database = "postgres"
	mconn, err := pgx.ConnectConfig(ctx, maint)
	if err != nil {
		return nil, fmt.Errorf("postgres: database %q does not exist; connect to maintenance database to create it: %w", cfg.Database, err)
	}
	_, err = mconn.Exec(ctx, fmt.Sprintf(`CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
		pgx.Identifier{cfg.Database}.Sanitize()))
	mconn.Close(ctx)
	if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "42P04") { // created concurrently
		return nil, fmt.Errorf("postgres: create database %q: %w", cfg.Database, err)
	}
	conn, err = pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect to %q: %w", cfg.Database, err)
	}
	return conn, nil
}

// checkDatabase verifies what relchain cannot pin per session: the
// database's collation and encoding, and session_replication_role (only a
// superuser may set it; "replica", set by ALTER ROLE/DATABASE, would
// silently disable the change-capture triggers).
func checkDatabase(ctx context.Context, conn *pgx.Conn) error {
	var name, collate, ctype, encoding, provider, replicationRole string
	var version int
	err := conn.QueryRow(ctx, `SELECT current_database(), datcollate, datctype, pg_encoding_to_char(encoding),
			current_setting('server_version_num')::int, current_setting('session_replication_role')
		FROM pg_database WHERE datname = current_database()`).
		Scan(&name, &collate, &ctype, &encoding, &version, &replicationRole)
	if err != nil {
		return fmt.Errorf("postgres: inspect database: %w", err)
	}
	if version >= 150000 {
		if err := conn.QueryRow(ctx, `SELECT datlocprovider::text FROM pg_database WHERE datname = current_database()`).Scan(&provider); err != nil {
			return fmt.Errorf("postgres: inspect database: %w", err)
		}
	}
	isC := func(s string) bool { return s == "C" || s == "POSIX" }
	if !isC(collate) || !isC(ctype) || (provider != "" && provider != "c") || encoding != "UTF8" {
		return fmt.Errorf("postgres: database %q has encoding %s, collation %q, ctype %q (provider %q); "+
			"relchain needs UTF8 with collation and ctype C so that ORDER BY, comparisons and unique indexes "+
			"behave identically on every node, whatever locales the OS has. "+
			"Fix: point the DSN at a database that does not exist yet (relchain creates it), or create it with "+
			"CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
			name, encoding, collate, ctype, provider, pgx.Identifier{name}.Sanitize())
	}
	if replicationRole != "origin" {
		return fmt.Errorf("postgres: session_replication_role is %q for the writer of database %q; "+
			"it would disable relchain's change capture. Fix: ALTER ROLE/DATABASE ... RESET session_replication_role",
			replicationRole, name)
	}
	return nil
}

// install creates relchain's schema and change capture in one
// db-transaction, and grants reader (if not "") what Query and the state
// readers need. It is idempotent. It reports whether the database's table
// sums are still of row image format 1 (see relchain.format).
func install(ctx context.Context, conn *pgx.Conn, reader string) (oldImages bool, err error) {
	grants := ""
	if reader != "" {
		grants = readerGrants(pgx.Identifier{reader}.Sanitize())
	}
	// Simple protocol: the script holds many statements.
	_, err = conn.PgConn().Exec(ctx, fmt.Sprintf("BEGIN; SELECT pg_advisory_xact_lock(%d); %s %s COMMIT;",
		installLockKey, schemaSQL+sequenceSQL+clockGuardSQL, grants)).ReadAll()
	if err != nil {
		return false, fmt.Errorf("postgres: install relchain schema: %w", err)
	}
	err = conn.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM relchain.format WHERE id = 1 AND images = `+
		imagesTextSQL+`)`).Scan(&oldImages)
	if err != nil {
		return false, fmt.Errorf("postgres: read the row image format: %w", err)
	}
	return oldImages, nil
}

// Dialect implements backend.Backend.
func (b *Backend) Dialect() string { return "postgres" }

// LoadState implements backend.Backend.
func (b *Backend) LoadState(ctx context.Context) (backend.State, error) {
	var s backend.State
	err := b.pool.QueryRow(ctx, `SELECT height, app_hash FROM relchain.meta WHERE id = 1`).Scan(&s.Height, &s.AppHash)
	if errors.Is(err, pgx.ErrNoRows) {
		return backend.State{}, nil
	}
	if err != nil {
		return backend.State{}, unavailable(ctx, fmt.Errorf("postgres: load state: %w", err))
	}
	return s, nil
}

// Begin implements backend.Backend.
func (b *Backend) Begin(ctx context.Context) (backend.Block, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := sqlstore.CheckBegin("postgres", b.closed, b.open != nil); err != nil {
		return nil, err
	}
	if err := b.connectWriter(ctx); err != nil {
		return nil, unavailable(ctx, fmt.Errorf("postgres: begin: %w", err))
	}
	// Change records left from outside a block (a write made out of band
	// while the capture triggers were active: every block consumes its own
	// before Commit, and a rolled-back block's roll back with it) stop the
	// block before it starts: they never enter a digest. Whether there are
	// any is asked in BEGIN's round trip.
	// The same round trip reads the server's profile: a server that
	// differs from the network's (a superuser changed max_stack_depth for
	// the writer's role, say) runs no block, a node fault naming the
	// setting.
	res, err := b.writer.PgConn().Exec(ctx, beginSQL+"; "+anyChangeSQL+"; "+profileSQL).ReadAll()
	if err != nil {
		b.dropWriter()
		return nil, unavailable(ctx, fmt.Errorf("postgres: begin: %w", err))
	}
	if len(res) < 3 {
		b.dropWriter()
		return nil, fmt.Errorf("postgres: begin: unexpected answer to %q", profileSQL)
	}
	err = b.profile.check(res[len(res)-1])
	if err == nil {
		err = outOfBand(ctx, b.writer, res[:len(res)-1])
	}
	if err != nil {
		if _, rerr := b.writer.PgConn().Exec(ctx, "ROLLBACK").ReadAll(); rerr != nil {
			b.dropWriter()
		}
		return nil, unavailable(ctx, fmt.Errorf("postgres: begin: %w", err))
	}
	b.open = &block{b: b, delta: make(backend.TableDelta), ddl: b.oldImages, migrating: b.oldImages, seqsAtBegin: b.seqs}
	b.open.session = &session{b: b, blk: b.open, mu: &b.mu, stmts: &b.stmts, conn: b.writer}
	return classified(b.open), nil
}

// connectWriter connects the block writer unless it is connected. The
// caller holds b.mu.
func (b *Backend) connectWriter(ctx context.Context) error {
	if b.writer != nil && takeCancelled(b.writer.PgConn()) {
		// A cancel request sent for its session may still cancel the
		// next statement (cancelledSessions): a new session instead.
		_ = b.writer.Close(ctx)
	}
	if b.writer != nil && b.writer.IsClosed() {
		b.writer = nil
	}
	if b.writer != nil {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, b.writerCfg)
	if err != nil {
		return fmt.Errorf("connect writer: %w", err)
	}
	// The session lost may have left a parallel block's lanes prepared
	// (its COMMIT's outcome unknown to it): finished before the next block.
	if err := resolveLeftovers(ctx, conn, b.writerCfg.Database); err != nil {
		_ = conn.Close(ctx)
		return err
	}
	b.writer = conn
	// The kept lane connections were most likely lost with the writer's
	// (a server restart): each would fail one retry of a block.
	b.closeLaneConns()
	// A new session may be on another database (a restore swapped it in):
	// whether it has sequences is asked again (flushSequences).
	b.seqs = seqsUnknown
	return nil
}

// dropWriter closes the writer connection; the next Begin reconnects. The
// caller holds b.mu.
func (b *Backend) dropWriter() {
	if b.writer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = b.writer.Close(ctx)
		cancel()
		b.writer = nil
	}
}

// analyze is the gate's verdict on committed state (gateseam.go):
// PostgreSQL's parser and the gate, both pure functions of the text, so the
// verdict does not depend on committed state.
func (b *Backend) analyze(_ context.Context, sql string) (sqlcheck.Analysis, error) {
	st, err := b.syntax.gated(sql)
	return st.analysis, err
}

// Close implements backend.Backend.
func (b *Backend) Close() error {
	return sqlstore.Close(&b.mu, &b.closed, &b.ckpt, func(ctx context.Context) error {
		if b.open == nil {
			return nil
		}
		return b.open.rollback(ctx)
	}, func() {
		b.dropWriter()
		b.closeLaneConns()
		b.pool.Close()
	})
}
