package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

// blockStmts are the writer connection's prepared block statements
// (backend/postgres/DESIGN.md, "Prepared block statements"): a statement
// text sent a second time with the same argument types is prepared as a
// named statement and bound by name from then on, so the server parses and
// analyses it once per connection instead of once per execution.
//
// What a statement means must not depend on whether this node had it
// prepared: a node that restarted has none. PostgreSQL re-analyses a
// prepared statement after a schema change, but fails it ("cached plan must
// not change result type", 0A000) if its result columns changed, where a
// fresh statement would succeed. So every schema change empties the cache —
// a DDL statement that succeeded, and a rollback (to the savepoint, or of
// the block) that undid one — and the next statement first sends
// DEALLOCATE ALL. Every statement that runs while the schema differs from
// the one a cached statement was prepared under is therefore prepared
// afresh, on every node.
//
// Plans: the writer runs with plan_cache_mode = force_generic_plan, for
// the unnamed statement as for prepared ones (writerConfig). Under the
// default (auto) a statement's first five executions get custom plans,
// which fold constant subexpressions of its arguments at planning, and
// later ones may get the generic plan, which evaluates them only where the
// executor reaches them: `CASE WHEN id < 0 THEN 1/$1 END` with $1 = 0 fails
// at planning under a custom plan and succeeds under the generic one. The
// outcome would depend on how often this node had run the statement since
// it started. One mode for every statement makes it the same on every
// node (TestBlockStatementsPlanTheSameWhateverTheirHistory).
//
// The caller holds the backend's mutex.
type blockStmts struct {
	conn  *pgconn.PgConn    // the connection the names belong to
	names map[string]string // by stmtKey (text and argument types, which a prepared statement keeps): its name
	seen  map[string]bool   // stmtKeys sent once, not prepared
	next  int
	// stale: DEALLOCATE ALL is due before the next statement.
	stale bool
	// schemaChanged: a DDL statement ran in the open block since the
	// cache was last emptied, so a rollback must empty it again.
	schemaChanged bool
	// utilities names the constant utility statements of a tx's prefix
	// (utilityStmts) once they are prepared on conn; nil until then and
	// after every invalidate, whose DEALLOCATE ALL drops them.
	utilities map[string]string
}

// utilityStmts are the prefix statements whose text never changes: the
// savepoint every tx opens and the release of the one before. Bound by
// name, as the raw baseline's driver does, the server does not parse them
// for every tx (SET LOCAL relchain.tx carries the tx's number and stays
// unnamed).
var utilityStmts = []string{"RELEASE SAVEPOINT " + savepoint, "SAVEPOINT " + savepoint}

// preparedUtilities returns utilityStmts' names on pc, preparing them
// first if needed (once per connection and per DEALLOCATE ALL), or nil:
// send them unnamed. Not while a DEALLOCATE ALL is still to go out (it
// would drop them before they run); a failed Prepare empties the cache, so
// the next statement starts over from DEALLOCATE ALL.
func (s *blockStmts) preparedUtilities(ctx context.Context, pc *pgconn.PgConn) map[string]string {
	if s.stale {
		return nil
	}
	if s.utilities == nil {
		u := make(map[string]string, len(utilityStmts))
		for i, sql := range utilityStmts {
			name := "relchain_u" + strconv.Itoa(i)
			if _, err := pc.Prepare(ctx, name, sql, nil); err != nil {
				s.invalidate()
				return nil
			}
			u[sql] = name
		}
		s.utilities = u
	}
	return s.utilities
}

// maxBlockStmts bounds the prepared statements (and the texts seen once)
// per connection; a full cache starts over.
const maxBlockStmts = 256

// on makes the cache belong to pc: a new connection has no prepared
// statements.
func (s *blockStmts) on(pc *pgconn.PgConn) {
	if s.conn != pc {
		*s = blockStmts{conn: pc, names: map[string]string{}, seen: map[string]bool{}}
	}
}

// lookup returns key's statement name, or "" with prepare set if the
// statement should be prepared now (its second sighting).
func (s *blockStmts) lookup(key string) (name string, prepare bool) {
	if name, ok := s.names[key]; ok {
		return name, false
	}
	if s.seen[key] {
		return "", true
	}
	if len(s.seen) >= maxBlockStmts {
		clear(s.seen)
	}
	s.seen[key] = true
	return "", false
}

// add names key's statement, to be prepared by the caller.
func (s *blockStmts) add(key string) string {
	delete(s.seen, key)
	s.next++
	name := "relchain_b" + strconv.Itoa(s.next)
	s.names[key] = name
	return name
}

// forget drops key's statement, whose Parse failed.
func (s *blockStmts) forget(key string) { delete(s.names, key) }

// invalidate empties the cache; the server's statements are deallocated
// before the next statement (takeStale).
func (s *blockStmts) invalidate() {
	clear(s.names)
	clear(s.seen)
	s.utilities = nil
	s.stale = true
}

// schemaChange records a DDL statement that succeeded.
func (s *blockStmts) schemaChange() {
	s.invalidate()
	s.schemaChanged = true
}

// rolledBack records a rollback, to the savepoint or of the block: if it
// may have undone a schema change, the cache is emptied.
func (s *blockStmts) rolledBack(blockEnds bool) {
	if s.schemaChanged {
		s.invalidate()
	}
	if blockEnds {
		s.schemaChanged = false
	}
}

// committed records that the block committed: its schema changes stay.
func (s *blockStmts) committed() { s.schemaChanged = false }

// takeStale returns the statements to send before anything else: DEALLOCATE
// ALL if the cache was emptied since the last statement.
func (s *blockStmts) takeStale() []string {
	if !s.stale {
		return nil
	}
	s.stale = false
	return []string{"DEALLOCATE ALL"}
}

// execStatement runs sql after the utility statements prefix, as
// execEncoded does; a cacheable statement (its text the same in every tx:
// no clock or random rewrite, no DDL) is bound by name once prepared (see
// blockStmts). Preparing is a round trip of its own after prefix, so a
// failed Parse fails inside the tx's savepoint as the unnamed statement's
// did.
func (k *session) execStatement(ctx context.Context, prefix []string, sql string, args []any, sortRows, cacheable bool) (*backend.Rows, error) {
	values, oids, formats, err := encodeArgs(args)
	if err != nil {
		return nil, err
	}
	pc := k.conn.PgConn()
	c := k.stmts
	c.on(pc)
	if len(c.names) >= maxBlockStmts {
		c.invalidate() // before takeStale: deallocated before the next Parse
	}
	var utilities map[string]string
	if !k.aborted && len(prefix) > 0 {
		utilities = c.preparedUtilities(ctx, pc)
	}
	prefix = append(c.takeStale(), prefix...)
	st := encodedStmt{sql: sql, values: values, oids: oids, formats: formats}
	if cacheable {
		key := stmtKey(sql, oids)
		name, prepare := c.lookup(key)
		if prepare {
			if err := runPrefix(ctx, pc, prefix); err != nil {
				c.invalidate()
				return nil, err
			}
			prefix = nil
			name = c.add(key)
			if _, err := pc.Prepare(ctx, name, sql, oids); err != nil {
				c.forget(key)
				if lostTrack(err) {
					c.invalidate()
				}
				return nil, err
			}
		}
		st.name = name
	}
	rows, err := execEncoded(ctx, pc, prefix, utilities, st, sortRows)
	if lostTrack(err) {
		c.invalidate()
	}
	return rows, err
}

// lostTrack reports an error after which the cache may no longer match
// the server: a batch that failed before its statement (it may or may not
// have run the DEALLOCATE ALL it carried), or the server disowning a name
// (which nodeFault makes a failure of this node, never the tx's).
func lostTrack(err error) bool {
	var pe *prefixError
	var pgErr *pgconn.PgError
	return errors.As(err, &pe) || errors.As(err, &pgErr) && preparedStatementFault(pgErr.Code)
}

// preparedStatementFault reports the SQLSTATEs of relchain's own prepared
// statements going wrong (invalid_sql_statement_name, duplicate_prepared_
// statement): client statements cannot prepare or name statements (the
// gate and stmtInfo.forbidden refuse PREPARE, EXECUTE, DEALLOCATE), so
// these are always this node's fault.
func preparedStatementFault(code string) bool { return code == "26000" || code == "42P05" }

// runPrefix runs utility statements in one round trip (simple protocol).
func runPrefix(ctx context.Context, pc *pgconn.PgConn, prefix []string) error {
	if len(prefix) == 0 {
		return nil
	}
	if _, err := pc.Exec(ctx, strings.Join(prefix, "; ")).ReadAll(); err != nil {
		return &prefixError{stmt: strings.Join(prefix, "; "), err: err}
	}
	return nil
}
