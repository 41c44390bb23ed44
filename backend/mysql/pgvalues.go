package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
)

// bindArgs is the arguments of statement s of tr: args[tr.Args[s][k]]
// for its k-th '?', each converted as PostgreSQL's input function of its
// parameter type reads it (pgParam).
func bindArgs(tr *pgdialect.Translation, s int, args []any) ([]any, error) {
	if s >= len(tr.Args) {
		return nil, nil
	}
	out := make([]any, len(tr.Args[s]))
	for k, a := range tr.Args[s] {
		if a >= len(args) {
			return nil, &backend.Error{Class: backend.ClassInvalid, SQLState: "08P01",
				Message: fmt.Sprintf("bind message supplies %d parameters, but the statement requires $%d", len(args), a+1)}
		}
		var typ pgdialect.Type
		if a < len(tr.Params) {
			typ = tr.Params[a]
		}
		v, err := pgParam(typ, args[a])
		if err != nil {
			return nil, fmt.Errorf("parameter $%d: %w", a+1, err)
		}
		out[k] = v
	}
	return out, nil
}

// dataError is a *backend.Error of SQLSTATE state (class 22).
func dataError(state, msg string) *backend.Error {
	return &backend.Error{Class: backend.ClassOfSQLState(state), SQLState: state, Message: msg}
}

// pgParam converts one argument to what MariaDB must compare for a
// parameter of type typ: a string for an integer or bool parameter is
// read as PostgreSQL reads its text ('5.7' for int4 fails 22P02 before
// MariaDB would compare it as a number; 'true' for bool is 1), an integer
// is checked against an int2 or int4 parameter's range.
func pgParam(typ pgdialect.Type, a any) (any, error) {
	if a == nil {
		return nil, nil
	}
	switch typ.Name {
	case "int2", "int4", "int8":
		return pgIntParam(typ.Name, a)
	case "bool":
		if s, ok := a.(string); ok {
			return pgBoolText(s)
		}
	case "bytea":
		if s, ok := a.(string); ok {
			return pgByteaText(s)
		}
	}
	return a, nil
}

// intRange is the range of PostgreSQL's integer type name.
func intRange(name string) (int64, int64) {
	switch name {
	case "int2":
		return math.MinInt16, math.MaxInt16
	case "int4":
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// pgIntParam reads a for an integer parameter of type name.
func pgIntParam(name string, a any) (any, error) {
	var n int64
	switch v := a.(type) {
	case int64:
		n = v
	case int:
		n = int64(v)
	case int32:
		n = int64(v)
	case string:
		x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return nil, dataError("22003", fmt.Sprintf("value %q is out of range for type %s", v, name))
			}
			return nil, dataError("22P02", fmt.Sprintf("invalid input syntax for type %s: %q", name, v))
		}
		n = x
	default:
		return a, nil
	}
	if lo, hi := intRange(name); n < lo || n > hi {
		return nil, dataError("22003", fmt.Sprintf("value %d is out of range for type %s", n, name))
	}
	return n, nil
}

// pgBoolText reads s as PostgreSQL's boolin does: a prefix of true,
// false, yes or no, on, of or off (two letters at least), 1 or 0, case
// and surrounding spaces ignored.
func pgBoolText(s string) (any, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch {
	case t == "1", len(t) >= 2 && strings.HasPrefix("on", t),
		t != "" && t[0] != 'o' && (strings.HasPrefix("true", t) || strings.HasPrefix("yes", t)):
		return int64(1), nil
	case t == "0", len(t) >= 2 && strings.HasPrefix("off", t),
		t != "" && t[0] != 'o' && (strings.HasPrefix("false", t) || strings.HasPrefix("no", t)):
		return int64(0), nil
	}
	return nil, dataError("22P02", fmt.Sprintf("invalid input syntax for type boolean: %q", s))
}

// pgByteaText reads s as PostgreSQL's byteain does: hex format (\x...),
// or escape format without backslashes (the bytes of s).
func pgByteaText(s string) (any, error) {
	if h, ok := strings.CutPrefix(s, `\x`); ok {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, dataError("22P02", fmt.Sprintf("invalid hexadecimal data for type bytea: %v", err))
		}
		return b, nil
	}
	if strings.Contains(s, `\`) {
		return nil, &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
			Message: "a text argument for a bytea parameter in escape format with backslashes is not supported: send bytes or \\x hex"}
	}
	return []byte(s), nil
}

// runTranslation runs tr's statements in order on conn, binding args; the
// last one's rows (rendered as PostgreSQL's values, sorted by their text
// unless the statement orders them) or rows affected are the result. write:
// the statement is DML, whose rows affected with RETURNING are the rows
// it returns.
func runTranslation(ctx context.Context, conn *sql.Conn, tr *pgdialect.Translation, args []any, write bool, lim limits) (*backend.Rows, error) {
	out := &backend.Rows{}
	for i, s := range tr.Statements {
		bound, err := bindArgs(tr, i, args)
		if err != nil {
			return nil, err
		}
		if i == len(tr.Statements)-1 && tr.Columns != nil {
			out, err = queryPG(ctx, conn, s, bound, tr.Columns, lim)
		} else {
			var res sql.Result
			if res, err = conn.ExecContext(ctx, s, bound...); err == nil {
				out.RowsAffected, err = res.RowsAffected()
			}
		}
		if err == nil && tr.CheckWarnings {
			err = pgWarnings(ctx, conn)
		}
		if err != nil {
			return nil, err
		}
	}
	if tr.Columns != nil {
		out.RowsAffected = 0
		if write {
			out.RowsAffected = int64(len(out.Rows))
		}
		if !tr.Ordered {
			out.Unordered = true
			sort.SliceStable(out.Rows, func(i, j int) bool { return comparePG(out.Rows[i], out.Rows[j]) < 0 })
		}
	}
	return out, nil
}

// queryPG runs one query and renders its rows by cols' PostgreSQL types.
func queryPG(ctx context.Context, conn *sql.Conn, s string, args []any, cols []pgdialect.ResultColumn, lim limits) (*backend.Rows, error) {
	rows, err := conn.QueryContext(ctx, s, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &backend.Rows{Columns: make([]string, len(cols))}
	for i, c := range cols {
		out.Columns[i] = c.Name
	}
	raw := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	var size int64
	for rows.Next() {
		if lim.rows > 0 && len(out.Rows) >= lim.rows {
			return nil, lim.exceeded("rows", int64(lim.rows))
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cols))
		for i, c := range raw {
			size += int64(len(c)) + 8
			if row[i], err = pgValue(cols[i].Type, c); err != nil {
				return nil, fmt.Errorf("column %q: %w", cols[i].Name, err)
			}
		}
		if lim.bytes > 0 && size > lim.bytes {
			return nil, lim.exceeded("bytes", lim.bytes)
		}
		out.Rows = append(out.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// pgValue renders MariaDB's text of a value of PostgreSQL type t as the
// Go value the PostgreSQL backend returns for it: integers as int64,
// float8 as float64, bool as bool (MariaDB's 0/1), bytea as []byte, and
// every other type as PostgreSQL's text (numeric with its scale as
// DECIMAL keeps it; timestamps without trailing fractional zeros,
// timestamptz with +00).
func pgValue(t pgdialect.Type, c []byte) (any, error) {
	if c == nil {
		return nil, nil
	}
	s := string(c)
	switch t.Name {
	case "int2", "int4", "int8":
		return strconv.ParseInt(s, 10, 64)
	case "float8":
		return strconv.ParseFloat(s, 64)
	case "bool":
		return s != "0", nil
	case "bytea":
		return bytes.Clone(c), nil
	case "timestamp", "timestamptz":
		if strings.IndexByte(s, '.') >= 0 {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		if t.Name == "timestamptz" {
			s += "+00"
		}
	}
	return s, nil
}

// comparePG orders rows as the PostgreSQL backend sorts an unordered
// result: by the values' PostgreSQL text forms, column by column, NULL
// first.
func comparePG(a, b []any) int {
	return sqlstore.CompareRows(a, b, func(v any) ([]byte, bool) {
		switch x := v.(type) {
		case nil:
			return nil, true
		case bool:
			if x {
				return []byte("t"), false
			}
			return []byte("f"), false
		case []byte:
			return append([]byte(`\x`), hex.EncodeToString(x)...), false
		}
		return textOf(v), false
	})
}

// pgWarnings fails a statement whose translation says CheckWarnings when
// MariaDB left a warning (level Warning or Error; Notes are kept), with
// the SQLSTATE PostgreSQL reports for the condition (pgdialect.WarningCode;
// XX000 for one the dialect does not expect).
func pgWarnings(ctx context.Context, conn *sql.Conn) error {
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
		return &backend.Error{Class: backend.ClassOfSQLState(state), SQLState: state, Message: fmt.Sprintf("%d: %s", code, msg)}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("show warnings: %w", err)
	}
	return nil
}

// pgTypes fills rows' Types and Typmods with the translation's column
// types (the read path's results).
func pgTypes(rows *backend.Rows, cols []pgdialect.ResultColumn) {
	if len(cols) == 0 {
		return
	}
	rows.Types = make([]string, len(cols))
	rows.Typmods = make([]int32, len(cols))
	for i, c := range cols {
		rows.Types[i], rows.Typmods[i] = c.Type.Name, c.Type.Typmod
	}
}
