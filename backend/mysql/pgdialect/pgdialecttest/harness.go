package pgdialecttest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	relmysql "github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// Outcome is a statement's result on one engine.
type Outcome struct {
	Err          string // SQLSTATE class, "" on success
	Msg          string
	Cols         []string   // name:type
	Rows         []string   // cells joined by |
	Cells        [][]string // the rows' cells, "NULL" for NULL
	RowsAffected int64
}

func (o Outcome) String() string {
	if o.Err != "" {
		return "error class " + o.Err + ": " + o.Msg
	}
	return fmt.Sprintf("cols %v rows %d %q affected %d", o.Cols, len(o.Rows), o.Rows, o.RowsAffected)
}

// ParamTypes are the types PostgreSQL's backend gives Go arguments:
// int64 is int8, a string or nil is left to the context.
func ParamTypes(args []any) []pgdialect.Type {
	out := make([]pgdialect.Type, len(args))
	for i, a := range args {
		if _, ok := a.(int64); ok {
			out[i] = pgdialect.Type{Name: "int8", Typmod: -1}
		}
	}
	return out
}

// finish joins each row's cells, sorting rows whose order the statement
// does not fix.
func (o *Outcome) finish(ordered bool) {
	if !ordered {
		sort.Slice(o.Cells, func(i, j int) bool {
			return strings.Join(o.Cells[i], "|") < strings.Join(o.Cells[j], "|")
		})
	}
	o.Rows = nil
	for _, c := range o.Cells {
		o.Rows = append(o.Rows, strings.Join(c, "|"))
	}
}

// class is an SQLSTATE's class.
func class(state string) string {
	if len(state) < 2 {
		return "??"
	}
	return state[:2]
}

// OpenPG opens a fresh PostgreSQL database (collation C), in UTC.
func OpenPG(ctx context.Context, t testing.TB) *pgx.Conn {
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatalf("connect postgres: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatalf("postgres time zone: %v", err)
	}
	return conn
}

// OpenMaria opens a fresh MariaDB database on one connection with the
// backend's session settings, CLIENT_FOUND_ROWS and server-side prepared
// statements.
func OpenMaria(ctx context.Context, t testing.TB) *sql.Conn {
	cfg, err := mysql.ParseDSN(mysqltest.AdminDSN(t))
	if err != nil {
		t.Fatalf("mariadb dsn: %v", err)
	}
	cfg.ClientFoundRows = true
	cfg.InterpolateParams = false
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("open mariadb: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("connect mariadb: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	for _, s := range []string{"SET NAMES utf8mb4", "SET sql_mode = '" + relmysql.SQLMode + "'", "SET time_zone = '+00:00'", "SET div_precision_increment = 4",
		"SET max_sort_length = 4096"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("mariadb %s: %v", s, err)
		}
	}
	return conn
}

// RunPG runs a statement on PostgreSQL with int arguments as int8 and
// the others untyped, in text form both ways.
func RunPG(ctx context.Context, conn *pgx.Conn, sqlText string, args []any, ordered bool) Outcome {
	vals := make([][]byte, len(args))
	oids := make([]uint32, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			vals[i], oids[i] = []byte(strconv.FormatInt(v, 10)), 20
		case string:
			vals[i] = []byte(v)
		}
	}
	sd, err := conn.PgConn().Prepare(ctx, "", sqlText, oids)
	if err != nil {
		return pgFailure(err)
	}
	res := conn.PgConn().ExecPrepared(ctx, "", vals, nil, nil).Read()
	res.FieldDescriptions = sd.Fields
	if res.Err != nil {
		return pgFailure(res.Err)
	}
	var o Outcome
	for _, fd := range res.FieldDescriptions {

		o.Cols = append(o.Cols, fd.Name+":"+oidName[fd.DataTypeOID])
	}
	for _, r := range res.Rows {
		var cells []string
		for i, c := range r {
			cells = append(cells, pgCell(c, oidName[res.FieldDescriptions[i].DataTypeOID]))
		}
		o.Cells = append(o.Cells, cells)
	}
	o.finish(ordered)
	if len(res.FieldDescriptions) == 0 {
		o.RowsAffected = res.CommandTag.RowsAffected()
	}
	return o
}

// pgFailure is a PostgreSQL error's Outcome.
func pgFailure(err error) Outcome {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return Outcome{Err: class(pe.Code), Msg: pe.Message}
	}
	return Outcome{Err: "??", Msg: err.Error()}
}

var oidName = map[uint32]string{21: "int2", 23: "int4", 20: "int8", 1700: "numeric", 701: "float8", 25: "text",
	1043: "varchar", 16: "bool", 17: "bytea", 1082: "date", 1114: "timestamp", 1184: "timestamptz", 705: "unknown"}

// pgCell is a PostgreSQL text value, floats normalized.
func pgCell(c []byte, typ string) string {
	if c == nil {
		return "NULL"
	}
	if typ == "float8" {
		if f, err := strconv.ParseFloat(string(c), 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return string(c)
}

// RunMaria runs a translation on MariaDB, failing on a warning where the
// translation says so.
func RunMaria(ctx context.Context, conn *sql.Conn, tr *pgdialect.Translation, args []any) Outcome {
	var o Outcome
	for i, s := range tr.Statements {
		bound := make([]any, len(tr.Args[i]))
		for k, a := range tr.Args[i] {
			if a >= len(args) { // PostgreSQL's protocol error 08P01
				return Outcome{Err: "08", Msg: fmt.Sprintf("no argument for $%d", a+1)}
			}
			bound[k] = args[a]
		}
		last := i == len(tr.Statements)-1
		var err error
		if last && tr.Columns != nil {
			o.Cells, err = queryMaria(ctx, conn, s, bound, tr.Columns)
		} else {
			var r sql.Result
			if r, err = conn.ExecContext(ctx, s, bound...); err == nil {
				o.RowsAffected, err = r.RowsAffected()
			}
		}
		if err == nil && tr.CheckWarnings {
			err = warnings(ctx, conn)
		}
		if err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) {
				return Outcome{Err: class(string(me.SQLState[:])), Msg: me.Message + " [" + s + "]"}
			}
			return Outcome{Err: "??", Msg: err.Error()}
		}
	}
	if tr.Columns != nil {
		o.RowsAffected = 0
		for _, c := range tr.Columns {
			o.Cols = append(o.Cols, c.Name+":"+c.Type.Name)
		}
	}
	o.finish(tr.Ordered)
	return o
}

// warnings fails with PostgreSQL's SQLSTATE for a warning left.
func warnings(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return fmt.Errorf("show warnings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return fmt.Errorf("show warnings: %w", err)
		}
		if level == "Note" {
			continue
		}
		state := pgdialect.WarningCode(code)
		if state == "" {
			state = "XX000"
		}
		var b [5]byte
		copy(b[:], state)
		return &mysql.MySQLError{Number: uint16(code), SQLState: b, Message: "warning: " + msg}
	}
	return rows.Err()
}

// queryMaria reads rows in PostgreSQL's text form by their types.
func queryMaria(ctx context.Context, conn *sql.Conn, s string, args []any, cols []pgdialect.ResultColumn) ([][]string, error) {
	rows, err := conn.QueryContext(ctx, s, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		raw := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var cells []string
		for i, c := range raw {
			cells = append(cells, mariaCell(c, cols[i].Type.Name))
		}
		out = append(out, cells)
	}
	return out, rows.Err()
}

// mariaCell renders a MariaDB value as PostgreSQL's output of its type.
func mariaCell(c []byte, typ string) string {
	if c == nil {
		return "NULL"
	}
	s := string(c)
	switch typ {
	case "bool":
		if s == "0" {
			return "f"
		}
		return "t"
	case "float8":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	case "bytea":
		return fmt.Sprintf(`\x%x`, c)
	case "timestamp", "timestamptz":
		if i := strings.IndexByte(s, '.'); i >= 0 {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		if typ == "timestamptz" {
			s += "+00"
		}
	}
	return s
}

// Run translates a statement on MariaDB's schema, runs it on PostgreSQL
// as it is and on MariaDB translated, and returns both outcomes (the
// MariaDB one is the translation's error when it fails) and the
// translation error, if any.
func Run(ctx context.Context, pg *pgx.Conn, my *sql.Conn, sqlText string, args []any) (want, got Outcome, terr error) {
	cat := &pgdialect.SchemaCatalog{Ctx: ctx, Q: my}
	tr, terr := pgdialect.TranslateTyped(sqlText, cat, ParamTypes(args))
	if cat.Err != nil {
		return want, got, fmt.Errorf("catalog: %w", cat.Err)
	}
	var perr *pgdialect.Error
	if terr != nil && (!errors.As(terr, &perr) || perr.Code == "0A000") {
		return want, got, terr
	}
	want = RunPG(ctx, pg, sqlText, args, tr != nil && tr.Ordered)
	if terr != nil {
		return want, Outcome{Err: class(perr.Code), Msg: perr.Message}, nil
	}
	return want, RunMaria(ctx, my, tr, args), nil
}

// Same reports whether two outcomes agree: the same error class, or the
// same columns (name and PostgreSQL type), rows and rows affected.
func Same(want, got Outcome) bool {
	if want.Err != "" || got.Err != "" {
		return want.Err == got.Err
	}
	return fmt.Sprint(want.Cols) == fmt.Sprint(got.Cols) && fmt.Sprint(want.Rows) == fmt.Sprint(got.Rows) && want.RowsAffected == got.RowsAffected
}
