package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

const (
	metaTable    = "relchain_meta"
	systemTable  = "relchain_system"
	changesTable = "relchain_changes"
	digestTable  = "relchain_digest"
	triggerPfx   = "relchain_cap_"
	savepoint    = "relchain_tx"
	readers      = 4
	stmtCache    = 512
	// walCheckpointPages is the writer's wal_autocheckpoint: up to ~40 MiB
	// of WAL (4 KiB pages) between checkpoints.
	walCheckpointPages = 10_000
)

// schema is created on first open, in one transaction.
const schema = `
CREATE TABLE IF NOT EXISTS relchain_meta (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	height INTEGER NOT NULL,
	app_hash BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS relchain_system (
	key BLOB PRIMARY KEY,
	value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS relchain_changes (
	tbl TEXT NOT NULL,
	op TEXT NOT NULL,
	img TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS relchain_digest (
	tbl TEXT PRIMARY KEY,
	sum BLOB NOT NULL
) WITHOUT ROWID;` + historySchema

// pragmas pinned on every connection. foreign_keys, recursive_triggers
// and case_sensitive_like change results, so they are fixed here rather
// than left to compile-time defaults.
var pragmas = []string{
	"PRAGMA busy_timeout = 10000",
	"PRAGMA foreign_keys = ON",
	"PRAGMA recursive_triggers = OFF",
	"PRAGMA case_sensitive_like = OFF",
	"PRAGMA trusted_schema = OFF",
	// Row order without ORDER BY must stay SQLite's deterministic scan
	// order (see DESIGN.md, "Order-sensitive forms").
	"PRAGMA reverse_unordered_selects = OFF",
}

// Backend is a SQLite database file.
type Backend struct {
	// HistoryReader implements backend.HistoryReader (history.go).
	sqlstore.HistoryReader
	path string
	opts options

	wmu       sync.Mutex // guards the writer and open
	w         *sqlite3.Conn
	open      bool
	blockGen  int64 // counts Begin: a Block only acts while its generation is open
	workLimit int64 // WorkLimit; lower only in tests (export_test.go)
	lost      bool  // SQLite rolled back the open block's transaction
	lostBy    error // the node-local fault (deadline, out of memory) that lost it, if one did
	txDDL     bool  // a DDL statement ran (or failed) since the last Savepoint
	internal  bool  // the writer runs relchain's own statements: authorizer allows
	wgate     gate  // the gate's state for the writer's statement being compiled
	rw        *rewriter
	vetted    map[string]string
	blockDDL  bool // the open block changed the schema
	// sumsStale: Begin reconciled a schema changed outside any block; the
	// block's state digest reads the table sums whole (node-local work,
	// unlike blockDDL).
	sumsStale bool
	delta     backend.TableDelta // the open block's digested changes, for StateDigest
	changed   changedRows        // the open block's digested row images, for CanonicalDelta
	ckpt      backend.Checkpointer
	schemaGen atomic.Int64 // bumped when a block that changed the schema commits
	// seqCache is the committed schema's sequences (generation gen of
	// schemaGen): CanonicalSequences reads them once per schema, not once
	// per block. Guarded by wmu.
	seqCache struct {
		valid bool
		gen   int64
		seqs  []pgcatalog.Sequence
	}
	stmts     map[string]*cached
	stmtOrder []string
	schemaVer int64
	// beginSchemaVer is schemaVer when the open block began: a Rollback
	// brings the schema back to the one the block began on, and the
	// remembered version with it.
	beginSchemaVer int64
	rescans        int // state digests computed by a full rescan (tests)
	scratch        scratch

	// pgEnv is the open tx's environment, which the postgres dialect's
	// gate writes into the statement's text (pggate.Rewrite); guarded by
	// wmu.
	pgEnv sqlcheck.Env
	// pgTranslations caches the writer's translations (postgres dialect)
	// by statement text and argument types, guarded by wmu. A translation
	// is a function of the text, the argument types and the schema alone,
	// so the cache is emptied wherever the statement cache is: whenever
	// the writer's schema changed or went back (dropStatements).
	pgTranslations map[string]*pgdialect.Translation
	// pgStatements: the translations of the texts that run as written,
	// by text (pgsql.go), emptied with pgTranslations; guarded by wmu.
	pgStatements pgStatements

	// Attribution of change records to txs, guarded by wmu: whether a
	// tx's savepoint is open and which tx it is (the hook tags each record
	// it takes with it, capture.go).
	txOpen bool
	curTx  int
	// fkImmediate: the open tx ran SET CONSTRAINTS ALL IMMEDIATE (postgres
	// dialect, deferfk.go), guarded by wmu.
	fkImmediate bool
	// fkEv: the open tx's row changes while deferred (deferevents.go);
	// deferredSchema: whether the schema has deferred keys (0 not known,
	// -1 no, 1 yes; dropStatements forgets). Both guarded by wmu.
	fkEv           fkEvents
	deferredSchema int8
	// fkNamed: the keys SET CONSTRAINTS made IMMEDIATE by name in the open
	// tx, by fkKey.keyID (deferkeys.go); guarded by wmu.
	fkNamed map[string]fkKey
	// fkEvCache: rowEventsOf by statement text (a function of the text
	// alone), bounded as pgTranslations; guarded by wmu.
	fkEvCache map[string]rowEvents
	istmts    map[string]*sqlite3.Stmt // kept internal statements (internalStmt)
	hook      hookCapture              // change capture (capture.go), guarded by wmu

	readPool chan *sqlite3.Conn
	// readsDrained: Close closed the pooled read connections (under wmu).
	readsDrained bool
	// querySlots bounds the clients' queries running at once to one less
	// than the read connections: however many hostile reads are in
	// flight, one connection stays free for CheckTx's Analyze and the
	// node's own reads.
	querySlots chan struct{}
	// restricted marks a read connection that is running a client's query:
	// its authorizer then applies the read policy (readpolicy.go).
	restricted map[*sqlite3.Conn]*readPolicy
	// gating holds each read connection's gate, used by Analyze.
	gating map[*sqlite3.Conn]*readGate
	// rstmts holds each read connection's compiled queries (readcache.go);
	// a connection is used by one goroutine at a time.
	rstmts   map[*sqlite3.Conn]*readCache
	nreaders int

	// closing is cancelled by Close: it interrupts running reads.
	closing    context.Context
	closeReads context.CancelFunc
	costs      *costs // the writer's costed functions (costs.go)

	syntaxMu sync.Mutex
	syntax   map[string]verdict
	// pgVerdicts caches the postgres dialect's Analyze (pgGate).
	pgVerdicts verdicts
	// pgTables are the columns pgVerdicts' translations read.
	pgTables committedTables
	// pgCatalog is the Engine that answers catalog queries on the
	// committed schema (postgres dialect; pgcatalog.go).
	pgCatalog catalogEngines
	dry       dryRun // Analyze's copy of the schema, for DDL
}

// cached is a prepared statement of the writer and what it does.
type cached struct {
	stmt *sqlite3.Stmt
	an   sqlcheck.Analysis
	// ordered: a SELECT with a top-level ORDER BY (its rows keep their
	// order; every other statement's rows are sorted, see sortRows)
	ordered bool
}

// verdict is a cached Analyze result. Syntax errors hold for any schema;
// every other verdict only for the committed schema generation it was taken
// on.
type verdict struct {
	an  sqlcheck.Analysis
	err error
	gen int64
}

// Option configures Open.
type Option func(*options)

type options struct {
	noGate    bool
	ckptDir   string
	ckptEvery int64
	ckptKeep  int
	// ckptOnError hears of failed checkpoints.
	ckptOnError func(error)
	// Node-local bounds of Query (see WithReadTimeout, WithReadCaps).
	readTimeout time.Duration
	readRows    int
	readBytes   int64
	// pg: the backend takes PostgreSQL's SQL (WithPostgresDialect).
	pg bool
}

// Defaults of the node-local read bounds.
const (
	DefaultReadTimeout = 10 * time.Second
	DefaultReadRows    = 100_000
	DefaultReadBytes   = 64 << 20
	// ReadWorkLimit bounds a query's work like WorkLimit bounds a block
	// statement's, ten times higher (about 10^9 instructions). Reads are
	// not consensus: it only keeps one query from holding a read
	// connection for long.
	ReadWorkLimit = 10 * WorkLimit
)

// WithReadTimeout bounds how long one Query may run (DefaultReadTimeout;
// d <= 0 keeps the default). Reads are not consensus: a timeout cannot
// split nodes, it only frees the read connection.
func WithReadTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.readTimeout = d
		}
	}
}

// WithReadCaps bounds the rows and bytes one Query returns
// (DefaultReadRows, DefaultReadBytes; values <= 0 keep the default).
func WithReadCaps(rows int, bytes int64) Option {
	return func(o *options) {
		if rows > 0 {
			o.readRows = rows
		}
		if bytes > 0 {
			o.readBytes = bytes
		}
	}
}

// withoutGate is for benchmarks only (gate on vs off, end to end): the
// authorizer then allows every client action except access to relchain's
// own tables and what would break the block's db-transaction (transaction
// and savepoint control, ATTACH, DETACH, VACUUM). Clock and random functions
// are still rewritten and the work limit still applies. A node running
// without the gate does not follow the chain's determinism rules: never use
// it on a network.
func withoutGate() Option { return func(o *options) { o.noGate = true } }

// readGate switches a read connection's authorizer to the gate.
type readGate struct {
	on atomic.Bool
	g  gate
}

var _ backend.Backend = (*Backend)(nil)

// Open opens (creating if needed) the database file at path.
func Open(ctx context.Context, path string, opts ...Option) (*Backend, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create database directory: %w", err)
	}
	w, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	b := &Backend{path: path, w: w, rw: newRewriter(), workLimit: WorkLimit, stmts: make(map[string]*cached), syntax: make(map[string]verdict), readPool: make(chan *sqlite3.Conn, readers), querySlots: make(chan struct{}, readers-1), restricted: make(map[*sqlite3.Conn]*readPolicy), gating: make(map[*sqlite3.Conn]*readGate), rstmts: make(map[*sqlite3.Conn]*readCache)}
	b.HistoryReader = sqlstore.HistoryReader{Read: b.historyRead, SQL: &historySQL}
	b.opts = options{readTimeout: DefaultReadTimeout, readRows: DefaultReadRows, readBytes: DefaultReadBytes}
	for _, o := range opts {
		o(&b.opts)
	}
	b.closing, b.closeReads = context.WithCancel(context.Background())
	b.costs = newCosts()
	b.wgate.off = b.opts.noGate
	b.ckpt.OnError = b.opts.ckptOnError
	fail := func(format string, a ...any) (*Backend, error) {
		w.Close()
		b.rw.close()
		b.costs.close()
		return nil, fmt.Errorf("open %s: "+format, append([]any{path}, a...)...)
	}
	// The writer keeps up to 64 MiB of pages in its own cache (the default
	// is 2 MiB): every block reads the same hot pages again, and through
	// the VFS each miss is a system call. It changes no result.
	// The WAL is checkpointed into the database every walCheckpointPages
	// frames instead of SQLite's default 1,000: a Smallbank block of 400
	// wl-transactions writes ~500 frames, so the default copied the same
	// hot pages back (and fsynced the database file) every other block.
	// Durability is unchanged: every COMMIT still fsyncs the WAL.
	for _, p := range []string{"PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA cache_size = -65536", fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", walCheckpointPages)} {
		if err := w.Exec(p); err != nil {
			return fail("%s: %w", p, err)
		}
	}
	if err := initConn(w, b.rw, b.opts.pg); err != nil {
		return fail("%w", err)
	}
	if err := checkEncoding(w); err != nil {
		return fail("%w", err)
	}
	if err := b.costs.register(w); err != nil {
		return fail("register costed functions: %w", err)
	}
	if err := w.Exec("BEGIN IMMEDIATE;" + schema + "COMMIT"); err != nil {
		return fail("create relchain tables: %w", err)
	}
	if b.wgate.modules, err = loadModules(w); err != nil {
		return fail("%w", err)
	}
	if b.opts.pg {
		if b.wgate.runtime, err = runtimeFunctions(); err != nil {
			return fail("%w", err)
		}
		b.scratch.runtime = b.wgate.runtime
	}
	if b.vetted, err = b.ddl().schemaObjects(); err != nil {
		return fail("%w", err)
	}
	if err := b.openCapture(); err != nil {
		return fail("%w", err)
	}
	if err := w.SetAuthorizer(b.authorize); err != nil {
		return fail("set authorizer: %w", err)
	}
	if err := b.openReaders(); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: reader: %w", path, err)
	}
	b.internal = true
	b.schemaVer, err = b.schemaVersion()
	b.internal = false
	if err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// checkEncoding refuses a database file whose text encoding is not
// UTF-8 (fixed when the file is created; relchain creates its files in
// UTF-8, an operator's own file may be UTF-16): hex(), CAST(text AS
// BLOB), length() of such casts and row images would differ from the
// other nodes'. Everything else that changes results is the bundled
// SQLite's (one binary, one build: see DESIGN.md, "Configuration") or a
// per-connection pragma relchain pins.
func checkEncoding(c *sqlite3.Conn) error {
	st, _, err := c.Prepare("PRAGMA encoding")
	if err != nil {
		return fmt.Errorf("read the database's encoding: %w", err)
	}
	defer st.Close()
	if !st.Step() {
		if err := st.Err(); err != nil {
			return fmt.Errorf("read the database's encoding: %w", err)
		}
		return errors.New("read the database's encoding: no answer")
	}
	if enc := st.ColumnText(0); enc != "UTF-8" {
		return fmt.Errorf("the database file's text encoding is %s; relchain needs UTF-8 on every node "+
			"(hex(), casts to BLOB and row images differ otherwise). Fix: let relchain create the file "+
			"(start from an empty node home, or restore a checkpoint)", enc)
	}
	return nil
}

// openReaders opens the pool of read connections: query-only, under the
// read authorizer, with the length limit and the exact aggregates.
func (b *Backend) openReaders() error {
	for i := 0; i < readers; i++ {
		r, err := sqlite3.OpenFlags(b.path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_NOMUTEX)
		if err == nil {
			limitConn(r)
			err = registerAggregates(r)
		}
		if err == nil {
			for _, p := range append(pragmas, "PRAGMA query_only = ON") {
				if err = r.Exec(p); err != nil {
					break
				}
			}
		}
		flag, rg := newReadPolicy(b.wgate.modules), new(readGate)
		flag.runtime = b.wgate.runtime
		rg.g.modules, rg.g.off, rg.g.runtime = b.wgate.modules, b.opts.noGate, b.wgate.runtime
		if err == nil && b.opts.pg {
			err = pgruntime.Register(r)
		}
		if err == nil {
			err = r.SetAuthorizer(authorizeRead(flag, rg))
		}
		if err != nil {
			if r != nil {
				r.Close()
			}
			return err
		}
		b.restricted[r] = flag
		b.gating[r] = rg
		b.rstmts[r] = newReadCache(r, flag)
		b.readPool <- r
		b.nreaders++
	}
	return nil
}

// initConn pins the pragmas of a connection that runs clients' statements
// or their DDL, and installs the rewritten clock and random functions.
// pg: the connection runs the postgres dialect's translations, whose
// runtime functions it registers (pgruntime.Register).
func initConn(c *sqlite3.Conn, rw *rewriter, pg bool) error {
	limitConn(c)
	if err := registerAggregates(c); err != nil {
		return err
	}
	if pg {
		if err := pgruntime.Register(c); err != nil {
			return fmt.Errorf("register the postgres dialect's runtime functions: %w", err)
		}
	}
	for _, p := range pragmas {
		if err := c.Exec(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return rw.register(c)
}

// Dialect implements backend.Backend.
func (b *Backend) Dialect() string { return "sqlite" }

// Path returns the database file.
func (b *Backend) Path() string { return b.path }

// authorize is the writer's authorizer: relchain's own statements run
// unchecked, every client statement through the gate (gate.go), which also
// keeps the block atomic (no transaction control) and protects relchain's
// tables.
func (b *Backend) authorize(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
	if b.internal {
		return sqlite3.AUTH_OK
	}
	return b.wgate.check(action, name3rd, name4th, schema, inner)
}

func isRelchainName(s string) bool {
	return len(s) >= 9 && strings.EqualFold(s[:9], "relchain_")
}

// LoadState implements backend.Backend.
func (b *Backend) LoadState(ctx context.Context) (backend.State, error) {
	r, err := b.reader(ctx)
	if err != nil {
		return backend.State{}, err
	}
	defer b.release(r)
	return readState(r)
}

// RecordedState implements backend.Backend: SQLite is a file of this
// process, with no connection to lose (its errors never wrap
// backend.ErrDatabaseUnavailable); a COMMIT that returned has ended, so
// the committed state is LoadState's.
func (b *Backend) RecordedState(ctx context.Context) (backend.State, error) {
	return b.LoadState(ctx)
}

const stateSQL = "SELECT height, app_hash FROM relchain_meta WHERE id = 1"

func readState(c *sqlite3.Conn) (backend.State, error) {
	st, _, err := c.Prepare(stateSQL)
	if err != nil {
		return backend.State{}, fmt.Errorf("read state: %w", err)
	}
	defer st.Close()
	var s backend.State
	if st.Step() {
		s.Height = st.ColumnInt64(0)
		s.AppHash = st.ColumnBlob(1, nil)
	}
	if err := st.Err(); err != nil {
		return backend.State{}, fmt.Errorf("read state: %w", err)
	}
	return s, nil
}

var errClosed = errors.New("sqlite backend is closed")

func (b *Backend) reader(ctx context.Context) (*sqlite3.Conn, error) {
	select {
	case r, ok := <-b.readPool:
		if !ok {
			return nil, errClosed
		}
		return r, nil
	case <-b.closing.Done():
		return nil, errClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *Backend) release(r *sqlite3.Conn) { b.readPool <- r }

// Query implements backend.Backend. The statement and the height are read
// in one read transaction, so they describe the same committed state. In
// the postgres dialect a catalog query (pgcatalog.Wants) is answered by
// the catalog Engine of that state's schema (pgcatalog.go).
//
// A query runs under node-local bounds (reads are not consensus): a
// timeout (WithReadTimeout) that also bounds the wait for a read
// connection, a work limit (ReadWorkLimit), caps on the rows and bytes
// returned (WithReadCaps), ctx's cancellation, and Close. Past any of them
// it ends at once with an error saying which, and its read connection
// goes back to the pool.
func (b *Backend) Query(ctx context.Context, sql string, args []any) (*backend.Rows, int64, error) {
	rctx, cancel := b.readContext(ctx)
	defer cancel()
	select {
	case b.querySlots <- struct{}{}:
		defer func() { <-b.querySlots }()
	case <-rctx.Done():
		return nil, 0, b.readInterrupted(ctx, rctx.Err())
	}
	r, err := b.reader(rctx)
	if err != nil {
		return nil, 0, b.readInterrupted(ctx, err)
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		return nil, 0, fmt.Errorf("query: begin: %w", err)
	}
	defer closeQuietly(func() error { return rc.exec("ROLLBACK") })
	st, err := rc.state()
	if err != nil {
		return nil, 0, err
	}
	if err := rc.sync(); err != nil {
		return nil, 0, fmt.Errorf("query: %w", err)
	}
	if b.opts.pg && isCatalogQuery(sql) {
		rows, h, err := b.catalogQuery(rctx, r, sql, args, st.Height)
		if err != nil && rctx.Err() != nil {
			return nil, 0, b.readInterrupted(ctx, rctx.Err())
		}
		return rows, h, err
	}
	var tr *pgdialect.Translation
	if b.opts.pg {
		if sql, tr, err = b.translateRead(r, sql, args); err != nil {
			return nil, 0, err
		}
		if args, err = pgParams(tr.Params, args); err != nil {
			return nil, 0, err
		}
	}
	restricted := b.restricted[r]
	restricted.Store(true)
	defer restricted.Store(false)
	stmt, err := rc.query(sql)
	if err != nil {
		return nil, 0, err
	}
	if !stmt.ReadOnly() {
		rc.done(sql, stmt, true)
		return nil, 0, &backend.Error{Class: backend.ClassPermission, SQLState: "25006", Message: "the query path is read-only: submit writes as transactions (relchain exec)"}
	}
	f := newFuel(rctx, ReadWorkLimit)
	old := r.SetInterrupt(f)
	rows, err := run(stmt, args, resultLimits{rows: b.opts.readRows, bytes: b.opts.readBytes})
	r.SetInterrupt(old)
	switch {
	case err == nil && tr != nil:
		if err = pgValues(rows, tr.Columns); err == nil {
			pgTypes(rows, tr.Columns)
		}
	case err == nil:
		rows.Types = valueTypes(declaredTypes(stmt), rows.Rows)
	}
	rc.done(sql, stmt, err != nil)
	switch {
	case f.cancelled != nil:
		return nil, 0, b.readInterrupted(ctx, f.cancelled)
	case f.out:
		return nil, 0, errReadWorkLimit
	case err != nil && tr != nil:
		return nil, 0, runtimeError(rc.policy.explain(err)) // a runtime function's SQLSTATE
	case err != nil:
		return nil, 0, rc.policy.explain(err) // a pragma function refused as it runs
	}
	return rows, st.Height, nil
}

var errReadWorkLimit = &backend.Error{Class: backend.ClassResource, SQLState: "54000",
	Message: "query exceeded this node's read work limit (about 10^9 SQLite instructions): bound recursive CTEs and joins, or page through the result"}

// readContext is ctx bounded by the read timeout and cancelled by Close.
func (b *Backend) readContext(ctx context.Context) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithTimeout(ctx, b.opts.readTimeout)
	stop := context.AfterFunc(b.closing, cancel)
	return rctx, func() { stop(); cancel() }
}

// readInterrupted says why a read ended early: the caller's context, Close,
// or the read timeout (err is the read context's error).
func (b *Backend) readInterrupted(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("query: %w", ctx.Err())
	case b.closing.Err() != nil:
		return fmt.Errorf("query: %w", errClosed)
	case errors.Is(err, context.DeadlineExceeded):
		return &backend.Error{Class: backend.ClassResource, SQLState: "57014",
			Message: fmt.Sprintf("query exceeded this node's read timeout (%v, the wait for a read connection included): narrow it, or page through the result", b.opts.readTimeout)}
	}
	return fmt.Errorf("query: %w", err)
}

// analyze is the gate's verdict on committed state (gateseam.go): it
// prepares (never steps) the statement on a read connection, under the gate
// (gate.go), on committed state. Errors that depend on the schema (a
// missing table) are no verdict: an earlier tx of the block may create what
// is missing; the analysis then holds what could be learned (DDL from the
// statement's first keyword). A statement the gate refuses is rejected
// (ClassPermission), as Exec would refuse it. Verdicts are cached by text:
// syntax verdicts forever, others until a block that changed the schema
// commits.
func (b *Backend) analyze(ctx context.Context, sql string) (sqlcheck.Analysis, error) {
	gen := b.schemaGen.Load()
	b.syntaxMu.Lock()
	v, ok := b.syntax[sql]
	b.syntaxMu.Unlock()
	if ok && (v.gen == gen || isSyntaxError(v.err)) {
		return cloneAnalysis(v.an), v.err
	}
	r, err := b.reader(ctx)
	if err != nil {
		return sqlcheck.Analysis{}, err
	}
	rg := b.gating[r]
	rg.on.Store(true)
	stmt, err := prepareGated(r, &rg.g, sql)
	rg.on.Store(false)
	an := rg.g.analysis()
	if err == nil {
		an.Params = stmt.BindCount()
	}
	// CREATE TABLE ... AS SELECT is not dry-run: its columns have no
	// DEFAULT, its query was judged above, and running it could be costly.
	ddlKind := isDDLKind(rg.g.kind) && !(rg.g.kind == sqlite3.AUTH_CREATE_TABLE && rg.g.query)
	b.release(r)
	if err == nil {
		stmt.Close()
		if ddlKind {
			err = b.dryRunDDL(ctx, sql, gen)
		}
	}
	if err != nil && isSchemaError(err) && backend.AsError(err).Class != backend.ClassPermission {
		// No verdict; what the statement does is partly unknown.
		an.DDL = an.DDL || startsDDL(sql)
		an.Params = sqlcheck.ParamsUnknown
		err = nil
	}
	if err != nil && backend.AsError(err) == nil {
		return an, err // infrastructure trouble: no verdict
	}
	b.syntaxMu.Lock()
	if len(b.syntax) >= 4096 {
		clear(b.syntax)
	}
	b.syntax[sql] = verdict{an: an, err: err, gen: gen}
	b.syntaxMu.Unlock()
	return cloneAnalysis(an), err
}

func cloneAnalysis(a sqlcheck.Analysis) sqlcheck.Analysis {
	a.Writes = slices.Clone(a.Writes)
	return a
}

// startsDDL reports whether sql's first keyword (after blanks and comments)
// is CREATE, DROP or ALTER.
func startsDDL(sql string) bool {
	s := sql
	for {
		s = strings.TrimLeft(s, " \t\n\r\f\v")
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return false
			}
			s = s[i+1:]
			continue
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return false
			}
			s = s[i+4:]
			continue
		}
		break
	}
	end := 0
	for end < len(s) && ('a' <= s[end]|0x20 && s[end]|0x20 <= 'z') {
		end++
	}
	switch asciiLower([]byte(s[:end])) {
	case "create", "drop", "alter":
		return true
	}
	return false
}

func isSyntaxError(err error) bool {
	e := backend.AsError(err)
	return e != nil && (e.Class == backend.ClassSyntax || e.Class == backend.ClassInvalid)
}

// prepareOne prepares exactly one statement: empty text and trailing
// statements are rejected, so nothing the checks did not see can execute.
// It is the one place client text reaches SQLite's compiler (the gate,
// reads, Describe): the text passes the pre-scan (package prescan) first,
// whose bounds sit far below SQLite's own (SQLITE_MAX_EXPR_DEPTH 1000).
func prepareOne(c *sqlite3.Conn, sql string) (*sqlite3.Stmt, error) {
	if err := prescan.Check(sql, prescan.SQLite); err != nil {
		return nil, &backend.Error{Class: backend.ClassInvalid, SQLState: "54000", Message: err.Error()}
	}
	stmt, tail, err := c.Prepare(sql)
	if err != nil {
		return nil, classify(err)
	}
	if stmt == nil {
		return nil, &backend.Error{Class: backend.ClassInvalid, SQLState: "42601", Message: "empty statement"}
	}
	if strings.TrimSpace(tail) != "" {
		extra, _, err := c.Prepare(tail)
		if extra != nil {
			extra.Close()
		}
		if extra != nil || err != nil {
			stmt.Close()
			return nil, &backend.Error{Class: backend.ClassInvalid, SQLState: "42601", Message: "more than one statement in one entry: send each statement as its own entry of the transaction"}
		}
	}
	return stmt, nil
}

// resultLimits bound what run collects: rows and bytes (0: no cap; reads
// only, node-local), and fuel, charged one unit per costUnitBytes of text
// and BLOB returned (block statements: deterministic).
type resultLimits struct {
	rows  int
	bytes int64
	fuel  *fuel
}

// run binds args, steps stmt to completion and collects its rows, within
// lim. SQLite running out of memory is an error (errOutOfMemory), not the
// driver's panic.
func run(stmt *sqlite3.Stmt, args []any, lim resultLimits) (_ *backend.Rows, err error) {
	defer recoverOOM(&err)
	if n := stmt.BindCount(); n != len(args) {
		return nil, &backend.Error{Class: backend.ClassInvalid, SQLState: "07001", Message: fmt.Sprintf("statement has %d placeholders but %d arguments were given", n, len(args))}
	}
	for i, a := range args {
		if err := bind(stmt, i+1, a); err != nil {
			return nil, err
		}
	}
	out := &backend.Rows{}
	ncol := stmt.ColumnCount()
	if ncol > 0 {
		out.Columns = make([]string, ncol)
		for i := range out.Columns {
			out.Columns[i] = stmt.ColumnName(i)
		}
	}
	// changes() keeps the count of the last DML statement, so it is only
	// read when this statement changed something (DDL and SELECT do not
	// move total_changes).
	before := stmt.Conn().TotalChanges()
	var total int64
	for stmt.Step() {
		row, size := readRow(stmt, ncol)
		out.Rows = append(out.Rows, row)
		total += size
		if err := lim.check(len(out.Rows), total, size); err != nil {
			return nil, err
		}
	}
	if err := stmt.Err(); err != nil {
		return nil, classify(err)
	}
	if stmt.Conn().TotalChanges() != before {
		out.RowsAffected = stmt.Conn().Changes()
	}
	return out, nil
}

// readRow reads the current row of stmt and its size in bytes.
func readRow(stmt *sqlite3.Stmt, ncol int) ([]any, int64) {
	row := make([]any, ncol)
	var size int64
	for i := range row {
		switch stmt.ColumnType(i) {
		case sqlite3.INTEGER:
			row[i] = stmt.ColumnInt64(i)
			size += 8
		case sqlite3.FLOAT:
			row[i] = stmt.ColumnFloat(i)
			size += 8
		case sqlite3.TEXT:
			v := stmt.ColumnText(i)
			row[i] = v
			size += int64(len(v))
		case sqlite3.BLOB:
			v := stmt.ColumnBlob(i, []byte{})
			row[i] = v
			size += int64(len(v))
		default:
			row[i] = nil
		}
	}
	return row, size
}

// check fails a result that grew past lim after a row of size bytes.
func (lim resultLimits) check(rows int, total, size int64) error {
	if lim.fuel != nil && !lim.fuel.charge(size/costUnitBytes) {
		return errWorkLimit
	}
	if lim.rows > 0 && rows > lim.rows {
		return &backend.Error{Class: backend.ClassResource, SQLState: "54000", Message: fmt.Sprintf("query result exceeds this node's cap of %d rows: narrow it, or page through it (ORDER BY a unique key ... LIMIT)", lim.rows)}
	}
	if lim.bytes > 0 && total > lim.bytes {
		return &backend.Error{Class: backend.ClassResource, SQLState: "54000", Message: fmt.Sprintf("query result exceeds this node's cap of %d bytes: narrow it, or page through it (ORDER BY a unique key ... LIMIT)", lim.bytes)}
	}
	return nil
}

func bind(stmt *sqlite3.Stmt, i int, v any) error {
	var err error
	switch x := v.(type) {
	case nil:
		err = stmt.BindNull(i)
	case int64:
		err = stmt.BindInt64(i, x)
	case int:
		err = stmt.BindInt64(i, int64(x))
	case float64:
		err = stmt.BindFloat(i, x)
	case string:
		err = stmt.BindText(i, x)
	case []byte:
		if x == nil {
			x = []byte{}
		}
		err = stmt.BindBlob(i, x)
	case bool:
		err = stmt.BindBool(i, x)
	default:
		return &backend.Error{Class: backend.ClassInvalid, SQLState: "22023", Message: fmt.Sprintf("argument %d has unsupported type %T", i, v)}
	}
	if err != nil {
		return classify(err)
	}
	return nil
}

// Close implements backend.Backend. Running reads are interrupted, not
// waited for; an error from closing (SQLite out of memory included) is
// returned, never panicked.
func (b *Backend) Close() (err error) {
	defer recoverOOM(&err)
	b.closeReads()
	b.WaitCheckpoint()
	b.wmu.Lock()
	defer b.wmu.Unlock()
	var errs []error
	if b.w != nil {
		if b.open && !b.w.GetAutocommit() {
			errs = append(errs, closeQuietly(func() error { return b.internalExec("ROLLBACK") }))
		}
		b.open = false
		for _, s := range b.stmts {
			errs = append(errs, closeQuietly(s.stmt.Close))
		}
		b.stmts = nil
		errs = append(errs, closeQuietly(b.closeInternal), closeQuietly(b.w.Close))
		b.w = nil
		b.rw.close()
		b.costs.close()
		errs = append(errs, closeQuietly(b.hook.close))
	}
	b.dry.close()
	b.scratch.close()
	b.closeCatalog()
	if !b.readsDrained {
		// readPool itself stays: a read still waiting for a connection
		// reads the field (and ends on b.closing).
		b.readsDrained = true
		deadline := time.After(10 * time.Second)
	drain:
		for i := 0; i < b.nreaders; i++ {
			select {
			case r := <-b.readPool:
				errs = append(errs, closeQuietly(b.rstmts[r].close), closeQuietly(r.Close))
			case <-deadline:
				break drain
			}
		}
	}
	return errors.Join(errs...)
}
