package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/sqlcheck"
)

// Deferred constraints, checked at the end of each tx as PostgreSQL
// checks them at the end of a transaction.
//
// A block is one db-transaction and each tx a savepoint in it. The block
// runs under SET CONSTRAINTS ALL IMMEDIATE (beginSQL), so that no check is
// left for the block's COMMIT, where a violation would fail the whole
// block on every node. Each tx then starts as a PostgreSQL transaction
// starts: right after its SAVEPOINT, SET CONSTRAINTS defers the schema's
// INITIALLY DEFERRED constraints (deferredQuery), and a tx may run SET
// CONSTRAINTS itself (Django writes `SET CONSTRAINTS "name" IMMEDIATE`
// after adding a foreign key and `SET CONSTRAINTS ALL DEFERRED` when it
// loads fixtures). Before the tx's savepoint is released, SET CONSTRAINTS
// ALL IMMEDIATE checks every pending check at once (PostgreSQL applies a
// change from DEFERRED to IMMEDIATE retroactively) and leaves the mode the
// block began with for the next tx. A violation there fails the tx as a
// PostgreSQL COMMIT fails (backend.ErrDeferredViolation); the executor
// rolls back to its savepoint, which restores the mode of the savepoint's
// start as well.
//
// What is deferred is a function of the block's schema, read at the
// block's first savepoint and after every DDL statement or rollback to a
// savepoint: the same on every node. A constraint created INITIALLY
// DEFERRED by the tx itself is checked per statement until the next tx
// (the tx's SET CONSTRAINTS ALL IMMEDIATE governs constraints created
// later), and a constraint name shared with a DEFERRABLE INITIALLY
// IMMEDIATE one is not deferred (SET CONSTRAINTS cannot tell them apart):
// both are checked sooner than PostgreSQL would, so such a tx may fail
// where PostgreSQL's would succeed, never the reverse. SET CONSTRAINTS in
// a function body is refused by the gate: the backend would not know of
// it.

// deferredQuery lists the schema's INITIALLY DEFERRED constraints as SET
// CONSTRAINTS names them, in a fixed order, outside relchain's own schema
// and the system's; a name shared with a constraint that is not initially
// deferred is left out.
const deferredQuery = `SELECT coalesce(string_agg(name, ', ' ORDER BY name COLLATE "C"), '') FROM (
	SELECT quote_ident(n.nspname) || '.' || quote_ident(c.conname) AS name
	FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_namespace n ON n.oid = c.connamespace
	WHERE c.condeferrable AND n.nspname <> 'relchain' AND n.nspname <> 'information_schema'
		AND n.nspname NOT LIKE 'pg\_%'
	GROUP BY n.nspname, c.conname
	HAVING bool_and(c.condeferred)) d`

// deferredState is a block's knowledge of its deferred constraints.
type deferredState struct {
	// names is the SET CONSTRAINTS list of the schema's INITIALLY
	// DEFERRED constraints ("" for none); known: it is current.
	names string
	known bool
	// pending: the open tx may have checks deferred to its end.
	pending bool
	// ddl: a DDL statement ran in the block, so a rollback to a savepoint
	// may undo a constraint's creation or removal.
	ddl bool
}

// loadDeferred reads the schema's INITIALLY DEFERRED constraints if the
// block does not know them; the caller holds the backend's mutex. The
// read runs before the tx's savepoint statements: it changes nothing.
func (k *session) loadDeferred(ctx context.Context, env sqlcheck.Env) error {
	if k.deferred.known || !deferredRules(env) {
		return nil
	}
	res, err := k.conn.PgConn().Exec(ctx, deferredQuery).ReadAll()
	if err != nil {
		return fmt.Errorf("postgres: read deferred constraints: %w", err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) != 1 {
		return errors.New("postgres: read deferred constraints: unexpected result shape")
	}
	k.deferred.names, k.deferred.known = string(res[0].Rows[0][0]), true
	return nil
}

// deferStatement is the statement that follows a tx's SAVEPOINT, or "".
func (k *session) deferStatement() string {
	if k.deferred.names == "" || !deferredRules(k.env) {
		return ""
	}
	return "SET CONSTRAINTS " + k.deferred.names + " DEFERRED"
}

// checkDeferred runs the tx's deferred checks before its savepoint is
// released, if it may have any; the caller holds the backend's mutex. A
// violation is the tx's failure, wrapping backend.ErrDeferredViolation;
// the savepoint stays open for RollbackTo.
func (k *session) checkDeferred(ctx context.Context) error {
	if !k.deferred.pending {
		return nil
	}
	k.deferred.pending = false
	err := k.simpleLocked(ctx, "deferred constraints", "SET CONSTRAINTS ALL IMMEDIATE")
	var pgErr *pgconn.PgError
	if err == nil || ctx.Err() != nil || !errors.As(err, &pgErr) || nodeFault(pgErr.Code) || stackDependent(pgErr) {
		return err
	}
	k.aborted = true
	return fmt.Errorf("%w: %w", backend.ErrDeferredViolation, asBackendError(pgErr))
}

// legacySetConstraints is the refusal of SET CONSTRAINTS in a block of
// protocol version 1 or 2, word for word as the gate gave it then (a
// tx's failure reason is part of its result, which replays reproduce).
const legacySetConstraints = "session settings (SET, RESET, SHOW, DISCARD, ALTER SYSTEM) are not allowed: relchain pins the session"

// deferredRules reports whether env's protocol version checks deferred
// constraints per tx and takes SET CONSTRAINTS (protocol.V3).
func deferredRules(env sqlcheck.Env) bool { return env.Protocol >= protocol.V3 }

// analyzeInBlock is the gate's verdict in the open block: the text's,
// except that a block of protocol version 1 or 2 refuses SET CONSTRAINTS
// as it did (and so does a call with no block open).
func (b *Backend) analyzeInBlock(_ context.Context, _ backend.Block, sql string) (sqlcheck.Analysis, error) {
	st, err := b.syntax.gated(sql)
	if err != nil || !st.setConstraints {
		return st.analysis, err
	}
	// blk may be a wrapper (the executor's bounded block): the block is
	// the backend's open one.
	b.mu.Lock()
	var env sqlcheck.Env
	if b.open != nil {
		env = b.open.env
	}
	b.mu.Unlock()
	if !deferredRules(env) {
		return st.analysis, &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: legacySetConstraints}
	}
	return st.analysis, nil
}
