package sqlite

import (
	"context"
	"errors"
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// Deferred foreign keys in the postgres dialect (DESIGN.md, "Deferred
// foreign keys"). The translator writes a DEFERRABLE INITIALLY DEFERRED
// key as such into SQLite's DDL, so SQLite counts its violations instead
// of failing the statement (sqlite3_db_status DEFERRED_FKS), and restores
// the count with the data on ROLLBACK TO. A tx is PostgreSQL's transaction:
// Release fails it (23503, ErrDeferredViolation) while violations remain,
// so the count is zero at every tx boundary and the block's COMMIT never
// meets one. SET CONSTRAINTS ALL IMMEDIATE checks the count at once and
// then at the end of every later statement of the tx; ALL DEFERRED goes
// back to the keys' own modes. The sqlite dialect is untouched: SQLite
// checks its deferred keys at the block's COMMIT, as before.

// deferredPending reports whether SQLite counts a deferred foreign key
// violation on the writer.
func (b *Backend) deferredPending() (bool, error) {
	n, _, err := b.w.Status(sqlite3.DBSTATUS_DEFERRED_FKS, false)
	if err != nil {
		return false, fmt.Errorf("read the deferred foreign key count: %w", err)
	}
	return n > 0, nil
}

// checkDeferred is nil when no deferred foreign key is violated, else the
// violation as PostgreSQL reports it (*backend.Error, 23503), or an error
// of the node. The caller holds wmu.
func (b *Backend) checkDeferred(ctx context.Context) error {
	pending, err := b.deferredPending()
	if err != nil || !pending {
		return err
	}
	return b.deferredViolation(ctx)
}

// deferredViolation names the violated key on the error path only:
// PostgreSQL's message names the referencing table and the constraint.
// The tables with deferred keys are checked in creation order, on the
// statement's work limit (a client's tx pays for the scan it causes);
// past it, or when no check finds the row, the message names neither.
// PostgreSQL reports the first violating event of its trigger queue: with
// violations of two keys in one tx the key named can differ (DESIGN.md).
func (b *Backend) deferredViolation(ctx context.Context) error {
	msg := "insert or update violates a deferred foreign key constraint"
	table, fkid, found, err := b.firstViolation(ctx)
	if err != nil {
		return err
	}
	if found {
		name, err := b.foreignKeyName(table, fkid)
		if err != nil {
			return err
		}
		if name != "" {
			msg = fmt.Sprintf("insert or update on table %q violates foreign key constraint %q", table, name)
		}
	}
	return fmt.Errorf("%w: %w", backend.ErrDeferredViolation,
		&backend.Error{Class: backend.ClassConstraint, SQLState: "23503", Message: msg})
}

// firstViolation finds a row that violates a deferred key: its table and
// the key's pragma_foreign_key_list id. An error is the node's.
func (b *Backend) firstViolation(ctx context.Context) (string, int64, bool, error) {
	b.internal = true
	defer func() { b.internal = false }()
	var tables []string
	q, _, err := b.w.Prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND instr(sql, 'DEFERRABLE INITIALLY DEFERRED') > 0 ORDER BY rowid`)
	if err = forRows(q, err, nil, func(st *sqlite3.Stmt) { tables = append(tables, st.ColumnText(0)) }); err != nil {
		return "", 0, false, fmt.Errorf("list tables with deferred foreign keys: %w", err)
	}
	st, _, err := b.w.Prepare(`SELECT fkid FROM pragma_foreign_key_check(?1) LIMIT 1`)
	if err != nil {
		return "", 0, false, fmt.Errorf("check deferred foreign keys: %w", err)
	}
	defer st.Close()
	f := newFuel(ctx, b.workLimit)
	for _, t := range tables {
		rows, err := b.runOnFuel(st, []any{t}, f)
		st.Reset()
		switch {
		case errors.Is(err, errWorkLimit):
			return "", 0, false, nil
		case err != nil:
			return "", 0, false, fmt.Errorf("check deferred foreign keys of %s: %w", t, err)
		case len(rows.Rows) > 0:
			id, _ := rows.Rows[0][0].(int64)
			return t, id, true, nil
		}
	}
	return "", 0, false, nil
}

// foreignKeyName is the name of table's foreign key fkid as the emulated
// catalog names it (PostgreSQL's default name when CREATE TABLE gave
// none), "" when the catalog does not show the table. SQLite numbers a
// table's keys from the last declared.
func (b *Backend) foreignKeyName(table string, fkid int64) (string, error) {
	b.internal = true
	defer func() { b.internal = false }()
	s, err := schemaOf(b.w)
	if err != nil {
		return "", err
	}
	for _, t := range s.Tables {
		if t.Name == table && fkid >= 0 && fkid < int64(len(t.ForeignKeys)) {
			return t.ForeignKeys[int64(len(t.ForeignKeys))-1-fkid].Name, nil
		}
	}
	return "", nil // a table the catalog does not show (not the dialect's): no name
}

// setConstraints is a parsed SET CONSTRAINTS statement.
type setConstraints struct {
	names    []string // none: ALL
	deferred bool     // DEFERRED, not IMMEDIATE
	// elsewhere: the schema other than public a name is qualified by
	// (relchain has none: 3F000)
	elsewhere string
}

// parseSetConstraints recognizes SET CONSTRAINTS, which PostgreSQL's gate
// refuses (it is a session setting on PostgreSQL storage, whose blocks run
// under SET CONSTRAINTS ALL IMMEDIATE) and this dialect runs itself. A text
// without the word is not parsed.
func parseSetConstraints(sql string) (setConstraints, bool) {
	if !sqlcheck.ContainsFold(sql, "constraints") || prescan.Check(sql, prescan.PostgreSQL) != nil {
		return setConstraints{}, false // the gate refuses what the pre-scan does
	}
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return setConstraints{}, false
	}
	cs := tree.GetStmts()[0].GetStmt().GetConstraintsSetStmt()
	if cs == nil {
		return setConstraints{}, false
	}
	sc := setConstraints{deferred: cs.GetDeferred()}
	for _, n := range cs.GetConstraints() {
		rv := n.GetRangeVar()
		if s := rv.GetSchemaname(); s != "" && s != "public" {
			sc.elsewhere = s
		}
		if c := rv.GetCatalogname(); c != "" && sc.elsewhere == "" {
			sc.elsewhere = c + "." + rv.GetSchemaname()
		}
		sc.names = append(sc.names, rv.GetRelname())
	}
	return sc, true
}

// verdict is the gate's judgement of SET CONSTRAINTS: accepted (it
// writes no table: any sender may); what the names name is the block's.
func (sc setConstraints) verdict() (sqlcheck.Analysis, error) {
	return sqlcheck.Analysis{}, nil
}

// execSetConstraints runs SET CONSTRAINTS in the open tx (with names:
// setNamed). ALL IMMEDIATE
// fails at once while a deferred key is violated (23503), as PostgreSQL
// checks the pending events, and makes every later statement of the tx
// check at its end; DEFERRED defers the DEFERRABLE INITIALLY DEFERRED keys
// again. DEFERRED would also defer DEFERRABLE INITIALLY IMMEDIATE keys,
// which SQLite checks per statement and cannot defer alone (its
// defer_foreign_keys pragma defers NOT DEFERRABLE keys too): refused
// (0A000) while the schema has one.
func (k *block) execSetConstraints(ctx context.Context, sc setConstraints) (*backend.Rows, error) {
	b, err := k.lock()
	if err != nil {
		return nil, err
	}
	defer b.wmu.Unlock()
	if sc.elsewhere != "" {
		return nil, &backend.Error{Class: backend.ClassOfSQLState("3F000"), SQLState: "3F000", Message: fmt.Sprintf("schema %q does not exist", sc.elsewhere)}
	}
	if len(sc.names) > 0 {
		if err := b.setNamed(ctx, sc.names, sc.deferred); err != nil {
			return nil, err
		}
		return &backend.Rows{}, nil
	}
	b.fkNamed = nil // ALL covers them
	if !sc.deferred {
		if err := b.checkDeferred(ctx); err != nil {
			return nil, unwrapDeferred(err)
		}
		b.fkImmediate, b.fkEv = true, fkEvents{} // the events fired
		return &backend.Rows{}, nil
	}
	mixed, err := b.hasInitiallyImmediateKey()
	if err != nil {
		return nil, err
	}
	if mixed {
		return nil, &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
			Message: "SET CONSTRAINTS ALL DEFERRED is not supported while a foreign key is DEFERRABLE INITIALLY IMMEDIATE (SQLite cannot defer it alone)"}
	}
	b.fkImmediate = false
	return &backend.Rows{}, nil
}

// hasInitiallyImmediateKey reports whether a table's DDL holds a
// DEFERRABLE INITIALLY IMMEDIATE foreign key (the translator writes the
// words so; a string literal holding them refuses too, never accepts).
func (b *Backend) hasInitiallyImmediateKey() (bool, error) {
	b.internal = true
	defer func() { b.internal = false }()
	found := false
	q, _, err := b.w.Prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND instr(sql, 'DEFERRABLE INITIALLY IMMEDIATE') > 0 LIMIT 1`)
	err = forRows(q, err, nil, func(*sqlite3.Stmt) { found = true })
	if err != nil {
		return false, fmt.Errorf("read the schema's foreign keys: %w", err)
	}
	return found, nil
}

// beforeStatement refuses DDL on a table with pending deferred events
// (pendingDDL).
func (k *block) beforeStatement(sql string) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	return b.pendingDDL(sql)
}

// afterStatement ends a statement that succeeded: under SET CONSTRAINTS
// ALL IMMEDIATE a deferred key it left violated fails it (23503); while
// deferred, its row changes are remembered (noteEvents).
func (k *block) afterStatement(ctx context.Context, sql string, rows *backend.Rows) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	if !b.fkImmediate {
		if err := b.noteEvents(sql, rows); err != nil {
			return err
		}
		return b.checkNamed(ctx)
	}
	return unwrapDeferred(b.checkDeferred(ctx))
}

// endTx forgets the tx's SET CONSTRAINTS and events; the caller holds wmu.
func (b *Backend) endTx() {
	b.fkImmediate, b.fkEv, b.fkNamed = false, fkEvents{}, nil
}

// unwrapDeferred is a statement's failure from checkDeferred's error: the
// *backend.Error alone (a statement's failure, not the tx end's).
func unwrapDeferred(err error) error {
	if errors.Is(err, backend.ErrDeferredViolation) {
		return backend.AsError(err)
	}
	return err
}

// releaseCheck is Release's check in the postgres dialect: the tx fails
// while a deferred key is violated, its savepoint left open.
func (b *Backend) releaseCheck(ctx context.Context) error {
	if !b.opts.pg {
		return nil
	}
	return b.checkDeferred(ctx)
}

// describeSetConstraints is Describe's answer for SET CONSTRAINTS: no
// parameters, no rows.
func describeSetConstraints(height int64) *backend.Description {
	return &backend.Description{Height: height}
}
