package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
	"github.com/relchain/relchain/rowcanon"
)

// canonColumn is one column of a table read for its canonical rows: its
// name and the PostgreSQL type the dialect declared.
type canonColumn struct {
	name string
	typ  pgdialect.Type
}

// CanonicalRows implements backend.CanonicalReader for a table of the
// postgres dialect, read on a read connection in one read transaction of
// committed state. Each column's kind is its declared PostgreSQL type
// (pgdialect.ParseDeclaredType), never SQLite's storage class; each stored
// value is first converted to PostgreSQL's value (pgruntime.Value: a
// numeric's display-scale spaces are dropped, a bool's 0/1 read), then to
// a rowcanon.Value (canonValue). A float4 keeps its stored binary value,
// widened exactly, as PostgreSQL's float4::float8 does.
func (b *Backend) CanonicalRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	if !b.opts.pg {
		return fmt.Errorf("canonical rows of %s: %w", table, errNotPostgres)
	}
	r, err := b.reader(ctx)
	if err != nil {
		return fmt.Errorf("canonical rows of %s: %w", table, err)
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		return fmt.Errorf("canonical rows of %s: begin: %w", table, err)
	}
	defer closeQuietly(func() error { return rc.exec("ROLLBACK") })
	cols, pk, err := canonColumns(r, table)
	if err != nil {
		return err
	}
	return canonScan(ctx, r, table, cols, pk, fn)
}

// canonColumns reads table's columns in declared order and its primary
// key (indexes into the columns, in key order), refusing a table without
// one and a column whose type has no canonical form.
func canonColumns(r *sqlite3.Conn, table string) ([]canonColumn, []int, error) {
	var cols []canonColumn
	keyAt := map[int64]int{}
	var bad error
	q, _, err := r.Prepare(`SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid`)
	err = forRows(q, err, []string{table}, func(st *sqlite3.Stmt) {
		name, decl := st.ColumnText(0), st.ColumnText(1)
		typ, ok := pgdialect.ParseDeclaredType(decl)
		if (!ok || !canonType(typ.Name)) && bad == nil {
			bad = backend.NoCanonicalForm(table, name, declaredName(typ, ok, decl))
		}
		if k := st.ColumnInt64(2); k > 0 {
			keyAt[k] = len(cols)
		}
		cols = append(cols, canonColumn{name: name, typ: typ})
	})
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("canonical rows of %s: columns: %w", table, err)
	case len(cols) == 0:
		return nil, nil, fmt.Errorf("canonical rows of %s: no such table", table)
	case bad != nil:
		return nil, nil, bad
	case len(keyAt) == 0:
		return nil, nil, backend.NoPrimaryKey(table)
	}
	pk := make([]int, len(keyAt))
	for k, i := range keyAt {
		pk[k-1] = i
	}
	return cols, pk, nil
}

// declaredName is a column's type as PostgreSQL's format_type prints it
// (integer[] for _int4), or SQLite's declared type when the dialect did
// not write it.
func declaredName(t pgdialect.Type, parsed bool, decl string) string {
	if !parsed {
		return decl
	}
	if s, ok := pgcatalog.FormatType(t.Name, t.Typmod); ok {
		return s
	}
	return t.Name
}

// canonType reports whether a column of the dialect's type name has a
// canonical kind (canonKind).
func canonType(name string) bool {
	_, ok := canonKind(name)
	return ok
}

// canonKind is the canonical kind of a column of the dialect's type name:
// the kind of every value canonValue makes of it. jsonb has none yet (its
// canonical text is to be decided: rowcanon's DESIGN.md §8), arrays none.
func canonKind(name string) (rowcanon.Kind, bool) { return rowcanon.KindOfPGType(name) }

// canonScan reads every row of table and calls fn with its key and image.
func canonScan(ctx context.Context, r *sqlite3.Conn, table string, cols []canonColumn, pk []int, fn func(key, image []byte) error) error {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quoteIdent(c.name)
	}
	row := make([]rowcanon.Column, len(cols))
	err := eachRow(r, "SELECT "+strings.Join(names, ", ")+" FROM "+quoteIdent(table), func(st *sqlite3.Stmt) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		key, image, err := canonRowOf(st, table, cols, pk, row)
		if err != nil {
			return err
		}
		return fn(key, image)
	})
	if err != nil {
		return fmt.Errorf("canonical rows of %s: %w", table, err)
	}
	return nil
}

// canonRowOf encodes st's row, its columns cols in order, into key and
// image, using row (len(cols)) as scratch.
func canonRowOf(st *sqlite3.Stmt, table string, cols []canonColumn, pk []int, row []rowcanon.Column) (key, image []byte, err error) {
	for i, c := range cols {
		v, err := storedCanon(st, i, c.typ)
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w", c.name, err)
		}
		row[i] = rowcanon.Column{Name: c.name, Value: v}
	}
	key, image, err = backend.CanonicalRow(table, row, pk)
	return key, image, notCanonical(err)
}

// notCanonical marks err, when it is rowcanon's refusal of a value
// (rowcanon.ErrInvalid), as backend.ErrValueNotCanonical.
func notCanonical(err error) error {
	if err == nil || !errors.Is(err, rowcanon.ErrInvalid) || errors.Is(err, backend.ErrValueNotCanonical) {
		return err
	}
	return fmt.Errorf("%w (%w)", err, backend.ErrValueNotCanonical)
}

// storedCanon is the canonical value of column i of st's row, of type t.
func storedCanon(st *sqlite3.Stmt, i int, t pgdialect.Type) (rowcanon.Value, error) {
	var raw any
	switch st.ColumnType(i) {
	case sqlite3.NULL:
		return rowcanon.Null(), nil
	case sqlite3.INTEGER:
		raw = st.ColumnInt64(i)
	case sqlite3.FLOAT:
		raw = st.ColumnFloat(i)
	case sqlite3.TEXT:
		raw = st.ColumnText(i)
	case sqlite3.BLOB:
		raw = st.ColumnBlob(i, nil)
	}
	return rawCanon(raw, t)
}

// rawCanon is the canonical value of a stored value of type t, as SQLite
// holds it: nil, int64, float64, string or []byte. A value outside its
// kind's domain is an error wrapping backend.ErrValueNotCanonical.
func rawCanon(raw any, t pgdialect.Type) (rowcanon.Value, error) {
	if raw == nil {
		return rowcanon.Null(), nil
	}
	if f, ok := raw.(float64); ok && t.Name == "float4" {
		return rowcanon.Float(float64(float32(f))), nil // exact widening, not float4's shortest text
	}
	v, err := pgruntime.Value(t, raw)
	if err != nil {
		return rowcanon.Value{}, err
	}
	c, err := canonValue(t.Name, v)
	return c, notCanonical(err)
}

// canonValue maps a value pgruntime.Value returned for a column of type
// name to its canonical value.
func canonValue(name string, v any) (rowcanon.Value, error) {
	switch x := v.(type) {
	case bool:
		return rowcanon.Bool(x), nil
	case int64:
		return rowcanon.Int(x), nil
	case float64:
		return rowcanon.Float(x), nil
	case []byte:
		return rowcanon.Bytes(x), nil
	case string:
		return canonText(name, x)
	}
	return rowcanon.Value{}, fmt.Errorf("a %T value for type %s", v, name)
}

// canonText maps a value PostgreSQL outputs as text (numeric, the
// strings, json, uuid, dates and timestamps in the dialect's stored ISO
// form, UTC) to its canonical value.
func canonText(name, s string) (rowcanon.Value, error) {
	switch name {
	case "numeric":
		return rowcanon.Numeric(s)
	case "json":
		return rowcanon.JSON(s)
	case "uuid":
		return backend.CanonicalUUID(s)
	case "date":
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("stored date %q: %w (%w)", s, err, backend.ErrValueNotCanonical)
		}
		return rowcanon.DateOf(t)
	case "timestamp", "timestamptz":
		t, err := time.Parse("2006-01-02 15:04:05.999999", strings.TrimSuffix(s, "+00"))
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("stored %s %q: %w (%w)", name, s, err, backend.ErrValueNotCanonical)
		}
		return rowcanon.TimestampOf(t)
	}
	return rowcanon.Text(s)
}
