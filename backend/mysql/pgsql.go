package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/postgres/pggate"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/sqlcheck"
)

// WithPostgresDialect makes the backend take PostgreSQL's SQL: every
// statement of Exec and Query is judged by PostgreSQL's gate
// (backend/postgres/pggate), translated into MariaDB's SQL by
// pgdialect.TranslateTyped on the schema of the connection that runs it,
// and its result rendered as PostgreSQL's (pgvalues.go). The connections
// count rows matched, not changed (CLIENT_FOUND_ROWS, as PostgreSQL
// counts), and sort strings by their first 4096 bytes (max_sort_length),
// as pgdialect's DESIGN.md requires. MariaDB only: the translation's
// MariaDB text is not MySQL's.
func WithPostgresDialect() Option { return func(o *options) { o.pg = true } }

// pgSessionInit is what a connection runs on top of sessionInit in the
// postgres dialect.
const pgSessionInit = "SET SESSION max_sort_length = 4096"

// withPG is init with the postgres dialect's session settings when the
// backend takes PostgreSQL's SQL.
func (b *Backend) withPG(init []string) []string {
	if !b.opts.pg {
		return init
	}
	return append(init[:len(init):len(init)], pgSessionInit)
}

// sqlDialect is Capabilities.SQLDialect: "" (MariaDB's own) or
// PostgreSQL's under WithPostgresDialect.
func (b *Backend) sqlDialect() string {
	if b.opts.pg {
		return dialect.SQLPostgres
	}
	return ""
}

// pgJudge is PostgreSQL's gate's verdict on sql (its Params counted as
// PostgreSQL counts them, so a tx's arguments are checked as on every
// engine) and the text to translate: sql, or as pggate.Rewrite fills it
// with env (the clock and random numbers of the tx).
func pgJudge(sql string, env sqlcheck.Env) (sqlcheck.Analysis, string, error) {
	an, err := pggate.Analyze(sql)
	if err != nil {
		return an, "", pgGateError(err)
	}
	if !pggate.Rewrites(sql) {
		return an, sql, nil
	}
	text, err := pggate.Rewrite(sql, env)
	if err != nil {
		return an, "", pgGateError(err)
	}
	return an, text, nil
}

// pgVerdict is the gate's verdict on committed state in the postgres
// dialect (Gate().Analyze): PostgreSQL's gate on the text alone; what
// depends on the schema surfaces at Exec, with its class.
func (b *Backend) pgVerdict(_ context.Context, sql string) (sqlcheck.Analysis, error) {
	an, _, err := pgJudge(sql, sqlcheck.Env{})
	return an, err
}

// pgGateError is PostgreSQL's gate's refusal as a *backend.Error, classed
// as the SQLite backend's postgres dialect classes it: a text PostgreSQL
// cannot parse is ClassSyntax, one that is not exactly one statement
// ClassInvalid, anything else ClassPermission.
func pgGateError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, sqlcheck.ErrUnparseable):
		return &backend.Error{Class: backend.ClassSyntax, SQLState: "42601", Message: msg}
	case strings.HasPrefix(msg, "empty statement"), strings.Contains(msg, "statements; exactly one is allowed"):
		return &backend.Error{Class: backend.ClassInvalid, SQLState: "42601", Message: msg}
	}
	return &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: msg}
}

// translateOn translates text on the schema q sees (the block's own
// connection: DDL earlier in the block is seen), its parameters typed by
// types. A failure to read the schema is the node's, a plain error, never
// the statement's verdict.
func translateOn(ctx context.Context, q pgdialect.Querier, text string, types []pgdialect.Type) (*pgdialect.Translation, error) {
	cat := &pgdialect.SchemaCatalog{Ctx: ctx, Q: q}
	tr, err := pgdialect.TranslateTyped(text, cat, types)
	if cat.Err != nil {
		return nil, fmt.Errorf("mysql: postgres dialect: read the schema: %w", cat.Err)
	}
	if err != nil {
		return nil, translationError(err)
	}
	return tr, nil
}

// translationError is a translation's refusal (*pgdialect.Error) as a
// *backend.Error of the class of its SQLSTATE (0A000:
// ClassNotImplemented), as the SQLite backend's postgres dialect gives it.
func translationError(err error) error {
	var te *pgdialect.Error
	if errors.As(err, &te) {
		return &backend.Error{Class: backend.ClassOfSQLState(te.Code), SQLState: te.Code, Message: te.Message}
	}
	return fmt.Errorf("mysql: postgres dialect: translate: %w", err)
}

// argTypes are the PostgreSQL types of a statement's arguments as
// PostgreSQL's backend sends them (int64 is int8, a string or nil is left
// to the placeholder's context), as the SQLite backend types them.
func argTypes(args []any) []pgdialect.Type {
	if len(args) == 0 {
		return nil
	}
	out := make([]pgdialect.Type, len(args))
	for i, a := range args {
		name := ""
		switch a.(type) {
		case int64, int, int32:
			name = "int8"
		case float64:
			name = "float8"
		case bool:
			name = "bool"
		case []byte:
			name = "bytea"
		default:
			continue
		}
		out[i] = pgdialect.Type{Name: name, Typmod: -1}
	}
	return out
}

var errPGReadOnly = &backend.Error{Class: backend.ClassPermission, SQLState: "25006",
	Message: "the query path is read-only: submit writes as transactions (relchain exec)"}

// errPGDDLStatements refuses a DDL translation of more than one MariaDB
// statement: the DDL path (execDDL) runs and recovers one statement.
var errPGDDLStatements = &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
	Message: "this DDL statement translates into several MariaDB statements, which the MySQL backend cannot run as one DDL statement"}

// execPostgres is Exec in the postgres dialect: PostgreSQL's gate, the
// translation on the block's connection, the translated statements in
// order inside the tx's savepoint (DDL through execDDL).
func (k *session) execPostgres(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.check(); err != nil {
		return nil, err
	}
	an, text, err := pgJudge(sql, k.env)
	if err != nil {
		return nil, err
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	if err := k.untag(ctx); err != nil {
		return nil, err
	}
	if k.inTx {
		k.txStmts++
	}
	tr, err := k.b.translate(ctx, k.conn, text, argTypes(args))
	if err != nil {
		if backend.AsError(err) == nil {
			return nil, k.fault("exec", err)
		}
		return nil, err
	}
	if k.inTx && (k.txDDL || (tr.DDL && k.txStmts > 1)) {
		return nil, ErrDDLNotAlone
	}
	if tr.DDL {
		if err := k.refuseDDL(); err != nil {
			return nil, err
		}
		if len(tr.Statements) != 1 {
			return nil, errPGDDLStatements
		}
		bound, err := bindArgs(tr, 0, args)
		if err != nil {
			return nil, err
		}
		// The schema changes: translations made on it are stale (bumped
		// before too, so that one made while the DDL runs is not kept).
		k.b.pgTr.bump()
		defer k.b.pgTr.bump()
		return k.blk.execDDL(ctx, stmtInfo{text: tr.Statements[0], ddl: true}, bound)
	}
	rows, err := runTranslation(ctx, k.conn, tr, args, len(an.Writes) > 0, limits{})
	if err != nil {
		return nil, k.stmtError(err)
	}
	if len(an.Writes) > 0 {
		k.dirty = true
	}
	return rows, nil
}

// untag clears the change records' tx tag for a statement outside every
// savepoint (never so in the executor): the records it writes belong to
// no tx.
func (k *session) untag(ctx context.Context) error {
	if k.inTx || !k.tagged {
		return nil
	}
	if _, err := k.conn.ExecContext(ctx, "SET "+txVar+" = NULL"); err != nil {
		return k.fault("exec", err)
	}
	k.tagged, k.txVars = false, ""
	return nil
}

// queryPostgres is Query in the postgres dialect: a read-only statement
// of PostgreSQL's SQL, translated on the snapshot's connection.
func (b *Backend) queryPostgres(ctx context.Context, sql string, args []any) (*backend.Rows, int64, error) {
	if err := checkArgs(args); err != nil {
		return nil, 0, err
	}
	an, text, err := pgJudge(sql, sqlcheck.Env{})
	if err != nil {
		return nil, 0, err
	}
	if an.DDL || len(an.Writes) > 0 {
		return nil, 0, errPGReadOnly
	}
	conn, height, connID, err := b.readSnapshot(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("mysql: query: %w", err)
	}
	defer b.endSnapshot(conn)
	driverCtx, cancel, returned := b.readOnServer(ctx, connID)
	defer cancel()
	tr, err := b.translate(driverCtx, conn, text, argTypes(args))
	var rows *backend.Rows
	switch {
	case err != nil:
	case tr.DDL:
		err = errPGReadOnly
	default:
		rows, err = runTranslation(driverCtx, conn, tr, args, false,
			limits{rows: b.opts.maxRows, bytes: b.opts.maxBytes, stop: cancel})
	}
	returned()
	if err != nil {
		if be := backend.AsError(err); be != nil {
			return nil, 0, be
		}
		if be := asBackendError(err); be != nil && ctx.Err() == nil {
			return nil, 0, be
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, 0, fmt.Errorf("mysql: query: %w (%w)", cerr, err)
		}
		return nil, 0, fmt.Errorf("mysql: query: %w", err)
	}
	pgTypes(rows, tr.Columns)
	return rows, height, nil
}

// describePostgres is Describe in the postgres dialect: the translation
// of sql on committed state (a read snapshot, nothing run) gives the
// placeholders' and the result columns' PostgreSQL types.
func (b *Backend) describePostgres(ctx context.Context, sql string) (*backend.Description, error) {
	_, text, err := pgJudge(sql, sqlcheck.Env{})
	if err != nil {
		return nil, err
	}
	conn, height, err := b.snapshot(ctx, b.readers)
	if err != nil {
		return nil, fmt.Errorf("mysql: describe: %w", err)
	}
	defer b.endSnapshot(conn)
	tr, err := b.translate(ctx, conn, text, nil)
	if err != nil {
		return nil, err
	}
	d := &backend.Description{Height: height, Params: make([]string, len(tr.Params))}
	for i, p := range tr.Params {
		d.Params[i] = p.Name
	}
	for _, c := range tr.Columns {
		ct := backend.ColumnType{Name: c.Name, Type: c.Type.Name}
		if c.Type.Typmod >= 0 {
			tm := c.Type.Typmod
			ct.Typmod = &tm
		}
		d.Columns = append(d.Columns, ct)
	}
	return d, nil
}
