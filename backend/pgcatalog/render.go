package pgcatalog

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// run runs a rewritten query on the catalog database with its arguments
// and renders its rows with PostgreSQL's types (Result).
func run(ctx context.Context, db *sqlite3.Conn, rw *rewritten, args []any) (*Result, error) {
	if len(args) != len(rw.Params) {
		return nil, pgErr("08P01", "bind message supplies %d parameters, but prepared statement requires %d", len(args), len(rw.Params))
	}
	old := db.SetInterrupt(ctx)
	defer db.SetInterrupt(old)
	st, _, err := db.Prepare(rw.SQL)
	if err != nil {
		return nil, sqliteError(err)
	}
	defer st.Close()
	for i, a := range args {
		if err := bindArg(st, i+1, a, rw.Params[i]); err != nil {
			return nil, err
		}
	}
	res := &Result{Columns: rw.Columns}
	for st.Step() {
		row := make([]any, len(rw.Columns))
		for i, c := range rw.Columns {
			if row[i], err = columnValue(st, i, c.Type); err != nil {
				return nil, err
			}
		}
		res.Rows = append(res.Rows, row)
	}
	if err := st.Err(); err != nil {
		return nil, sqliteError(err)
	}
	return res, nil
}

// bindArg binds argument a of parameter type t: a client's text is read
// as t (integers, booleans, arrays as JSON), as PostgreSQL's input does.
func bindArg(st *sqlite3.Stmt, i int, a any, t string) error {
	switch x := a.(type) {
	case nil:
		return st.BindNull(i)
	case []byte:
		return bindArg(st, i, string(x), t)
	case string:
		if isReg(t) || isTextual(t) {
			return st.BindText(i, x)
		}
		v, err := literalAs(x, t)
		if err != nil {
			return err
		}
		if isArray(t) || isVector(t) {
			return st.BindText(i, strings.ReplaceAll(v.sql[1:len(v.sql)-1], "''", "'"))
		}
		if isInteger(t) || t == "bool" {
			n, _ := strconv.ParseInt(v.sql, 10, 64)
			return st.BindInt64(i, n)
		}
		if isFloat(t) {
			f, _ := strconv.ParseFloat(v.sql, 64)
			return st.BindFloat(i, f)
		}
		return st.BindText(i, x)
	case bool:
		return st.BindBool(i, x)
	case int:
		return st.BindInt64(i, int64(x))
	case int32:
		return st.BindInt64(i, int64(x))
	case int64:
		return st.BindInt64(i, x)
	case float64:
		return st.BindFloat(i, x)
	}
	return pgErr("22023", "unsupported parameter value of Go type %T for $%d", a, i)
}

// columnValue is column i of the current row as PostgreSQL's type t
// shows it (Result's values).
func columnValue(st *sqlite3.Stmt, i int, t string) (any, error) {
	kind := st.ColumnType(i)
	switch {
	case kind == sqlite3.NULL:
		return nil, nil
	case isReg(t):
		return textValue(st, i, kind), nil // shown by name (finish)
	case t == "bool":
		if kind == sqlite3.TEXT {
			b, err := parseBool(st.ColumnText(i))
			return b == 1, err
		}
		return st.ColumnInt64(i) != 0, nil
	case isInteger(t):
		if kind == sqlite3.TEXT {
			return parseInt(st.ColumnText(i), t)
		}
		return st.ColumnInt64(i), nil
	case t == "numeric" && kind == sqlite3.INTEGER:
		return st.ColumnInt64(i), nil
	case isFloat(t):
		return st.ColumnFloat(i), nil
	case isArray(t) || isVector(t):
		return jsonToArray(st.ColumnText(i), t)
	}
	return textValue(st, i, kind), nil
}

// textValue is a column's text.
func textValue(st *sqlite3.Stmt, i int, kind sqlite3.Datatype) string {
	switch kind {
	case sqlite3.INTEGER:
		return strconv.FormatInt(st.ColumnInt64(i), 10)
	case sqlite3.FLOAT:
		return strconv.FormatFloat(st.ColumnFloat(i), 'g', -1, 64)
	}
	return st.ColumnText(i)
}

// sqliteNames find the object an SQLite error names; wrongArgs a call
// with an argument count the function has no overload for.
var (
	sqliteNames = regexp.MustCompile(`no such (column|table|function): ([^\s]+)`)
	wrongArgs   = regexp.MustCompile(`wrong number of arguments to function ([a-z_0-9]+)\(\)`)
)

// sqliteError maps an SQLite error to PostgreSQL's: a runtime function's
// SQLSTATE and message, an unknown column, relation or function, a
// cancellation; anything else a fixed message (never SQLite's text).
func sqliteError(err error) error {
	msg := err.Error()
	if code, m, ok := sqlState(err); ok {
		if strings.Contains(msg, "bad JSON path: '") {
			m = strings.TrimSuffix(m, "'") // raiseSQL's error
		}
		return &Error{Code: code, Message: m}
	}
	if m := sqliteNames.FindStringSubmatch(msg); m != nil {
		name := m[2]
		switch m[1] {
		case "column":
			return pgErr("42703", "column %q does not exist", name[strings.LastIndex(name, ".")+1:])
		case "table":
			return pgErr("42P01", "relation %q does not exist", name)
		}
		return pgErr("42883", "function %s does not exist", name)
	}
	if m := wrongArgs.FindStringSubmatch(msg); m != nil {
		return pgErr("42883", "function %s does not exist with these arguments", m[1])
	}
	switch {
	case errors.Is(err, sqlite3.INTERRUPT), strings.Contains(msg, "interrupted"):
		return pgErr("57014", "canceling statement due to user request")
	case strings.Contains(msg, "malformed JSON"):
		return pgErr("22P02", "malformed array literal")
	case strings.Contains(msg, "ambiguous column name"):
		return pgErr("42702", "column reference is ambiguous")
	}
	return &Error{Code: "XX000", Message: fmt.Sprintf("the catalog query failed (%s)", sqliteCode(err))}
}

// sqliteCode names an SQLite error by its result code only.
func sqliteCode(err error) string {
	var e *sqlite3.Error
	if errors.As(err, &e) {
		return "code " + strconv.Itoa(int(e.Code()))
	}
	return "internal"
}
