package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
)

var _ backend.CanonicalReader = (*Backend)(nil)

// Canonical rows of MySQL/MariaDB tables (issue 36). A column's kind is
// that of the PostgreSQL type the backend's catalog reports for it
// (pgType): the integer types (TINYINT(1)/BOOLEAN and YEAR included: MySQL
// has no boolean, and pgType reports int2) are int, except BIGINT UNSIGNED,
// which is numeric; DECIMAL is numeric (scale dropped); FLOAT is float, its
// float32 widened exactly, DOUBLE float; CHAR(n) is text padded with spaces
// to n characters, as PostgreSQL's char(n) stores it (MySQL strips the
// padding on read, PAD SPACE); VARCHAR and TEXT are text, the stored
// characters (trailing spaces kept) in UTF-8; BINARY, VARBINARY and BLOB are
// bytes; DATE is date; DATETIME and TIMESTAMP are timestamps (read in the
// pinned time zone +00:00). JSON (MariaDB's too), ENUM, SET, BIT, TIME,
// spatial and MariaDB's own types (UUID, INET6 …) have no canonical form.
//
// That mapping is the MySQL dialect's. A backend opened
// WithPostgresDialect takes each column's kind from the PostgreSQL type
// its COMMENT keeps (pg:<type>, written by pgdialect) instead, so that its
// canonical rows are byte-identical to backend/postgres's for the same
// table: a bool (TINYINT(1)) is a bool there, not an int; a column without
// a pg: type, or stored in a MariaDB type pgdialect does not give that
// type, has no canonical form (canonical_pg.go says why).

// canonKind is how a MySQL column maps to a rowcanon kind; kindNone: no
// canonical form.
type canonKind uint8

const (
	kindNone canonKind = iota
	kindInt
	kindUnsigned // BIGINT UNSIGNED: numeric
	kindNumeric
	kindFloat
	kindChar // CHAR(n): text padded to n characters
	kindText
	kindBytes
	kindDate
	kindTimestamp
	kindBool // a PostgreSQL-dialect bool (TINYINT(1) holding 0 or 1)
)

// canonColumn is one column of a table read for its canonical rows.
type canonColumn struct {
	name, shown string // as information_schema spells them (COLUMN_TYPE)
	kind        canonKind
	charLen     int64 // CHAR(n)'s n
}

// canonTable is a table's columns in ordinal order and its primary key
// (indexes into cols, in key order).
type canonTable struct {
	name string
	cols []canonColumn
	pk   []int
}

// canonColumnsSQL lists a table's columns; canonKeySQL its primary
// key's. information_schema compares TABLE_NAME by its collation, which
// may fold case: the rows of another spelling are skipped (a BINARY
// comparison would make the server open every table of the server).
const canonColumnsSQL = `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0),
	COALESCE(COLUMN_COMMENT, '')
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`

const canonKeySQL = `SELECT TABLE_NAME, COLUMN_NAME, SEQ_IN_INDEX FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY'`

// mariaJSONSQL lists the CHECK constraints of a table: MariaDB's JSON
// type is a LONGTEXT with a CHECK (json_valid(col)) named after it.
const mariaJSONSQL = `SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = ?`

// kindOf maps a column's DATA_TYPE and COLUMN_TYPE to its kind.
func kindOf(dataType, columnType string) canonKind {
	unsigned := strings.Contains(strings.ToLower(columnType), "unsigned")
	switch strings.ToLower(dataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "year":
		return kindInt
	case "bigint":
		if unsigned {
			return kindUnsigned
		}
		return kindInt
	case "decimal", "numeric":
		return kindNumeric
	case "float", "double", "real":
		return kindFloat
	case "char":
		return kindChar
	case "varchar", "tinytext", "text", "mediumtext", "longtext":
		return kindText
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return kindBytes
	case "date":
		return kindDate
	case "datetime", "timestamp":
		return kindTimestamp
	}
	return kindNone
}

// canonColumns reads table's columns and primary key with q (inside the
// transaction whose rows are read), refusing a table without a primary
// key and a column without a canonical form before any row is read.
func (b *Backend) canonColumns(ctx context.Context, q querier, table string) (canonTable, error) {
	t := canonTable{name: table}
	if strings.HasPrefix(table, "relchain_") {
		return t, fmt.Errorf("canonical rows of %s: not a replicated table", table)
	}
	jsonCols, err := b.mariaJSONColumns(ctx, q, table)
	if err != nil {
		return t, fmt.Errorf("canonical rows of %s: columns: %w", table, err)
	}
	var bad error
	err = eachOfTable(ctx, q, canonColumnsSQL, table, func(r *sql.Rows) error {
		var c canonColumn
		var tbl, dataType, comment string
		if err := r.Scan(&tbl, &c.name, &dataType, &c.shown, &c.charLen, &comment); err != nil || tbl != table {
			return err
		}
		if c.kind = kindOf(dataType, c.shown); jsonCols[c.name] {
			c.kind, c.shown = kindNone, "json"
		}
		if b.opts.pg {
			c.kind, c.shown = pgKindOf(comment, dataType, c.shown)
		}
		if c.kind == kindNone && bad == nil {
			bad = backend.NoCanonicalForm(table, c.name, c.shown)
		}
		t.cols = append(t.cols, c)
		return nil
	})
	if err != nil {
		return t, fmt.Errorf("canonical rows of %s: columns: %w", table, err)
	}
	keyAt, err := t.keyPositions(ctx, q)
	if err != nil {
		return t, fmt.Errorf("canonical rows of %s: primary key: %w", table, err)
	}
	return t, t.settle(keyAt, bad)
}

// keyPositions maps each primary-key position (from 1) to its column's
// index in t.cols.
func (t canonTable) keyPositions(ctx context.Context, q querier) (map[int64]int, error) {
	at := map[string]int{}
	for i, c := range t.cols {
		at[c.name] = i
	}
	keyAt := map[int64]int{}
	err := eachOfTable(ctx, q, canonKeySQL, t.name, func(r *sql.Rows) error {
		var tbl, col string
		var seq int64
		if err := r.Scan(&tbl, &col, &seq); err != nil || tbl != t.name {
			return err
		}
		i, ok := at[col]
		if !ok {
			return fmt.Errorf("key column %s is not a column", col)
		}
		keyAt[seq] = i
		return nil
	})
	return keyAt, err
}

// eachOfTable runs query (whose one argument is table) and calls fn for
// each row.
func eachOfTable(ctx context.Context, q querier, query, table string, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, table)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// settle orders the primary key's columns and returns the refusal, if any.
func (t *canonTable) settle(keyAt map[int64]int, bad error) error {
	switch {
	case len(t.cols) == 0:
		return fmt.Errorf("canonical rows of %s: no such table", t.name)
	case bad != nil:
		return bad
	case len(keyAt) == 0:
		return backend.NoPrimaryKey(t.name)
	}
	t.pk = make([]int, len(keyAt))
	for k, i := range keyAt {
		if k < 1 || int(k) > len(t.pk) {
			return fmt.Errorf("canonical rows of %s: primary key position %d of %d", t.name, k, len(t.pk))
		}
		t.pk[k-1] = i
	}
	return nil
}

// mariaJSONColumns names the columns of table that are MariaDB's JSON
// (none on MySQL, whose JSON is a type of its own).
func (b *Backend) mariaJSONColumns(ctx context.Context, q querier, table string) (map[string]bool, error) {
	cols := map[string]bool{}
	if !b.flavor.mariadb {
		return cols, nil
	}
	err := eachOfTable(ctx, q, mariaJSONSQL, table, func(r *sql.Rows) error {
		var tbl, name, clause string
		if err := r.Scan(&tbl, &name, &clause); err != nil || tbl != table {
			return err
		}
		if clause == "json_valid("+quoteIdent(name)+")" {
			cols[name] = true
		}
		return nil
	})
	return cols, err
}

// selectList is the SQL of the columns of t as canonValue reads them:
// character columns converted to utf8mb4, the others as they are (read
// in the binary protocol: floats as their IEEE bits).
func (t canonTable) selectList() string {
	exprs := make([]string, len(t.cols))
	for i, c := range t.cols {
		exprs[i] = quoteIdent(c.name)
		if c.kind == kindChar || c.kind == kindText {
			exprs[i] = "CONVERT(" + exprs[i] + " USING utf8mb4)"
		}
	}
	return strings.Join(exprs, ", ")
}

// notCanonical is the error of column c's value outside its kind's domain.
func notCanonical(c canonColumn, err error) error {
	return fmt.Errorf("column %s: %w: %w", c.name, backend.ErrValueNotCanonical, err)
}

// canonValue converts column c's value as the driver read it (nil, int64,
// float32, float64 or the bytes of its text) to a rowcanon.Value.
func canonValue(c canonColumn, v any) (rowcanon.Value, error) {
	if v == nil {
		return rowcanon.Null(), nil
	}
	var val rowcanon.Value
	var err error
	switch x := v.(type) {
	case int64:
		val = rowcanon.Int(x)
		switch c.kind {
		case kindInt:
		case kindUnsigned:
			val, err = rowcanon.Numeric(strconv.FormatInt(x, 10))
		case kindBool:
			val, err = boolValue(x)
		default:
			err = fmt.Errorf("an integer in a column of type %s", c.shown)
		}
	case float32:
		val = rowcanon.Float(float64(x)) // exact
		if c.kind != kindFloat {
			err = fmt.Errorf("a float in a column of type %s", c.shown)
		}
	case float64:
		val = rowcanon.Float(x)
		if c.kind != kindFloat {
			err = fmt.Errorf("a float in a column of type %s", c.shown)
		}
	case []byte:
		val, err = textValue(c, string(x))
	default:
		err = fmt.Errorf("a %T in a column of type %s", v, c.shown)
	}
	if err != nil {
		return rowcanon.Value{}, notCanonical(c, err)
	}
	return val, nil
}

// textValue converts the text s of column c's value (bytes as they are).
func textValue(c canonColumn, s string) (rowcanon.Value, error) {
	switch c.kind {
	case kindInt:
		i, err := strconv.ParseInt(s, 10, 64)
		return rowcanon.Int(i), err
	case kindUnsigned, kindNumeric:
		return rowcanon.Numeric(s)
	case kindFloat:
		f, err := strconv.ParseFloat(s, 64)
		return rowcanon.Float(f), err
	case kindChar:
		if n := c.charLen - int64(utf8.RuneCountInString(s)); n > 0 {
			s += strings.Repeat(" ", int(n))
		}
		return rowcanon.Text(s)
	case kindText:
		return rowcanon.Text(s)
	case kindBytes:
		return rowcanon.Bytes([]byte(s)), nil
	case kindDate:
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("date %q: %w", s, err)
		}
		return rowcanon.DateOf(t)
	case kindBool:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("bool %q: %w", s, err)
		}
		return boolValue(i)
	case kindTimestamp:
		// The layout has no fraction: time.Parse takes one anyway.
		t, err := time.Parse(time.DateTime, s)
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("timestamp %q: %w", s, err)
		}
		return rowcanon.TimestampOf(t)
	}
	return rowcanon.Value{}, fmt.Errorf("no canonical form for type %s", c.shown)
}

// scanRow converts one row of t's selectList and encodes it.
func (t canonTable) scanRow(vals []any, row []rowcanon.Column) (key, image []byte, err error) {
	for i, c := range t.cols {
		v, err := canonValue(c, vals[i])
		if err != nil {
			return nil, nil, err
		}
		row[i] = rowcanon.Column{Name: c.name, Value: v}
	}
	return backend.CanonicalRow(t.name, row, t.pk)
}

// preparer is what the canonical scans need: a prepared statement runs in
// the binary protocol, which gives floats their exact bits.
type preparer interface {
	querier
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// canonQuery runs query (a SELECT of t's selectList) with args, prepared,
// and calls fn with each row's key and image.
func (t canonTable) canonQuery(ctx context.Context, p preparer, query string, args []any, fn func(key, image []byte) error) error {
	stmt, err := p.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(t.cols))
	ptrs := make([]any, len(t.cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	row := make([]rowcanon.Column, len(t.cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		key, image, err := t.scanRow(vals, row)
		if err != nil {
			return err
		}
		if err := fn(key, image); err != nil {
			return err
		}
	}
	return rows.Err()
}

// canonRows reads every row of table with p, inside its transaction.
func (b *Backend) canonRows(ctx context.Context, p preparer, table string, fn func(key, image []byte) error) error {
	t, err := b.canonColumns(ctx, p, table)
	if err != nil {
		return err
	}
	err = t.canonQuery(ctx, p, "SELECT "+t.selectList()+" FROM "+quoteIdent(table), nil, fn)
	if err != nil {
		return fmt.Errorf("canonical rows of %s: %w", table, err)
	}
	return nil
}

// CanonicalRows implements backend.CanonicalReader, on a reader
// connection in one consistent snapshot of committed state (START
// TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY), without the readers'
// statement time limit (a whole table is read): the connection is then
// discarded rather than returned to the pool with the limit lifted.
func (b *Backend) CanonicalRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	conn, err := b.readers.Conn(ctx)
	if err != nil {
		return fmt.Errorf("canonical rows of %s: connect: %w", table, err)
	}
	defer discard(conn)
	lift := "SET SESSION max_statement_time = 0"
	if !b.flavor.mariadb {
		lift = "SET SESSION max_execution_time = 0"
	}
	for _, s := range []string{lift, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("canonical rows of %s: begin: %w", table, err)
		}
	}
	return b.canonRows(ctx, conn, table, fn)
}

// canonTablesSQL lists the replicated tables (base tables but relchain's).
const canonTablesSQL = `SELECT TABLE_NAME FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME NOT LIKE 'relchain\_%'`

// canonTables lists the replicated tables with q, sorted by bytes.
func canonTables(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, canonTablesSQL)
	if err != nil {
		return nil, fmt.Errorf("canonical tables: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("canonical tables: %w", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("canonical tables: %w", err)
	}
	sort.Strings(names)
	return names, nil
}

// CanonicalTables implements backend.CanonicalReader.
func (b *Backend) CanonicalTables(ctx context.Context) ([]string, error) {
	return canonTables(ctx, b.readers)
}
