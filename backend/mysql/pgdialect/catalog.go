package pgdialect

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Querier runs a query: *sql.DB, *sql.Conn and *sql.Tx are Queriers.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SchemaCatalog is a Catalog reading MariaDB's information_schema on q,
// in the database the connection uses: each column's PostgreSQL type is
// the one its COMMENT keeps (pg:int4); a column without one (a table the
// dialect did not create) has a type no expression accepts.
type SchemaCatalog struct {
	Ctx context.Context
	Q   Querier
	// Err is the first error reading the schema (the table is then
	// reported missing).
	Err error
}

const catalogSQL = `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_COMMENT, IS_NULLABLE, COLUMN_DEFAULT IS NOT NULL, DATA_TYPE, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0)
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`

// Columns implements Catalog.
func (c *SchemaCatalog) Columns(table string) ([]Column, bool) {
	if strings.ContainsFunc(table, func(r rune) bool { return r > 0xFFFF }) {
		// No MariaDB name (utf8mb3) holds it, and information_schema
		// fails the comparison (1267): no such table.
		return nil, false
	}
	cols, err := c.read(table)
	if err != nil {
		if c.Err == nil {
			c.Err = err
		}
		return nil, false
	}
	return cols, len(cols) > 0
}

// read reads table's columns.
func (c *SchemaCatalog) read(table string) ([]Column, error) {
	rows, err := c.Q.QueryContext(c.Ctx, catalogSQL, table)
	if err != nil {
		return nil, fmt.Errorf("pgdialect catalog: columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []Column
	for rows.Next() {
		var tbl, name, comment, nullable, dataType string
		var hasDefault bool
		var maxChars uint64
		if err := rows.Scan(&tbl, &name, &comment, &nullable, &hasDefault, &dataType, &maxChars); err != nil {
			return nil, fmt.Errorf("pgdialect catalog: columns of %s: %w", table, err)
		}
		if tbl != table { // information_schema may compare names ignoring case
			continue
		}
		typ, ok := parseTypeString(strings.TrimPrefix(comment, commentPrefix))
		if !strings.HasPrefix(comment, commentPrefix) || !ok {
			typ = Type{Name: "mariadb " + dataType, Typmod: -1}
		}
		c := Column{Name: name, Type: typ, NotNull: nullable == "NO", Default: hasDefault}
		if isText(typ) && maxChars > 0 && maxChars < 1<<20 {
			c.MaxChars = int(maxChars)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgdialect catalog: columns of %s: %w", table, err)
	}
	return cols, nil
}

// CommentType is the PostgreSQL type a column's COMMENT keeps (pg:int4,
// pg:varchar(20)), as CREATE TABLE's translation writes it; false for
// another comment (a table the dialect did not create).
func CommentType(comment string) (Type, bool) {
	if !strings.HasPrefix(comment, commentPrefix) {
		return Type{}, false
	}
	return parseTypeString(strings.TrimPrefix(comment, commentPrefix))
}
