package pgruntime_test

import (
	"errors"
	"fmt"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// db is an in-memory SQLite connection with the runtime registered and
// the SQLite backend's pinned pragmas.
type db struct {
	t *testing.T
	c *sqlite3.Conn
}

func mustOpen(t *testing.T) *db {
	t.Helper()
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, p := range []string{"PRAGMA foreign_keys = ON", "PRAGMA case_sensitive_like = OFF", "PRAGMA recursive_triggers = OFF"} {
		if err := c.Exec(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := pgruntime.Register(c); err != nil {
		t.Fatal(err)
	}
	return &db{t: t, c: c}
}

// result is what a statement returned: rows as text, the columns, or
// the SQLSTATE of its error.
type result struct {
	rows    [][]any
	cols    []pgdialect.ResultColumn
	code    string
	message string
	changes int64
}

// run translates and executes sql with args bound in order.
func (d *db) run(sql string, args ...any) result {
	d.t.Helper()
	tr, err := pgdialect.Translate(sql, pgruntime.NewCatalog(d.c))
	if err != nil {
		var pe *pgdialect.Error
		if !errors.As(err, &pe) {
			d.t.Fatalf("%s: translate: %v", sql, err)
		}
		return result{code: pe.Code, message: pe.Message}
	}
	var res result
	for _, s := range tr.Statements {
		res, err = d.exec(s, tr.Columns, args)
		if err != nil {
			code, ok := pgruntime.SQLState(err)
			if !ok {
				code = "SQLITE"
			}
			return result{code: code, message: err.Error()}
		}
	}
	res.cols = tr.Columns
	return res
}

func (d *db) exec(sql string, cols []pgdialect.ResultColumn, args []any) (result, error) {
	st, _, err := d.c.Prepare(sql)
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", sql, err)
	}
	defer st.Close()
	for i, a := range args {
		if err := bind(st, i+1, a); err != nil {
			return result{}, err
		}
	}
	var res result
	for st.Step() {
		var row []any
		for i := 0; i < st.ColumnCount(); i++ {
			v, err := pgruntime.Value(cols[i].Type, columnValue(st, i))
			if err != nil {
				return result{}, err
			}
			row = append(row, v)
		}
		res.rows = append(res.rows, row)
	}
	if err := st.Err(); err != nil {
		return result{}, err
	}
	res.changes = d.c.Changes()
	return res, nil
}

func bind(st *sqlite3.Stmt, i int, a any) error {
	switch x := a.(type) {
	case nil:
		return st.BindNull(i)
	case int:
		return st.BindInt64(i, int64(x))
	case int64:
		return st.BindInt64(i, x)
	case float64:
		return st.BindFloat(i, x)
	case string:
		return st.BindText(i, x)
	case []byte:
		return st.BindBlob(i, x)
	}
	return fmt.Errorf("bind %T", a)
}

func columnValue(st *sqlite3.Stmt, i int) any {
	switch st.ColumnType(i) {
	case sqlite3.INTEGER:
		return st.ColumnInt64(i)
	case sqlite3.FLOAT:
		return st.ColumnFloat(i)
	case sqlite3.TEXT:
		return st.ColumnText(i)
	case sqlite3.BLOB:
		return st.ColumnBlob(i, nil)
	}
	return nil
}

// mustRun runs sql and fails the test on an error.
func (d *db) mustRun(sql string, args ...any) result {
	d.t.Helper()
	r := d.run(sql, args...)
	if r.code != "" {
		d.t.Fatalf("%s: %s %s", sql, r.code, r.message)
	}
	return r
}
