package postgres

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/relchain/relchain/backend"
	pgcheck "github.com/relchain/relchain/backend/postgres/pggate"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// stmtInfo is what relchain learns from parsing one statement text.
type stmtInfo struct {
	// ordered: a top-level SELECT with ORDER BY, whose row order is the
	// statement's own. Other rows are sorted (see block.Exec).
	ordered bool
	// forbidden, if not empty, says why the statement may not run through
	// Exec or Query: it would change session or transaction state that
	// relchain manages (savepoints, settings, prepared statements,
	// cursors). The statement gate rejects these first; this is a backstop
	// that keeps the backend's own invariants.
	forbidden string
	// schema: the statement may change the schema (anything but a query,
	// DML or CALL). Without the gate, CALL and DO may too (see
	// changesSchema).
	schema, call bool
	// query: a SELECT (also VALUES, TABLE and WITH ... SELECT) without
	// INTO.
	query bool
	// analysis is the gate's account of the statement (what it writes,
	// whether it is DDL, whether it needs rewriting with the tx's Env).
	analysis sqlcheck.Analysis
	// readText is the text Query runs: the statement, or (with the gate)
	// the read policy's rewrite hiding relchain's rows of the catalogs.
	readText string
	// readWrites: the read policy found a data-modifying WITH.
	readWrites bool
	// keyOrder: with the gate, a block statement with LIMIT without ORDER
	// BY, which runs ordered by its table's key (limit.go); readKeyOrder:
	// a read text with one such LIMIT, ordered by the key if there is one.
	keyOrder, readKeyOrder bool
	// params is the highest $n placeholder of the statement.
	params int
	// rewrite: the statement runs as pggate.Rewrite returns it.
	rewrite bool
	// restart: an ALTER SEQUENCE ... RESTART of this sequence (see
	// block.restartSequence).
	restart string
	// perRow: the statement may fill a column's default once per row
	// read (see perRowDefaults in sequence.go).
	perRow *perRowDefaults
	// setConstraints: SET CONSTRAINTS, which changes the tx's check mode
	// (deferred.go).
	setConstraints bool
	// truncate: a TRUNCATE, a schema statement (schema) that changes no
	// schema, only rows (see canonSchemaRecord).
	truncate bool
}

type syntaxEntry struct {
	info    stmtInfo
	err     error // parse error
	gateErr error // the gate's refusal of a statement that parses
	readErr error // the read policy's refusal of a query that parses
}

// syntaxCache parses statements with libpg_query, PostgreSQL's own parser
// (of the version pg_query_go bundles), without a server, and remembers the
// verdict per text: parsing depends only on the text, never on the schema.
//
// With the gate on, a statement that parses is also judged by
// backend/postgres/pggate (relchain's determinism and safety gate); a refusal is
// an *backend.Error of ClassPermission naming the construct.
type syntaxCache struct {
	entries sqlcheck.VerdictCache[syntaxEntry]
	gate    bool
}

func newSyntaxCache(gate bool) syntaxCache {
	return syntaxCache{gate: gate}
}

// readable is the verdict for Query: the parser's, then the gate's read
// policy (pggate.CheckRead: its safety refusals, not the determinism ones,
// since a read decides nothing), and then that the statement is a query
// that writes nothing (no DML, no data-modifying WITH, no DDL, no CALL).
// The READ ONLY db-transaction and the reader role refuse writes too; this
// refusal names the problem. Query runs the returned info's readText.
func (c *syntaxCache) readable(sql string) (stmtInfo, error) {
	e := c.lookup(sql)
	switch {
	case e.err != nil:
		return e.info, e.err
	case e.readErr != nil:
		return e.info, e.readErr
	case e.info.forbidden != "":
		return e.info, &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: e.info.forbidden}
	case !e.info.query || len(e.info.analysis.Writes) > 0 || e.info.readWrites:
		return e.info, &backend.Error{Class: backend.ClassPermission, SQLState: "25006",
			Message: "a query must be one read-only SELECT, VALUES, TABLE or WITH ... SELECT; writes and DDL go in a signed transaction"}
	}
	return e.info, nil
}

// gated is the parser's verdict and then the gate's (blocks and CheckTx).
func (c *syntaxCache) gated(sql string) (stmtInfo, error) {
	e := c.lookup(sql)
	if e.err != nil {
		return e.info, e.err
	}
	return e.info, e.gateErr
}

// describable is the verdict for Describe and the text to prepare: a
// read-only query gets Query's verdict (the read policy) and text; any
// other statement the verdict of a block's statement, and its own text.
func (c *syntaxCache) describable(sql string) (stmtInfo, string, error) {
	e := c.lookup(sql)
	if e.err == nil && e.info.query && !e.info.readWrites && len(e.info.analysis.Writes) == 0 {
		return e.info, e.info.readText, e.readErr
	}
	info, err := c.gated(sql)
	return info, sql, err
}

func (c *syntaxCache) lookup(sql string) syntaxEntry {
	return c.entries.Get(sql, c.parse)
}

// parse is the uncached entry.
func (c *syntaxCache) parse(sql string) syntaxEntry {
	var e syntaxEntry
	e.info, e.err = parseOne(sql)
	if e.err == nil && c.gate {
		a, err := pgcheck.Analyze(sql)
		if err != nil {
			e.gateErr = &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: err.Error()}
		}
		e.info.analysis = a
		e.info.rewrite = err == nil && pgcheck.Rewrites(sql)
		e.info.keyOrder = err == nil && pgcheck.KeyOrdered(sql)
	}
	e.info.analysis.Params = e.info.params
	e.info.readText = sql
	if e.err == nil && c.gate && e.info.query {
		read, err := pgcheck.CheckRead(sql)
		if err != nil {
			e.readErr = &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: err.Error()}
		} else {
			e.info.readText, e.info.readWrites = read.Text, read.Writes
			e.info.readKeyOrder = pgcheck.HasUnorderedLimit(read.Text)
		}
	}
	if !e.info.query {
		e.readErr = e.gateErr
	}
	return e
}

// parseOne parses one statement text, after the pre-scan (package
// prescan) that keeps a text able to exhaust libpg_query's stack (a
// SIGSEGV in cgo, which no recover catches) or PostgreSQL's from every
// parser: with the gate or without it.
func parseOne(sql string) (stmtInfo, error) {
	if err := prescan.Check(sql, prescan.PostgreSQL); err != nil {
		return stmtInfo{}, &backend.Error{Class: backend.ClassInvalid, SQLState: "54000", Message: err.Error()}
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		var pe *parser.Error
		msg := err.Error()
		if errors.As(err, &pe) && pe.Cursorpos > 0 {
			msg = fmt.Sprintf("%s (at character %d)", pe.Message, pe.Cursorpos)
		}
		return stmtInfo{}, &backend.Error{Class: backend.ClassSyntax, SQLState: "42601", Message: msg}
	}
	switch n := len(tree.GetStmts()); {
	case n == 0:
		return stmtInfo{}, &backend.Error{Class: backend.ClassInvalid, Message: "empty statement: the text holds no SQL statement"}
	case n > 1:
		return stmtInfo{}, &backend.Error{Class: backend.ClassInvalid,
			Message: fmt.Sprintf("the text holds %d statements; exactly one is allowed per statement text", n)}
	}
	node := tree.GetStmts()[0].GetStmt()
	var info stmtInfo
	if info.params, err = paramCount(sql); err != nil {
		return stmtInfo{}, err
	}
	if sel := node.GetSelectStmt(); sel != nil && len(sel.GetSortClause()) > 0 {
		info.ordered = true
	}
	if sel := node.GetSelectStmt(); sel != nil && sel.GetIntoClause() == nil {
		info.query = true
	}
	info.perRow = perRowTarget(node)
	info.restart = restartTarget(node)
	info.truncate = node.GetTruncateStmt() != nil
	switch node.GetNode().(type) {
	case *pg_query.Node_SelectStmt, *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt,
		*pg_query.Node_DeleteStmt, *pg_query.Node_MergeStmt:
	case *pg_query.Node_CallStmt:
		info.call = true
	case *pg_query.Node_ConstraintsSetStmt:
		info.setConstraints = true
	default:
		info.schema = true
	}
	kind := ""
	switch {
	case node.GetTransactionStmt() != nil:
		kind = "transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT ...)"
	case node.GetVariableSetStmt() != nil:
		kind = "SET / RESET"
	case node.GetDiscardStmt() != nil:
		kind = "DISCARD"
	case node.GetPrepareStmt() != nil, node.GetExecuteStmt() != nil, node.GetDeallocateStmt() != nil:
		kind = "PREPARE / EXECUTE / DEALLOCATE"
	case node.GetDeclareCursorStmt() != nil, node.GetFetchStmt() != nil, node.GetClosePortalStmt() != nil:
		kind = "cursors (DECLARE, FETCH, MOVE, CLOSE)"
	case node.GetLoadStmt() != nil:
		kind = "LOAD"
	}
	if kind != "" {
		info.forbidden = kind + " is not allowed: relchain manages the session and transaction state"
	}
	return info, nil
}

// changesSchema reports whether a block runs relchain.after_ddl after the
// statement. With the gate, only DDL statements change the schema (the gate
// refuses DDL in routine bodies); without it, a procedure may too.
func (s stmtInfo) changesSchema(gated bool) bool {
	return s.schema || (!gated && s.call)
}

// paramCount is pgcheck.ParamCount, its parse error a *backend.Error.
func paramCount(sql string) (int, error) {
	n, err := pgcheck.ParamCount(sql)
	if err != nil {
		return 0, &backend.Error{Class: backend.ClassSyntax, SQLState: "42601", Message: err.Error()}
	}
	return n, nil
}
