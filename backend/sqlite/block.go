package sqlite

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

type block struct {
	b   *Backend
	gen int64
}

// errLost is what every call of a lost block but Rollback returns.
var errLost = fmt.Errorf("%w: only Rollback is possible; re-run the block", backend.ErrBlockLost)

// Begin implements backend.Backend.
func (b *Backend) Begin(ctx context.Context) (backend.Block, error) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if b.w == nil {
		return nil, fmt.Errorf("sqlite backend is closed")
	}
	if b.open {
		return nil, backend.ErrBlockOpen
	}
	if err := b.internalExec("BEGIN IMMEDIATE"); err != nil {
		return nil, fmt.Errorf("begin block: %w", err)
	}
	// Load the schema now if a rollback discarded it, so that loading it
	// never counts against a statement's work limit (see fuel).
	v, err := b.loadSchema()
	if err != nil {
		b.internalExec("ROLLBACK")
		return nil, fmt.Errorf("begin block: %w", err)
	}
	if err := b.outOfBand(); err != nil {
		b.internalExec("ROLLBACK")
		return nil, fmt.Errorf("begin block: %w", err)
	}
	if err := b.beginCapture(v); err != nil {
		b.internalExec("ROLLBACK")
		return nil, fmt.Errorf("begin block: %w", err)
	}
	b.beginSchemaVer = b.schemaVer
	if v != b.schemaVer {
		// The schema changed since this node last reconciled it, outside
		// any block (an operator's CREATE INDEX in the sqlite3 shell):
		// reconcile it now, before the block's first statement, so that
		// only the block's own DDL makes it one that changed the schema
		// (blockDDL, which every node must agree on: it decides whether
		// results carry effect digests). The table sums are read whole
		// once, on this node alone (sumsStale).
		if err := b.reconcileSchema(); err != nil {
			b.internalExec("ROLLBACK")
			b.schemaVer = b.beginSchemaVer
			return nil, fmt.Errorf("begin block: a schema changed outside relchain: %w", err)
		}
		b.sumsStale = true
	}
	b.open, b.lost, b.lostBy = true, false, nil
	b.blockGen++
	b.delta = make(backend.TableDelta)
	b.changed.reset()
	b.txOpen = false
	if v != b.schemaVer {
		// Whether the schema has deferred keys is known while it stays
		// the one reconciled last (every change since called
		// dropStatements, which forgets it): a schema changed out of band
		// is not, until reconciled.
		b.deferredSchema = 0
	}
	b.endTx()
	// Statements before the first Savepoint see the zero Env.
	b.rw.setEnv(sqlcheck.Env{})
	b.pgEnv = sqlcheck.Env{}
	return &block{b: b, gen: b.blockGen}, nil
}

// loadSchema makes SQLite read the schema if it is not loaded (after a
// rollback discarded it) and returns its version. Compiling a statement
// that names a table loads it; PRAGMA schema_version alone does not.
func (b *Backend) loadSchema() (int64, error) {
	b.internal = true
	defer func() { b.internal = false }()
	st, _, err := b.w.Prepare("SELECT 1 FROM sqlite_schema LIMIT 0")
	if err != nil {
		return 0, fmt.Errorf("load schema: %w", err)
	}
	st.Close()
	return b.schemaVersion()
}

// dropStatements empties the writer's statement cache. It runs whenever
// the schema changed or went back: a cached statement is then always
// compiled on the current schema, so SQLite never re-prepares one while it
// runs on fuel (which would count instructions a fresh statement does not).
func (b *Backend) dropStatements() {
	for _, c := range b.stmts {
		c.stmt.Close()
	}
	clear(b.stmts)
	b.stmtOrder = b.stmtOrder[:0]
	clear(b.pgTranslations)
	clear(b.pgStatements)
	b.deferredSchema = 0
	b.dropLookups()
}

// internalExec runs one of relchain's own statements on the writer. The
// few that run per tx or per block (savepoints, BEGIN, COMMIT) are kept
// compiled (internalStmt); any other text is compiled each time.
func (b *Backend) internalExec(sql string) error {
	b.internal = true
	defer func() { b.internal = false }()
	if !keptInternal[sql] {
		return b.w.Exec(sql)
	}
	st, err := b.internalStmt(sql)
	if err != nil {
		return err
	}
	return st.Exec()
}

// keptInternal lists the internal statements the writer keeps compiled:
// each runs once per tx or block, and compiling them each time showed in
// profiles (SQLite's parser). They read and write no client table, so
// keeping them compiled cannot change an outcome; SQLite re-compiles one
// whose schema expired (under the internal flag: the authorizer allows).
var keptInternal = map[string]bool{
	"BEGIN IMMEDIATE":             true,
	"COMMIT":                      true,
	"ROLLBACK":                    true,
	"SAVEPOINT " + savepoint:      true,
	"RELEASE " + savepoint:        true,
	"ROLLBACK TO " + savepoint:    true,
	"PRAGMA schema_version":       true,
	"DELETE FROM " + changesTable: true,
}

// internalStmt returns the writer's compiled internal statement for sql,
// compiling it on first use. The caller holds wmu (or is Open) and sets
// the internal flag.
func (b *Backend) internalStmt(sql string) (*sqlite3.Stmt, error) {
	if st := b.istmts[sql]; st != nil {
		return st, nil
	}
	st, _, err := b.w.Prepare(sql)
	if err != nil {
		return nil, err
	}
	if b.istmts == nil {
		b.istmts = make(map[string]*sqlite3.Stmt)
	}
	b.istmts[sql] = st
	return st, nil
}

// closeInternal closes the kept internal statements; the caller holds wmu.
func (b *Backend) closeInternal() error {
	var errs []error
	for _, st := range b.istmts {
		errs = append(errs, st.Close())
	}
	b.istmts = nil
	return errors.Join(errs...)
}

func (k *block) lock() (*Backend, error) {
	k.b.wmu.Lock()
	if !k.b.open || k.b.blockGen != k.gen {
		k.b.wmu.Unlock()
		return nil, fmt.Errorf("block db-transaction is not open")
	}
	if k.b.lost {
		k.b.wmu.Unlock()
		if k.b.lostBy != nil {
			// A node-local fault, not ErrBlockLost: the executor must not
			// re-run the block with a tx failed on its account.
			return nil, fmt.Errorf("the block's db-transaction was lost to a node-local fault; only Rollback is possible: %w", k.b.lostBy)
		}
		return nil, errLost
	}
	return k.b, nil
}

// Savepoint implements backend.Block: from here on the tx's statements see
// env (rewrite.go): 'now' is env.Time, and random() and randomblob() draw
// from ChaCha8 seeded with env.Seed, started afresh. The change records
// they write belong to tx env.Tx (effects.go).
func (k *block) Savepoint(ctx context.Context, env sqlcheck.Env) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	b.rw.setEnv(env)
	b.pgEnv = env
	b.txDDL = false
	b.endTx()
	if err := b.internalExec("SAVEPOINT " + savepoint); err != nil {
		return err
	}
	b.hook.txMark = b.hook.mark()
	b.txOpen, b.curTx = true, env.Tx
	return nil
}

// Release implements backend.Block. In the postgres dialect a deferred
// foreign key still violated fails the tx (ErrDeferredViolation, 23503)
// and leaves its savepoint open for RollbackTo (deferfk.go).
func (k *block) Release(ctx context.Context) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	if err := b.releaseCheck(ctx); err != nil {
		return err
	}
	b.txOpen = false
	b.endTx()
	return b.internalExec("RELEASE " + savepoint)
}

// RollbackTo undoes everything since Savepoint and removes the savepoint.
func (k *block) RollbackTo(ctx context.Context) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	b.txOpen = false
	b.endTx()
	if err := b.internalExec("ROLLBACK TO " + savepoint); err != nil {
		return err
	}
	if err := b.internalExec("RELEASE " + savepoint); err != nil {
		return err
	}
	b.hook.truncate(b.hook.txMark)
	// The schema (and its capture triggers) went back with the savepoint:
	// remember its version, or a later DDL that happens to bring the cookie
	// back to the remembered value would go unnoticed (no capture triggers,
	// no vetting). SQLite discarded the schema it had loaded: load it again
	// now, outside any statement's fuel, and forget statements compiled on
	// the undone schema.
	v, err := b.loadSchema()
	if err != nil {
		return err
	}
	if v != b.schemaVer || b.txDDL {
		// Undoing a schema change (even one whose version the rollback
		// restored, like dropped capture triggers) expires every statement:
		// SQLite would re-prepare a cached one while it runs on fuel.
		b.dropStatements()
	}
	b.schemaVer, b.txDDL = v, false
	if v != b.hook.ver {
		b.internal = true
		defer func() { b.internal = false }()
		return b.loadCapTables(v)
	}
	return nil
}

// prepare returns the writer's compiled statement for sql, from the cache
// or compiled now under the gate (gate.go): a refused statement fails with
// ClassPermission before anything runs. ALTER TABLE statements are not
// cached (temp: the caller closes them): Exec drops the altered table's
// capture triggers before each run.
func (b *Backend) prepare(sql string) (c *cached, temp bool, err error) {
	if c, ok := b.stmts[sql]; ok {
		return c, false, nil
	}
	stmt, err := prepareGated(b.w, &b.wgate, sql)
	if err != nil {
		return nil, false, err
	}
	c = &cached{stmt: stmt, an: b.wgate.analysis(), ordered: stmt.ReadOnly() && topLevelOrder(sql)}
	c.an.Params = stmt.BindCount()
	if b.wgate.altered != "" {
		return c, true, nil
	}
	b.cache(sql, c)
	return c, false, nil
}

// analyze is the gate's verdict in the block (gateseam.go): the statement
// is compiled on the writer under the gate, on the block's state, and kept
// in the statement cache for the Exec that follows.
func (k *block) analyze(ctx context.Context, sql string) (sqlcheck.Analysis, error) {
	b, err := k.lock()
	if err != nil {
		return sqlcheck.Analysis{}, err
	}
	defer b.wmu.Unlock()
	c, temp, err := b.prepare(sql)
	if err != nil {
		an := b.wgate.analysis()
		an.DDL = an.DDL || startsDDL(sql)
		return an, err
	}
	if temp {
		c.stmt.Close()
	}
	return cloneAnalysis(c.an), nil
}

// Exec runs one statement, compiled under the gate (see prepare), on fuel
// (WorkLimit). Prepared statements are cached by text; the cache is emptied
// whenever the schema changes, so it cannot change an outcome.
//
// When SQLite rolled back the block's transaction while the statement ran
// (it does so when it interrupts a writing statement at the work limit, and
// for INSERT OR ROLLBACK, ON CONFLICT ROLLBACK and RAISE(ROLLBACK)), the
// error wraps backend.ErrBlockLost and the statement's *backend.Error, and
// the block only accepts Rollback.
//
// Rows of a statement without a defined order (no top-level ORDER BY in a
// SELECT; RETURNING) are returned in a canonical order (sortRows).
//
// When ctx is done while the statement runs (ProcessProposal's deadline),
// SQLite is interrupted at once and Exec returns an error wrapping
// ctx.Err(): a node-local fault, never a tx result and never ErrBlockLost.
// So is SQLite running out of memory. The block then only accepts Rollback
// if SQLite rolled its transaction back; the next Begin works either way.
//
// With WithPostgresDialect, sql is PostgreSQL's (execPostgres).
func (k *block) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	if k.b.opts.pg {
		return k.execPostgres(ctx, sql, args)
	}
	return k.execNative(ctx, sql, args)
}

// execNative is Exec of one SQLite statement.
func (k *block) execNative(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	b, err := k.lock()
	if err != nil {
		return nil, err
	}
	defer b.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	c, temp, err := b.prepare(sql)
	if err != nil {
		return nil, err
	}
	stmt := c.stmt
	ddl := c.an.DDL || temp
	if ddl {
		b.txDDL = true
	}
	if temp {
		// The capture triggers name every column: SQLite would refuse to
		// drop one they use. Drop them (inside the tx's savepoint: a
		// failure brings them back); afterSchemaChange re-creates them.
		defer stmt.Close()
		if err := b.ddl().dropCapture(b.wgate.altered); err != nil {
			return nil, err
		}
	}
	b.wgate.reset() // a re-prepare while stepping is judged afresh
	skip := ""
	if temp {
		skip = b.wgate.altered
	}
	b.hook.startStatement(skip)
	rows, err := b.runOnFuel(stmt, args, newFuel(ctx, b.workLimit))
	if herr := b.hook.endStatement(err != nil); herr != nil {
		// The statement's changes are in the block but not all its records:
		// only Rollback is possible (a node-local fault).
		b.lost, b.lostBy = true, herr
		return nil, herr
	}
	rerr := closeQuietly(func() error {
		rerr := stmt.Reset()
		if cerr := stmt.ClearBindings(); rerr == nil {
			rerr = cerr
		}
		return rerr
	})
	if rows, err = b.afterRun(rows, err, rerr, ddl); err != nil {
		return nil, err
	}
	if !c.ordered {
		sortRows(rows.Rows)
	}
	return rows, nil
}

// afterRun judges a client statement's run: err from running it, rerr from
// resetting it, ddl whether it may have changed the schema.
func (b *Backend) afterRun(rows *backend.Rows, err, rerr error, ddl bool) (*backend.Rows, error) {
	fault := err != nil && backend.AsError(err) == nil && err != errWorkLimit
	if err != nil && !fault && err != errWorkLimit {
		err = b.wgate.gateError(err)
	}
	if b.w.GetAutocommit() {
		// SQLite rolled back the block's transaction: nothing of the block
		// is left, not even the savepoints.
		b.lost = true
		if fault {
			b.lostBy = err
			return nil, err // node-local: not for the executor to re-run
		}
		if err == nil {
			err = errors.New("the statement ended the block's transaction")
		}
		return nil, fmt.Errorf("%w: %w", backend.ErrBlockLost, err)
	}
	if err != nil {
		if fault {
			b.dropStatements() // the block is rolled back next
			return nil, err
		}
		if ddl {
			// SQLite discards its schema when a statement that changed it
			// fails: reload it now, not on the next statement's fuel, and
			// forget the statements it expired.
			b.dropStatements()
			if _, lerr := b.loadSchema(); lerr != nil {
				return nil, lerr
			}
		}
		return nil, err
	}
	if rerr != nil {
		if err := classify(rerr); backend.AsError(err) == nil {
			return nil, err
		}
	}
	if err := b.afterSchemaChange(); err != nil {
		return nil, err
	}
	return rows, nil
}

// runOnFuel runs a client statement on f. The run's instructions are
// counted from zero: SQLite carries a statement's VM_STEP count across runs
// of a cached statement, and the progress handler fires when that count
// crosses a multiple of 1,000, so a cached statement would otherwise be
// interrupted at another point than a fresh one on a node that restarted.
// The costed functions charge the same fuel. An interrupt by f's context
// returns an error wrapping the context's error.
func (b *Backend) runOnFuel(stmt *sqlite3.Stmt, args []any, f *fuel) (*backend.Rows, error) {
	stmt.Status(sqlite3.STMTSTATUS_VM_STEP, true)
	b.w.SetInterrupt(f)
	b.costs.use(f)
	rows, err := run(stmt, args, resultLimits{fuel: f})
	b.costs.use(nil)
	b.w.SetInterrupt(context.Background())
	switch {
	case f.cancelled != nil:
		return nil, fmt.Errorf("statement interrupted on this node (not a tx result): %w", f.cancelled)
	case f.out:
		return nil, errWorkLimit
	}
	return rows, err
}

func (b *Backend) cache(sql string, c *cached) {
	if len(b.stmtOrder) >= stmtCache {
		old := b.stmtOrder[0]
		b.stmtOrder = b.stmtOrder[1:]
		if s := b.stmts[old]; s != nil {
			s.stmt.Close()
		}
		delete(b.stmts, old)
	}
	b.stmts[sql] = c
	b.stmtOrder = append(b.stmtOrder, sql)
}

// schemaVersion reads the schema cookie on the writer (a kept internal
// statement: Exec reads it after every client statement). The caller sets
// the internal flag.
func (b *Backend) schemaVersion() (int64, error) {
	st, err := b.internalStmt("PRAGMA schema_version")
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return schemaVersionOf(st, 0)
}

// schemaVersionOf runs a kept "PRAGMA schema_version" statement and
// resets it for the next use; def is the version when it returns no row.
func schemaVersionOf(st *sqlite3.Stmt, def int64) (int64, error) {
	v := def
	if st.Step() {
		v = st.ColumnInt64(0)
	}
	err := st.Err()
	if rerr := st.Reset(); err == nil {
		err = rerr
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// afterSchemaChange keeps the capture triggers in step with the schema:
// when a statement changed the schema (SQLite bumps schema_version on every
// DDL), every replicated table gets triggers for its current columns. It
// runs inside the tx's savepoint, so it rolls back with a failed tx.
func (b *Backend) afterSchemaChange() error {
	b.internal = true
	v, err := b.schemaVersion()
	b.internal = false
	if err != nil {
		return err
	}
	if v == b.schemaVer {
		return nil
	}
	if err := b.vetChangedSchema(); err != nil {
		return err
	}
	b.blockDDL = true
	return b.adoptSchema()
}

// reconcileSchema is afterSchemaChange for a schema changed outside any
// block (the block that reconciles it did not change it): its objects are
// taken as Open takes a database's, unvetted, since the gate traps a
// refused view, trigger or default where a statement uses it, on every
// node alike. Vetting them here would fail this node's next DDL alone.
func (b *Backend) reconcileSchema() error {
	b.dropStatements()
	b.internal = true
	vetted, err := b.ddl().schemaObjects()
	b.internal = false
	if err != nil {
		return err
	}
	b.vetted = vetted
	return b.adoptSchema()
}

// vetChangedSchema forgets the statements compiled on the old schema and
// vets the schema as it is now.
func (b *Backend) vetChangedSchema() error {
	b.dropStatements()
	return b.ddl().vetSchema()
}

// adoptSchema brings the capture triggers and what the backend remembers
// of the schema in step with the schema as it is now.
func (b *Backend) adoptSchema() error {
	b.internal = true
	defer func() { b.internal = false }()
	if err := b.reconcileTriggers(); err != nil {
		return fmt.Errorf("install change-capture triggers: %w", err)
	}
	var err error
	if b.schemaVer, err = b.schemaVersion(); err != nil {
		return err
	}
	if err := b.loadCapTables(b.schemaVer); err != nil {
		return err
	}
	b.hook.dropGone()
	return nil
}

type tableInfo struct {
	name  string
	cols  []string
	rowid string // a name of the rowid not shadowed by a column; "" for WITHOUT ROWID
}

// reconcileTriggers creates and drops relchain's triggers to match the
// schema: every rowid table's guard, and capture triggers on exactly the
// tables with user triggers or foreign-key actions on their rows
// (capture.go says why); at Open it drops those of a database written
// before the hook, which had them on every table. A table that gets them
// because it got its first user trigger has that trigger re-created after
// them, so that the capture triggers are older, as they were when every
// table had them (they came with the table).
func (b *Backend) reconcileTriggers() error {
	tables, err := b.replicatedTables()
	if err != nil {
		return err
	}
	existing, err := b.captureTriggers()
	if err != nil {
		return err
	}
	user, err := b.userTriggers()
	if err != nil {
		return err
	}
	parents, err := fkActionParents(b.w, tables)
	if err != nil {
		return err
	}
	want := make(map[string]string)
	var fresh []string // tables that get capture triggers they had none of
	for _, t := range tables {
		if len(user[asciiLower([]byte(t.name))]) > 0 || parents[t.name] {
			had := false
			for _, op := range []string{"I", "U", "D"} {
				name, sql := triggerSQL(t, op)
				want[name] = sql
				had = had || existing[name] != ""
			}
			if !had {
				fresh = append(fresh, t.name)
			}
		}
		if name, sql := guardSQL(t); name != "" {
			want[name] = sql
		}
	}
	// Drop stale triggers first (sorted for a deterministic order).
	for _, name := range sortedKeys(existing) {
		if want[name] != existing[name] {
			if err := b.w.Exec("DROP TRIGGER " + quoteIdent(name)); err != nil {
				return err
			}
		}
	}
	for _, name := range sortedKeys(want) {
		if existing[name] != want[name] {
			if err := b.w.Exec(want[name]); err != nil {
				return err
			}
		}
	}
	for _, tbl := range fresh {
		if err := b.recreateNewTriggers(user[asciiLower([]byte(tbl))]); err != nil {
			return err
		}
	}
	return nil
}

// fkActionParents returns the tables whose rows a foreign key's action
// (ON DELETE or ON UPDATE CASCADE, SET NULL or SET DEFAULT) follows: a
// change of such a row changes rows of another table before its AFTER
// triggers run.
func fkActionParents(c *sqlite3.Conn, tables []tableInfo) (map[string]bool, error) {
	byName := make(map[string]string, len(tables))
	for _, t := range tables {
		byName[asciiLower([]byte(t.name))] = t.name
	}
	st, _, err := c.Prepare(`SELECT "table", on_update, on_delete FROM pragma_foreign_key_list(?)`)
	if err != nil {
		return nil, fmt.Errorf("list foreign keys: %w", err)
	}
	defer st.Close()
	acts := func(a string) bool {
		a = strings.ToUpper(a)
		return a == "CASCADE" || a == "SET NULL" || a == "SET DEFAULT"
	}
	parents := make(map[string]bool)
	for _, t := range tables {
		if err := st.BindText(1, t.name); err != nil {
			return nil, err
		}
		for st.Step() {
			if acts(st.ColumnText(1)) || acts(st.ColumnText(2)) {
				if name, ok := byName[asciiLower(st.ColumnRawText(0))]; ok {
					parents[name] = true
				}
			}
		}
		if err := errors.Join(st.Err(), st.Reset()); err != nil {
			return nil, fmt.Errorf("list foreign keys of %s: %w", t.name, err)
		}
	}
	return parents, nil
}

// userTrigger is one of the client's triggers.
type userTrigger struct{ name, sql string }

// userTriggers returns the client's triggers by table name in lower case
// (a trigger names its table as its statement spelt it; SQLite's names are
// case-insensitive in ASCII), each table's in creation order.
func (b *Backend) userTriggers() (map[string][]userTrigger, error) {
	st, _, err := b.w.Prepare(`SELECT tbl_name, name, sql FROM sqlite_schema WHERE type = 'trigger'
		AND name NOT LIKE 'relchain\_%' ESCAPE '\' AND sql IS NOT NULL ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("list triggers: %w", err)
	}
	defer st.Close()
	m := make(map[string][]userTrigger)
	for st.Step() {
		tbl := asciiLower(st.ColumnRawText(0))
		m[tbl] = append(m[tbl], userTrigger{name: st.ColumnText(1), sql: st.ColumnText(2)})
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("list triggers: %w", err)
	}
	return m, nil
}

// recreateNewTriggers drops and re-creates, in creation order, the
// triggers of ts that did not exist at the schema the hook last loaded
// (those the running statement created), making them newer than capture
// triggers just created: SQLite fires a table's newest trigger first. A
// trigger that did exist keeps its place (a table renamed, or altered
// with its capture triggers dropped, gets newer capture triggers, as on
// the trigger path).
func (b *Backend) recreateNewTriggers(ts []userTrigger) error {
	for _, t := range ts {
		if b.hook.userTriggers[t.name] {
			continue
		}
		if err := b.w.Exec("DROP TRIGGER " + quoteIdent(t.name)); err != nil {
			return fmt.Errorf("re-create trigger %s: %w", t.name, err)
		}
		if err := b.w.Exec(t.sql); err != nil {
			return fmt.Errorf("re-create trigger %s: %w", t.name, err)
		}
	}
	return nil
}

func (b *Backend) replicatedTables() ([]tableInfo, error) { return replicatedTables(b.w) }

// replicatedTables lists the tables relchain captures and digests, by name,
// as connection c sees the schema.
func replicatedTables(c *sqlite3.Conn) ([]tableInfo, error) {
	st, _, err := c.Prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name NOT LIKE 'relchain\_%' ESCAPE '\'
		AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names []string
	for st.Step() {
		names = append(names, st.ColumnText(0))
	}
	err = st.Err()
	st.Close()
	if err != nil {
		return nil, err
	}
	cols, _, err := c.Prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid")
	if err != nil {
		return nil, err
	}
	defer cols.Close()
	wr, _, err := c.Prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?")
	if err != nil {
		return nil, err
	}
	defer wr.Close()
	out := make([]tableInfo, 0, len(names))
	for _, n := range names {
		t := tableInfo{name: n}
		if err := cols.BindText(1, n); err != nil {
			return nil, err
		}
		for cols.Step() {
			t.cols = append(t.cols, cols.ColumnText(0))
		}
		if err := cols.Err(); err != nil {
			return nil, err
		}
		if err := cols.Reset(); err != nil {
			return nil, err
		}
		if err := wr.BindText(1, n); err != nil {
			return nil, err
		}
		withoutRowid := wr.Step() && wr.ColumnInt(0) != 0
		if err := wr.Err(); err != nil {
			return nil, err
		}
		if err := wr.Reset(); err != nil {
			return nil, err
		}
		if !withoutRowid {
			t.rowid = rowidAlias(t.cols)
		}
		out = append(out, t)
	}
	return out, nil
}

func (b *Backend) captureTriggers() (map[string]string, error) {
	st, _, err := b.w.Prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'relchain\_cap\_%' ESCAPE '\'`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	m := make(map[string]string)
	for st.Step() {
		m[st.ColumnText(0)] = st.ColumnText(1)
	}
	return m, st.Err()
}

// triggerSQL returns the capture trigger of table t for op (I, U or D). It
// records the row's image after the change ('I', 'U') and before it ('D',
// and 'B' before an update's 'U'), so that the state digest can remove the
// old row and add the new one.
func triggerSQL(t tableInfo, op string) (name, sql string) {
	tbl := quoteLiteral(t.name)
	var event, values string
	switch op {
	case "I":
		event, values = "INSERT", fmt.Sprintf("(%s, 'I', %s)", tbl, rowImage(t, "NEW."))
	case "U":
		event, values = "UPDATE", fmt.Sprintf("(%s, 'B', %s), (%s, 'U', %s)", tbl, rowImage(t, "OLD."), tbl, rowImage(t, "NEW."))
	case "D":
		event, values = "DELETE", fmt.Sprintf("(%s, 'D', %s)", tbl, rowImage(t, "OLD."))
	}
	name = triggerPfx + strings.ToLower(op) + "_" + t.name
	sql = fmt.Sprintf("CREATE TRIGGER %s AFTER %s ON %s BEGIN INSERT INTO relchain_changes (tbl, op, img) VALUES %s; END",
		quoteIdent(name), event, quoteIdent(t.name), values)
	return name, sql
}

// rowImage is the SQL expression of a row's canonical image: SQLite's
// quote() of every column in declaration order, joined by commas, a text
// encoding identical on every node running the same SQLite. prefix is
// "NEW." or "OLD." in a trigger, "" in a scan: both give the same text.
func rowImage(t tableInfo, prefix string) string {
	parts := make([]string, len(t.cols))
	for i, c := range t.cols {
		parts[i] = "quote(" + prefix + quoteIdent(c) + ")"
	}
	return strings.Join(parts, "||','||")
}

// rowidAlias returns rowid, oid or _rowid_, the first that no column
// shadows, or "".
func rowidAlias(cols []string) string {
next:
	for _, a := range []string{"rowid", "oid", "_rowid_"} {
		for _, c := range cols {
			if strings.EqualFold(c, a) {
				continue next
			}
		}
		return a
	}
	return ""
}

// guardSQL returns the rowid guard of a rowid table: once a table holds the
// largest rowid, SQLite picks the next rowid AT RANDOM (or, with
// AUTOINCREMENT, fails with SQLITE_FULL, which looks like a full disk and
// would halt every node). The guard refuses any insert into such a table
// first, as a deterministic constraint failure. It costs one b-tree seek
// per inserted row.
func guardSQL(t tableInfo) (name, sql string) {
	if t.rowid == "" {
		return "", ""
	}
	name = triggerPfx + "g_" + t.name
	sql = fmt.Sprintf("CREATE TRIGGER %s BEFORE INSERT ON %s WHEN (SELECT max(%s) FROM %s) = 9223372036854775807 BEGIN SELECT RAISE(ABORT, %s); END",
		quoteIdent(name), quoteIdent(t.name), t.rowid, quoteIdent(t.name), quoteLiteral("relchain: the rowid space of table "+t.name+" is exhausted"))
	return name, sql
}

func quoteIdent(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ChangeDigest hashes the captured row changes in capture order and clears
// them, keeping their effect on the table sums for StateDigest. Rolled-back
// savepoints took their captured rows with them. Each record, encoded as
// for the block's digest, also enters the effect digest of the tx that
// wrote it (effects.go). Each field is length-prefixed: be64(len(tbl)) tbl
// be64(len(op)) op be64(len(img)) img.
// When ctx is done it stops at once with an error wrapping ctx.Err().
func (k *block) ChangeDigest(ctx context.Context) (backend.Changes, error) {
	b, err := k.lock()
	if err != nil {
		return backend.Changes{}, err
	}
	defer b.wmu.Unlock()
	defer b.interruptible(ctx)()
	if ctx != nil && ctx.Err() != nil {
		// Hook capture reads no table: stop here as the triggers' read would.
		return backend.Changes{}, fmt.Errorf("change digest: %w", ctx.Err())
	}
	ch, err := b.changeDigest()
	return ch, interrupted(ctx, "change digest", err)
}

// interruptible makes the writer's statements stop when ctx is done, until
// the returned function runs.
func (b *Backend) interruptible(ctx context.Context) func() {
	if ctx == nil {
		ctx = context.Background()
	}
	b.w.SetInterrupt(ctx)
	return func() { b.w.SetInterrupt(context.Background()) }
}

// interrupted wraps err with ctx's error when ctx is done: the failure is
// then the node's deadline, not the statement's.
func interrupted(ctx context.Context, what string, err error) error {
	if err != nil && ctx != nil && ctx.Err() != nil {
		return fmt.Errorf("%s: %w (%w)", what, ctx.Err(), err)
	}
	return err
}

func (b *Backend) changeDigest() (backend.Changes, error) {
	h := sha256.New()
	effects := make(backend.EffectDigests)
	emptyChanges := b.hook.triggerRecords
	b.hookDigest(h, effects)
	if emptyChanges {
		// The capture triggers' records are in the digest now.
		b.internal = true
		defer func() { b.internal = false }()
		if err := b.internalExec("DELETE FROM relchain_changes"); err != nil {
			return backend.Changes{}, fmt.Errorf("clear changes: %w", err)
		}
	}
	return backend.Changes{Block: h.Sum(nil), Effects: effects.Sums()}, nil
}

// Commit records the state and commits the block; with synchronous=FULL
// in WAL mode the commit is durable when it returns.
func (k *block) Commit(ctx context.Context, s backend.State) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	b.internal = true
	defer func() { b.internal = false }()
	st, err := b.internalStmt("INSERT OR REPLACE INTO relchain_meta (id, height, app_hash) VALUES (1, ?, ?)")
	if err != nil {
		return fmt.Errorf("record state: %w", err)
	}
	err = st.BindInt64(1, s.Height)
	if err == nil {
		err = st.BindBlob(2, s.AppHash)
	}
	if err == nil {
		err = st.Exec()
	}
	if err != nil {
		return fmt.Errorf("record state: %w", err)
	}
	if b.w.GetAutocommit() {
		return errors.New("commit: the block's db-transaction is gone")
	}
	if err := b.internalExec("COMMIT"); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	b.open = false
	b.changed.reset()
	if len(b.hook.records) > 0 {
		// The block committed changes ChangeDigest never consumed: its
		// stored sums miss them, as the next Begin will find (tamper.go).
		b.hook.verifyNext = true
		b.hook.reset()
	}
	if b.blockDDL || b.sumsStale {
		// Analyze verdicts taken on the old schema are stale now.
		b.schemaGen.Add(1)
		b.blockDDL, b.sumsStale = false, false
	}
	b.maybeCheckpoint(s.Height)
	return nil
}

// Rollback implements backend.Block; it is the one call a lost block
// accepts.
func (k *block) Rollback(ctx context.Context) error {
	b := k.b
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if !b.open || b.blockGen != k.gen {
		return nil // already finished
	}
	b.open, b.lost, b.lostBy = false, false, nil
	b.txOpen = false
	b.hook.reset()
	b.changed.reset()
	// A block (or a rehearsal) that changed the schema leaves it gone back
	// to the one the block began on: forget statements compiled on the
	// undone schema, and remember the version remembered then. Never a
	// version that forces a reconciliation: the next block's first
	// statement would take the schema for changed by that block
	// (blockDDL), and its results would carry no effect digests on this
	// node alone (a speculated proposal or a rehearsal with DDL that was
	// then discarded; TestSpeculationAndRestartsLeaveNoTrace).
	if b.blockDDL || b.txDDL || b.schemaVer != b.beginSchemaVer {
		b.dropStatements()
		b.schemaVer = b.beginSchemaVer
	}
	b.blockDDL, b.txDDL, b.sumsStale = false, false, false
	if b.w.GetAutocommit() {
		return nil // SQLite rolled the transaction back already
	}
	if err := b.internalExec("ROLLBACK"); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}
