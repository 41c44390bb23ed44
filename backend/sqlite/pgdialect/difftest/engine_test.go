package difftest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// engine runs one statement of a case and reports its outcome. Both
// engines of a case start empty; a statement either runs whole or not at
// all (PostgreSQL: autocommit; SQLite: a savepoint), as in a block.
type engine interface {
	run(st translated) outcome
	close()
}

// translated is a statement as the gate rewrote it, with its arguments
// and its translation (or the translation's error).
type translated struct {
	sql string
	// orig is the statement before the gate's rewrite: PostgreSQL names
	// the result columns of orig (see pgEngine.columnNames).
	orig string
	ddl  bool // the gate's analysis: the statement changes the schema
	args []any
	tr   *pgdialect.Translation
	err  error // Translate's error other than a refusal
}

// pinnedSettings are the session settings the PostgreSQL backend pins on
// every connection (backend/postgres sessionSettings, DESIGN.md "Session
// settings") that can change a result.
var pinnedSettings = map[string]string{
	"TimeZone": "UTC", "DateStyle": "ISO, YMD", "IntervalStyle": "postgres",
	"extra_float_digits": "3", "max_parallel_workers_per_gather": "0",
	"synchronize_seqscans": "off", "bytea_output": "hex", "client_encoding": "UTF8",
	"standard_conforming_strings": "on", "transform_null_equals": "off",
	"lc_monetary": "C", "lc_numeric": "C", "lc_time": "C",
	"default_text_search_config": "pg_catalog.simple", "timezone_abbreviations": "Default",
	"statement_timeout": "0", "lock_timeout": "0",
}

// pgEngine runs statements on PostgreSQL, in schema of its own.
type pgEngine struct {
	conn   *pgx.Conn
	schema string
	types  map[uint32]string // pg_type.typname by OID
}

func connectPG(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DSN: %w", err)
	}
	for k, v := range pinnedSettings {
		cfg.RuntimeParams[k] = v
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.StatementCacheCapacity = 0
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	return conn, nil
}

// newPGEngine creates schema on conn and makes it the only one searched.
func newPGEngine(conn *pgx.Conn, schema string, types map[uint32]string) (*pgEngine, error) {
	q := pgx.Identifier{schema}.Sanitize()
	sql := "DROP SCHEMA IF EXISTS " + q + " CASCADE; CREATE SCHEMA " + q + "; SET search_path = " + q
	if _, err := conn.PgConn().Exec(context.Background(), sql).ReadAll(); err != nil {
		return nil, fmt.Errorf("create schema %s: %w", schema, err)
	}
	return &pgEngine{conn: conn, schema: schema, types: types}, nil
}

func (e *pgEngine) close() {
	sql := "DROP SCHEMA IF EXISTS " + pgx.Identifier{e.schema}.Sanitize() + " CASCADE; SET search_path = public; " +
		"SELECT relchain.sync_sequences()"
	_, _ = e.conn.PgConn().Exec(context.Background(), sql).ReadAll()
}

// run executes st as a block executes a statement on a relchain
// PostgreSQL node, as far as results go: in a transaction of its own with
// relchain.tx set, relchain.sync_sequences after a DDL statement that
// succeeded (the part of relchain.after_ddl that changes results: it moves
// a serial column's default to relchain.nextval and registers the
// sequence; the rest attaches change capture), and
// relchain.flush_sequences before the commit, so sequences behave
// transactionally as on a node (a failed INSERT uses up no value).
func (e *pgEngine) run(st translated) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.conn.PgConn().Exec(ctx, "BEGIN; SET LOCAL relchain.tx = '0'").ReadAll(); err != nil {
		return errorOutcome(fmt.Errorf("begin: %w", err))
	}
	out := e.runStatement(ctx, st)
	finish := "ROLLBACK"
	if !out.failed() {
		finish = "SELECT relchain.flush_sequences(); COMMIT"
		if st.ddl {
			finish = "SELECT relchain.sync_sequences(); " + finish
		}
	}
	if _, err := e.conn.PgConn().Exec(ctx, finish).ReadAll(); err != nil {
		_, _ = e.conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll()
		return errorOutcome(fmt.Errorf("after the statement (%s): %w", finish, err))
	}
	return out
}

// runStatement runs st in the open transaction.
func (e *pgEngine) runStatement(ctx context.Context, st translated) outcome {
	values, oids, formats := encodeArgs(st.args)
	rr := e.conn.PgConn().ExecParams(ctx, st.sql, values, oids, formats, nil)
	var out outcome
	fds := rr.FieldDescriptions()
	for rr.NextRow() {
		row := make([]any, len(fds))
		for i, v := range rr.Values() {
			row[i] = pgValue(fds[i].DataTypeOID, v)
		}
		out.Rows = append(out.Rows, row)
	}
	tag, err := rr.Close()
	if err != nil {
		return errorOutcome(err)
	}
	var ran []uint32 // the portal's type OIDs (fds is the connection's buffer)
	for _, fd := range fds {
		out.Columns = append(out.Columns, fd.Name)
		ran = append(ran, fd.DataTypeOID)
	}
	described, err := e.describe(ctx, st.sql, oids, ran)
	if err != nil {
		return errorOutcome(err)
	}
	for _, fd := range described {
		out.Types = append(out.Types, typeName(e.typeName(ctx, fd.DataTypeOID), fd.TypeModifier))
	}
	if names := e.columnNames(ctx, st); len(names) == len(out.Columns) {
		out.Columns = names
	}
	if tag.Insert() || tag.Update() || tag.Delete() || strings.HasPrefix(tag.String(), "MERGE ") {
		out.Affected = tag.RowsAffected()
	}
	return out
}

// describe is PostgreSQL's Describe of the statement sql (Parse with the
// arguments' types, then Describe Statement), which ran with result
// columns of the type OIDs ran: the result types the suite compares with Translation.Columns.
//
// PostgreSQL describes one statement two ways. Describe Statement (and
// pgx's Prepare, libpq's PQdescribePrepared, JDBC's metadata before
// execution) gives the types of parse analysis; the RowDescription of a
// portal (simple query, or Describe Portal after Bind, as ExecParams
// sends) gives the planned query's, whose constant folding can narrow a
// typmod: CASE WHEN true THEN c ELSE 'x' END is varchar (typmod -1) to
// the first and c's varchar(5) to the second. The translator gives one
// description for both (pgdialect/DESIGN.md, "Known differences"), parse
// analysis's, so the suite compares it with Describe Statement's: the
// types a client reads when it describes the statement. Type OIDs are the
// same both ways; only typmods can differ.
func (e *pgEngine) describe(ctx context.Context, sql string, oids, ran []uint32) ([]pgconn.FieldDescription, error) {
	if len(ran) == 0 {
		return nil, nil
	}
	sd, err := e.conn.PgConn().Prepare(ctx, "", sql, oids)
	if err != nil {
		return nil, fmt.Errorf("describe the statement that ran: %w", err)
	}
	if len(sd.Fields) != len(ran) {
		return nil, fmt.Errorf("describe the statement that ran: %d columns, %d when it ran", len(sd.Fields), len(ran))
	}
	for i, fd := range sd.Fields {
		if fd.DataTypeOID != ran[i] {
			return nil, fmt.Errorf("describe the statement that ran: column %d has type OID %d, %d when it ran", i+1, fd.DataTypeOID, ran[i])
		}
	}
	return sd.Fields, nil
}

// columnNames are the result column names PostgreSQL gives the
// statement as written, when the gate rewrote it: the gate's rewrites
// (relchain.clock_guard(x)::date for x::date) change the names PostgreSQL
// derives ("clock_guard" for "x"), a difference of relchain's PostgreSQL
// gate, not of the dialect. It describes the original text without
// running it; nil when it cannot.
func (e *pgEngine) columnNames(ctx context.Context, st translated) []string {
	if st.orig == "" || st.orig == st.sql {
		return nil
	}
	sd, err := e.conn.PgConn().Prepare(ctx, "", st.orig, nil)
	if err != nil {
		return nil
	}
	names := make([]string, len(sd.Fields))
	for i, f := range sd.Fields {
		names[i] = f.Name
	}
	return names
}

// typeName is pg_type.typname of oid.
func (e *pgEngine) typeName(ctx context.Context, oid uint32) string {
	if n, ok := e.types[oid]; ok {
		return n
	}
	var n string
	if err := e.conn.QueryRow(ctx, "SELECT typname::text FROM pg_catalog.pg_type WHERE oid = $1", oid).Scan(&n); err != nil {
		return fmt.Sprintf("oid%d", oid)
	}
	e.types[oid] = n
	return n
}

func errorOutcome(err error) outcome {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return outcome{Code: pe.Code, Message: pe.Message}
	}
	return outcome{Code: "client", Message: err.Error()}
}

// OIDs of the types whose text the PostgreSQL backend converts.
const (
	oidBool    = 16
	oidBytea   = 17
	oidInt8    = 20
	oidInt2    = 21
	oidInt4    = 23
	oidFloat4  = 700
	oidFloat8  = 701
	oidUnknown = 705
)

// pgValue converts one text-format value as the PostgreSQL backend does
// (backend/postgres convertValue): integers, floats, bool and bytea to Go
// values, every other type as the server's text.
func pgValue(oid uint32, v []byte) any {
	if v == nil {
		return nil
	}
	switch oid {
	case oidInt2, oidInt4, oidInt8:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err == nil {
			return n
		}
	case oidFloat4, oidFloat8:
		f, err := strconv.ParseFloat(string(v), 64)
		if err == nil {
			return f
		}
	case oidBool:
		return len(v) == 1 && v[0] == 't'
	case oidBytea:
		if b, err := decodeHex(string(v)); err == nil {
			return b
		}
	}
	return string(v)
}

func decodeHex(s string) ([]byte, error) {
	if !strings.HasPrefix(s, `\x`) {
		return nil, fmt.Errorf("bytea %q: not hex", s)
	}
	out := make([]byte, (len(s)-2)/2)
	for i := range out {
		n, err := strconv.ParseUint(s[2+2*i:4+2*i], 16, 8)
		if err != nil {
			return nil, fmt.Errorf("bytea %q: %w", s, err)
		}
		out[i] = byte(n)
	}
	return out, nil
}

// encodeArgs sends arguments as the PostgreSQL backend does
// (backend/postgres encodeArgs): text with the type a literal would get,
// strings and NULL as unknown, bytea binary.
func encodeArgs(args []any) (values [][]byte, oids []uint32, formats []int16) {
	if len(args) == 0 {
		return nil, nil, nil
	}
	values, oids, formats = make([][]byte, len(args)), make([]uint32, len(args)), make([]int16, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			oids[i] = oidUnknown
		case int64:
			values[i], oids[i] = strconv.AppendInt(nil, v, 10), oidInt8
		case float64:
			values[i], oids[i] = formatFloat(v), oidFloat8
		case bool:
			values[i], oids[i] = []byte(map[bool]string{true: "t", false: "f"}[v]), oidBool
		case string:
			values[i], oids[i] = []byte(v), oidUnknown
		case []byte:
			values[i], oids[i], formats[i] = append([]byte{}, v...), oidBytea, 1
		}
	}
	return values, oids, formats
}

func formatFloat(f float64) []byte {
	switch {
	case math.IsNaN(f):
		return []byte("NaN")
	case math.IsInf(f, 1):
		return []byte("Infinity")
	case math.IsInf(f, -1):
		return []byte("-Infinity")
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// argTypes types a statement's parameters by its arguments' Go types as
// the SQLite backend does (backend/sqlite argTypes) and as the PostgreSQL
// backend sends them (encodeArgs): int64 as int8, float64 as float8,
// bool, []byte as bytea; a string or NULL is left to the context.
func argTypes(args []any) []pgdialect.Type {
	if len(args) == 0 {
		return nil
	}
	out := make([]pgdialect.Type, len(args))
	for i, a := range args {
		name := map[uint32]string{oidInt8: "int8", oidFloat8: "float8", oidBool: "bool", oidBytea: "bytea"}[argOID(a)]
		if name != "" {
			out[i] = pgdialect.Type{Name: name, Typmod: -1}
		}
	}
	return out
}

// argOID is the type encodeArgs sends a with.
func argOID(a any) uint32 {
	_, oids, _ := encodeArgs([]any{a})
	return oids[0]
}

// liteEngine runs translations on an in-memory SQLite connection with
// the dialect's runtime registered.
type liteEngine struct {
	conn *sqlite3.Conn
	cat  pgdialect.Catalog
}

func newLiteEngine() (*liteEngine, error) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, fmt.Errorf("open SQLite: %w", err)
	}
	if err := pgruntime.Register(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("register the runtime: %w", err)
	}
	return &liteEngine{conn: c, cat: pgruntime.NewCatalog(c)}, nil
}

func (e *liteEngine) close() { e.conn.Close() }

// run executes a translation's statements in one savepoint: the last
// one's rows and rows affected are the result; an error rolls all back.
func (e *liteEngine) run(st translated) outcome {
	if st.err != nil {
		return outcome{Code: liteSQLState(st.err), Message: st.err.Error()}
	}
	args, err := paramValues(st.tr, st.args)
	if err != nil {
		return outcome{Code: liteSQLState(err), Message: err.Error()}
	}
	st.args = args
	if err := e.conn.Exec("SAVEPOINT difftest"); err != nil {
		return outcome{Code: liteSQLState(err), Message: err.Error()}
	}
	out, err := e.runStatements(st)
	if err == nil {
		err = e.deferredViolation()
	}
	if err != nil {
		_ = e.conn.Exec("ROLLBACK TO difftest")
		out = outcome{Code: liteSQLState(err), Message: err.Error()}
	}
	if err := e.conn.Exec("RELEASE difftest"); err != nil && !out.failed() {
		return outcome{Code: liteSQLState(err), Message: err.Error()}
	}
	return out
}

// deferredViolation is the end of the statement's transaction as the
// backend ends a tx (backend/sqlite deferfk.go): 23503 while SQLite counts
// a violated DEFERRABLE INITIALLY DEFERRED foreign key.
func (e *liteEngine) deferredViolation() error {
	n, _, err := e.conn.Status(sqlite3.DBSTATUS_DEFERRED_FKS, false)
	if err != nil {
		return err
	}
	if n > 0 {
		return &pgdialect.Error{Code: "23503", Message: "a deferred foreign key is violated at the end of the transaction"}
	}
	return nil
}

func (e *liteEngine) runStatements(st translated) (outcome, error) {
	var out outcome
	for i, sql := range st.tr.Statements {
		last := i == len(st.tr.Statements)-1
		o, err := e.runOne(sql, st.args, st.tr, last)
		if err != nil {
			return outcome{}, fmt.Errorf("statement %d of %d (%s): %w", i+1, len(st.tr.Statements), sql, err)
		}
		out = o
	}
	for _, c := range st.tr.Columns {
		out.Columns = append(out.Columns, c.Name)
		out.Types = append(out.Types, typeName(c.Type.Name, c.Type.Typmod))
	}
	return out, nil
}

// runOne runs one SQLite statement; when last, it collects its rows
// (converted with the translation's column types) and rows affected.
func (e *liteEngine) runOne(sql string, args []any, tr *pgdialect.Translation, last bool) (outcome, error) {
	stmt, tail, err := e.conn.Prepare(sql)
	if err != nil {
		return outcome{}, err
	}
	defer stmt.Close()
	if strings.TrimSpace(tail) != "" {
		return outcome{}, fmt.Errorf("translation left text after the statement: %q", tail)
	}
	if err := bindArgs(stmt, args); err != nil {
		return outcome{}, err
	}
	before := e.conn.TotalChanges()
	var out outcome
	for stmt.Step() {
		if last {
			row, err := liteRow(stmt, tr.Columns)
			if err != nil {
				return outcome{}, err
			}
			out.Rows = append(out.Rows, row)
		}
	}
	if err := stmt.Err(); err != nil {
		return outcome{}, err
	}
	if e.conn.TotalChanges() != before && !tr.DDL {
		out.Affected = e.conn.Changes()
	}
	return out, nil
}

// paramValues converts arguments with pgruntime.Param to the values the
// translation binds, as a node does: by the placeholders' PostgreSQL
// types.
func paramValues(tr *pgdialect.Translation, args []any) ([]any, error) {
	if len(args) != len(tr.Params) {
		return nil, fmt.Errorf("%d arguments for %d parameters", len(args), len(tr.Params))
	}
	out := make([]any, len(args))
	for i, a := range args {
		v, err := pgruntime.Param(tr.Params[i], a)
		if err != nil {
			return nil, fmt.Errorf("argument $%d (%s): %w", i+1, tr.Params[i].Name, err)
		}
		out[i] = v
	}
	return out, nil
}

// bindArgs binds relchain's argument values; ?NNN and $NNN parameters
// take argument NNN, others their position.
func bindArgs(stmt *sqlite3.Stmt, args []any) error {
	for p := 1; p <= stmt.BindCount(); p++ {
		n := p
		if name := stmt.BindName(p); len(name) > 1 {
			if k, err := strconv.Atoi(name[1:]); err == nil {
				n = k
			}
		}
		if n > len(args) {
			return fmt.Errorf("parameter %d of %d: no argument", n, len(args))
		}
		var err error
		switch v := args[n-1].(type) {
		case nil:
			err = stmt.BindNull(p)
		case int64:
			err = stmt.BindInt64(p, v)
		case float64:
			err = stmt.BindFloat(p, v)
		case bool:
			err = stmt.BindBool(p, v)
		case string:
			err = stmt.BindText(p, v)
		case []byte:
			err = stmt.BindBlob(p, v)
		}
		if err != nil {
			return fmt.Errorf("bind parameter %d: %w", p, err)
		}
	}
	return nil
}

// liteRow reads the current row and converts it with pgruntime.Value.
func liteRow(stmt *sqlite3.Stmt, cols []pgdialect.ResultColumn) ([]any, error) {
	row := make([]any, stmt.ColumnCount())
	for i := range row {
		var v any
		switch stmt.ColumnType(i) {
		case sqlite3.INTEGER:
			v = stmt.ColumnInt64(i)
		case sqlite3.FLOAT:
			v = stmt.ColumnFloat(i)
		case sqlite3.TEXT:
			v = stmt.ColumnText(i)
		case sqlite3.BLOB:
			v = stmt.ColumnBlob(i, []byte{})
		}
		if i < len(cols) {
			c, err := pgruntime.Value(cols[i].Type, v)
			if err != nil {
				return nil, fmt.Errorf("column %d (%s): %w", i+1, cols[i].Type.Name, err)
			}
			v = c
		}
		row[i] = v
	}
	return row, nil
}
