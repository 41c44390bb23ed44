package pgdialect_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	relmysql "github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// step is one statement of a case file and what the file expects of it:
// by default both engines succeed with the same result; "error": both
// fail with the same SQLSTATE class; "refused": the translation refuses
// it (0A000) and it is not run.
type step struct {
	line   int
	sql    string
	args   []any // int64, string or nil
	expect string
}

// readCase reads a case file: statements end with ';' at the end of a
// line; '-- args: 1 'x' null' and '-- expect: error|refused' apply to the
// next statement; '#' lines are comments.
func readCase(t *testing.T, path string) []step {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var steps []step
	var cur step
	var text []string
	for i, line := range strings.Split(string(b), "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case trim == "" && len(text) == 0, strings.HasPrefix(trim, "#"):
		case strings.HasPrefix(trim, "-- args:"):
			cur.args = parseArgs(t, path, i+1, strings.TrimPrefix(trim, "-- args:"))
		case strings.HasPrefix(trim, "-- expect:"):
			cur.expect = strings.TrimSpace(strings.TrimPrefix(trim, "-- expect:"))
		default:
			if len(text) == 0 {
				cur.line = i + 1
			}
			text = append(text, line)
			if strings.HasSuffix(trim, ";") {
				cur.sql = strings.TrimSuffix(strings.TrimSpace(strings.Join(text, "\n")), ";")
				steps = append(steps, cur)
				cur, text = step{}, nil
			}
		}
	}
	if len(text) > 0 {
		t.Fatalf("%s: a statement without its closing ';'", path)
	}
	return steps
}

// parseArgs reads 1 'text' null.
func parseArgs(t *testing.T, path string, line int, s string) []any {
	var out []any
	s = strings.TrimSpace(s)
	for s != "" {
		switch {
		case s[0] == '\'':
			j := 1
			var v strings.Builder
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						v.WriteByte('\'')
						j++
						continue
					}
					break
				}
				v.WriteByte(s[j])
			}
			out = append(out, v.String())
			s = s[min(j+1, len(s)):]
		default:
			tok, rest, _ := strings.Cut(s, " ")
			if tok == "null" {
				out = append(out, nil)
			} else {
				n, err := strconv.ParseInt(tok, 10, 64)
				if err != nil {
					t.Fatalf("%s:%d: argument %q", path, line, tok)
				}
				out = append(out, n)
			}
			s = rest
		}
		s = strings.TrimSpace(s)
	}
	return out
}

// outcome is a statement's result on one engine.
type outcome struct {
	err     string // SQLSTATE class, "" on success
	msg     string
	cols    []string   // name:type
	rows    []string   // cells joined by |
	cells   [][]string // the rows' cells, "NULL" for NULL
	rowsAff int64
}

func (o outcome) String() string {
	if o.err != "" {
		return "error class " + o.err + ": " + o.msg
	}
	return fmt.Sprintf("cols %v rows %d %q affected %d", o.cols, len(o.rows), o.rows, o.rowsAff)
}

// TestDifferential runs every case file on a real PostgreSQL and a real
// MariaDB (the statement translated) and compares the outcomes.
func TestDifferential(t *testing.T) {
	files, err := filepath.Glob("testdata/*.case")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".case"), func(t *testing.T) {
			runCase(t, f)
		})
	}
}

func runCase(t *testing.T, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pg := openPG(ctx, t)
	my := openMaria(ctx, t)
	steps := readCase(t, path)
	for _, st := range steps {
		where := fmt.Sprintf("%s:%d %.80q", path, st.line, st.sql)
		cat := &pgdialect.SchemaCatalog{Ctx: ctx, Q: my}
		tr, terr := pgdialect.TranslateTyped(st.sql, cat, paramTypes(st.args))
		if cat.Err != nil {
			t.Fatalf("%s: catalog: %v", where, cat.Err)
		}
		var perr *pgdialect.Error
		refused := errors.As(terr, &perr) && perr.Code == "0A000"
		if st.expect == "refused" {
			if !refused {
				t.Errorf("%s: want a refusal (0A000), got %v", where, terr)
			}
			continue
		}
		if refused {
			t.Errorf("%s: refused: %v", where, terr)
			continue
		}
		want := runPG(ctx, pg, st, tr != nil && tr.Ordered)
		var got outcome
		if terr != nil {
			if !errors.As(terr, &perr) {
				t.Fatalf("%s: translation: %v", where, terr)
			}
			got = outcome{err: perr.Code[:2], msg: perr.Message}
		} else {
			got = runMaria(ctx, my, tr, st.args)
		}
		compare(t, where, st, want, got)
	}
}

// compare checks the two outcomes against each other and the file's
// expectation.
func compare(t *testing.T, where string, st step, want, got outcome) {
	t.Helper()
	switch {
	case st.expect == "error" && (want.err == "" || got.err == ""):
		t.Errorf("%s: want an error on both engines:\n postgres: %v\n mariadb:  %v", where, want, got)
	case st.expect == "" && (want.err != "" || got.err != ""):
		t.Errorf("%s: want success on both engines:\n postgres: %v\n mariadb:  %v", where, want, got)
	case want.err != got.err:
		t.Errorf("%s: error classes differ:\n postgres: %v\n mariadb:  %v", where, want, got)
	case want.err == "" && (fmt.Sprint(want.cols) != fmt.Sprint(got.cols) || fmt.Sprint(want.rows) != fmt.Sprint(got.rows) || want.rowsAff != got.rowsAff):
		t.Errorf("%s: results differ:\n postgres: %v\n mariadb:  %v", where, want, got)
	}
}

// pgConn and myConn are the two engines' connections.
type (
	pgConn = *pgx.Conn
	myConn = *sql.Conn
)

// paramTypes are the types PostgreSQL's backend gives Go arguments:
// int64 is int8, a string or nil is left to the context.
func paramTypes(args []any) []pgdialect.Type {
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
func (o *outcome) finish(ordered bool) {
	if !ordered {
		sort.Slice(o.cells, func(i, j int) bool {
			return strings.Join(o.cells[i], "|") < strings.Join(o.cells[j], "|")
		})
	}
	o.rows = nil
	for _, c := range o.cells {
		o.rows = append(o.rows, strings.Join(c, "|"))
	}
}

// class is an SQLSTATE's class.
func class(state string) string {
	if len(state) < 2 {
		return "??"
	}
	return state[:2]
}

// openPG opens a fresh PostgreSQL database (collation C), in UTC.
func openPG(ctx context.Context, t *testing.T) *pgx.Conn {
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

// openMaria opens a fresh MariaDB database on one connection with the
// backend's session settings, CLIENT_FOUND_ROWS and server-side prepared
// statements.
func openMaria(ctx context.Context, t *testing.T) *sql.Conn {
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

// runPG runs a statement on PostgreSQL with int arguments as int8 and
// the others untyped, in text form both ways.
func runPG(ctx context.Context, conn *pgx.Conn, st step, ordered bool) outcome {
	vals := make([][]byte, len(st.args))
	oids := make([]uint32, len(st.args))
	for i, a := range st.args {
		switch v := a.(type) {
		case int64:
			vals[i], oids[i] = []byte(strconv.FormatInt(v, 10)), 20
		case string:
			vals[i] = []byte(v)
		}
	}
	sd, err := conn.PgConn().Prepare(ctx, "", st.sql, oids)
	if err != nil {
		return pgFailure(err)
	}
	res := conn.PgConn().ExecPrepared(ctx, "", vals, nil, nil).Read()
	res.FieldDescriptions = sd.Fields
	if res.Err != nil {
		return pgFailure(res.Err)
	}
	var o outcome
	for _, fd := range res.FieldDescriptions {

		o.cols = append(o.cols, fd.Name+":"+oidName[fd.DataTypeOID])
	}
	for _, r := range res.Rows {
		var cells []string
		for i, c := range r {
			cells = append(cells, pgCell(c, oidName[res.FieldDescriptions[i].DataTypeOID]))
		}
		o.cells = append(o.cells, cells)
	}
	o.finish(ordered)
	if len(res.FieldDescriptions) == 0 {
		o.rowsAff = res.CommandTag.RowsAffected()
	}
	return o
}

// pgFailure is a PostgreSQL error's outcome.
func pgFailure(err error) outcome {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return outcome{err: class(pe.Code), msg: pe.Message}
	}
	return outcome{err: "??", msg: err.Error()}
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

// runMaria runs a translation on MariaDB, failing on a warning where the
// translation says so.
func runMaria(ctx context.Context, conn *sql.Conn, tr *pgdialect.Translation, args []any) outcome {
	var o outcome
	for i, s := range tr.Statements {
		bound := make([]any, len(tr.Args[i]))
		for k, a := range tr.Args[i] {
			if a >= len(args) { // PostgreSQL's protocol error 08P01
				return outcome{err: "08", msg: fmt.Sprintf("no argument for $%d", a+1)}
			}
			bound[k] = args[a]
		}
		last := i == len(tr.Statements)-1
		var err error
		if last && tr.Columns != nil {
			o.cells, err = queryMaria(ctx, conn, s, bound, tr.Columns)
		} else {
			var r sql.Result
			if r, err = conn.ExecContext(ctx, s, bound...); err == nil {
				o.rowsAff, err = r.RowsAffected()
			}
		}
		if err == nil && tr.CheckWarnings {
			err = warnings(ctx, conn)
		}
		if err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) {
				return outcome{err: class(string(me.SQLState[:])), msg: me.Message + " [" + s + "]"}
			}
			return outcome{err: "??", msg: err.Error()}
		}
	}
	if tr.Columns != nil {
		o.rowsAff = 0
		for _, c := range tr.Columns {
			o.cols = append(o.cols, c.Name+":"+c.Type.Name)
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
