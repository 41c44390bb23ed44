package postgres

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
)

var _ backend.CanonicalReader = (*Backend)(nil)

// canonColumn is one column of a table read for its canonical rows: its
// name, its type's name (pg_type.typname) and its type as format_type
// prints it (for errors).
type canonColumn struct {
	name, typ, shown string
}

// canonColumnsSQL lists a table's columns in declared order with their
// types and their position in the primary key (0 outside it). A type
// outside pg_catalog has no typname here: a user's type named int4 or
// text (CREATE TYPE public.int4 …) is not the built-in one.
const canonColumnsSQL = `SELECT a.attname, CASE WHEN t.typnamespace = 'pg_catalog'::pg_catalog.regnamespace THEN t.typname ELSE '' END,
	pg_catalog.format_type(a.atttypid, a.atttypmod),
	coalesce((SELECT k.n::pg_catalog.int4 FROM pg_catalog.unnest(i.indkey) WITH ORDINALITY k(att, n) WHERE k.att = a.attnum), 0)
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_catalog.pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`

// CanonicalRows implements backend.CanonicalReader, on a reader
// connection in one read-only REPEATABLE READ transaction (one snapshot
// of committed state). Each column is converted in SQL to a text that
// reads back exactly (canonExpr): a float's IEEE bits, a date's days and
// a timestamp's microseconds since 1970, numeric and uuid as they print,
// bytea in hex, char(n) with its padding. Needs PostgreSQL 14 or later
// (extract returns numeric).
func (b *Backend) CanonicalRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("canonical rows of %s: acquire connection: %w", table, err)
	}
	defer conn.Release()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("canonical rows of %s: begin: %w", table, err)
	}
	defer tx.Rollback(context.Background())
	cols, pk, err := canonColumns(ctx, tx, table)
	if err != nil {
		return err
	}
	return canonScan(ctx, tx, table, cols, pk, fn)
}

// canonColumns reads table's columns and its primary key (indexes into
// the columns, in key order), refusing a table without one and a column
// whose type has no canonical form.
func canonColumns(ctx context.Context, tx querier, table string) ([]canonColumn, []int, error) {
	var oid *uint32
	err := tx.QueryRow(ctx, `SELECT pg_catalog.to_regclass('public.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident($1))::pg_catalog.oid`, table).Scan(&oid)
	if err != nil {
		return nil, nil, fmt.Errorf("canonical rows of %s: find table: %w", table, err)
	}
	if oid == nil {
		return nil, nil, fmt.Errorf("canonical rows of %s: no such table", table)
	}
	var cols []canonColumn
	keyAt := map[int32]int{}
	err = eachRow(ctx, tx, canonColumnsSQL, []any{*oid}, func(r pgx.Rows) error {
		var c canonColumn
		var k int32
		if err := r.Scan(&c.name, &c.typ, &c.shown, &k); err != nil {
			return err
		}
		if k > 0 {
			keyAt[k] = len(cols)
		}
		cols = append(cols, c)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("canonical rows of %s: columns: %w", table, err)
	}
	for _, c := range cols {
		if canonExpr(c) == "" {
			return nil, nil, backend.NoCanonicalForm(table, c.name, c.shown)
		}
	}
	if len(keyAt) == 0 {
		return nil, nil, backend.NoPrimaryKey(table)
	}
	pk := make([]int, len(keyAt))
	for k, i := range keyAt {
		pk[k-1] = i
	}
	return cols, pk, nil
}

// canonExpr is the SQL that reads column c as the text canonValue
// parses, "" for a type without a canonical form (jsonb's canonical text
// is still to be decided: rowcanon's DESIGN.md §8).
func canonExpr(c canonColumn) string {
	q := pgx.Identifier{c.name}.Sanitize()
	switch c.typ {
	case "bool", "int2", "int4", "int8", "numeric", "text", "varchar", "uuid", "json":
		return q + "::pg_catalog.text"
	case "bpchar": // ::text would trim the padding that char(n) stores
		return "CASE WHEN " + q + " IS NULL THEN NULL ELSE pg_catalog.concat(" + q + ") END"
	case "float4", "float8":
		return "pg_catalog.encode(pg_catalog.float8send(" + q + "::pg_catalog.float8), 'hex')"
	case "bytea":
		return "pg_catalog.encode(" + q + ", 'hex')"
	case "date": // date - date fails on an infinite date: its text is refused instead (canonValue)
		return "CASE WHEN pg_catalog.isfinite(" + q + ") THEN (" + q + " - DATE '1970-01-01')::pg_catalog.text ELSE " + q + "::pg_catalog.text END"
	case "timestamp", "timestamptz":
		return "(pg_catalog.extract('epoch', " + q + ") * 1000000)::pg_catalog.text"
	}
	return ""
}

// canonScan reads every row of table and calls fn with its key and image.
func canonScan(ctx context.Context, tx querier, table string, cols []canonColumn, pk []int, fn func(key, image []byte) error) error {
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = canonExpr(c)
	}
	// ONLY, as the state digest's scans and the block's delta read: a
	// table's rows are its own, not its INHERITS children's (which hold
	// keys of their own, outside the parent's primary key).
	sql := "SELECT " + strings.Join(exprs, ", ") + " FROM ONLY " + pgx.Identifier{"public", table}.Sanitize()
	row := make([]rowcanon.Column, len(cols))
	// The simple protocol: the text is the table's own, not worth a
	// prepared statement on the connection (a block's writer, say).
	err := eachRow(ctx, tx, sql, []any{pgx.QueryExecModeSimpleProtocol}, func(r pgx.Rows) error {
		key, image, err := canonRowOf(table, cols, pk, r.RawValues(), row)
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

// canonRowOf is the canonical key and image of one row read as canonScan
// reads it (raw: canonExpr's text of each column), in row (len(cols)
// columns, reused). A value outside its kind's domain is an error
// wrapping backend.ErrValueNotCanonical.
func canonRowOf(table string, cols []canonColumn, pk []int, raw [][]byte, row []rowcanon.Column) (key, image []byte, err error) {
	for i, b := range raw {
		v, err := canonValue(cols[i].typ, b)
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w: %w", cols[i].name, backend.ErrValueNotCanonical, err)
		}
		row[i] = rowcanon.Column{Name: cols[i].name, Value: v}
	}
	key, image, err = backend.CanonicalRow(table, row, pk)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", backend.ErrValueNotCanonical, err)
	}
	return key, image, nil
}

// canonValue parses the text canonExpr selected for a column of type typ
// (nil is NULL).
func canonValue(typ string, raw []byte) (rowcanon.Value, error) {
	if raw == nil {
		return rowcanon.Null(), nil
	}
	s := string(raw)
	switch typ {
	case "bool":
		return rowcanon.Bool(s == "true"), nil
	case "int2", "int4", "int8":
		i, err := strconv.ParseInt(s, 10, 64)
		return rowcanon.Int(i), err
	case "numeric":
		return rowcanon.Numeric(s)
	case "float4", "float8":
		return floatValue(s)
	case "bytea":
		b, err := hex.DecodeString(s)
		return rowcanon.Bytes(b), err
	case "date":
		days, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("date: %w", err)
		}
		return rowcanon.Date(days)
	case "timestamp", "timestamptz":
		return microsValue(s)
	case "uuid":
		return backend.CanonicalUUID(s)
	case "json":
		return rowcanon.JSON(s)
	}
	return rowcanon.Text(s)
}

// floatValue is a float from the hex of its float8send bytes.
func floatValue(s string) (rowcanon.Value, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 8 {
		return rowcanon.Value{}, fmt.Errorf("float bits %q: not 8 bytes of hex", s)
	}
	return rowcanon.Float(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
}

// microsValue is a timestamp from its microseconds since 1970 as
// extract's numeric prints them (1700000000123456.000000); a fraction of
// a microsecond or an infinity is refused.
func microsValue(s string) (rowcanon.Value, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if strings.Trim(frac, "0") != "" {
		return rowcanon.Value{}, fmt.Errorf("timestamp of %s µs is not a whole microsecond", s)
	}
	us, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return rowcanon.Value{}, fmt.Errorf("timestamp of %s µs: %w", s, err)
	}
	return rowcanon.Timestamp(us)
}
