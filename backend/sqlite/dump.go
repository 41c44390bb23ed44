package sqlite

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// openDumpSnapshot opens the database at path read-only and begins the
// one snapshot a dump reads, with the state it holds.
func openDumpSnapshot(path string) (*sqlite3.Conn, backend.State, error) {
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return nil, backend.State{}, fmt.Errorf("dump: open %s: %w", path, err)
	}
	if err := c.Exec("BEGIN"); err != nil {
		c.Close()
		return nil, backend.State{}, fmt.Errorf("dump: %w", err)
	}
	st, err := readState(c)
	if err != nil {
		closeDumpSnapshot(c)
		return nil, backend.State{}, fmt.Errorf("dump: %w", err)
	}
	return c, st, nil
}

// closeDumpSnapshot ends a dump's snapshot and its connection.
func closeDumpSnapshot(c *sqlite3.Conn) {
	c.Exec("ROLLBACK")
	c.Close()
}

// Dump writes the replicated tables of the database at path to w as SQL
// text that SQLite runs: for each table, in byte order of its name, its
// CREATE TABLE, its rows as INSERTs ordered by primary key (by rowid for a
// table without one), then its indexes. relchain's own tables and capture
// triggers are left out. It reads one snapshot on a read-only connection
// of its own, so a running node goes on committing blocks, and returns the
// height that snapshot holds.
func Dump(ctx context.Context, path string, w io.Writer) (int64, error) {
	c, st, err := openDumpSnapshot(path)
	if err != nil {
		return 0, err
	}
	defer closeDumpSnapshot(c)
	type object struct{ name, sql, kind, table string }
	var objs []object
	err = eachRow(c, `SELECT name, sql, type, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index') AND sql IS NOT NULL
		AND tbl_name NOT LIKE 'sqlite\_%' ESCAPE '\' AND tbl_name NOT LIKE 'relchain\_%' ESCAPE '\'
		ORDER BY tbl_name, type DESC, name`, func(s *sqlite3.Stmt) error {
		objs = append(objs, object{s.ColumnText(0), s.ColumnText(1), s.ColumnText(2), s.ColumnText(3)})
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("dump: list tables: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "-- relchain dump of the replicated tables at height %d\nBEGIN;\n", st.Height)
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		fmt.Fprintf(bw, "%s;\n", o.sql)
		if o.kind == "table" {
			if err := dumpRows(c, o.name, bw); err != nil {
				return 0, fmt.Errorf("dump %s: %w", o.name, err)
			}
		}
	}
	fmt.Fprintf(bw, "COMMIT;\n")
	return st.Height, bw.Flush()
}

// dumpRows writes the rows of table as INSERTs in primary-key order.
func dumpRows(c *sqlite3.Conn, table string, w io.Writer) error {
	var pk []string
	err := eachRow(c, `SELECT name FROM pragma_table_info(`+quoteLiteral(table)+`) WHERE pk > 0 ORDER BY pk`, func(s *sqlite3.Stmt) error {
		pk = append(pk, quoteIdent(s.ColumnText(0)))
		return nil
	})
	if err != nil {
		return err
	}
	order := "rowid"
	if len(pk) > 0 {
		order = strings.Join(pk, ", ")
	}
	prefix := "INSERT INTO " + quoteIdent(table) + " VALUES ("
	return eachRow(c, "SELECT * FROM "+quoteIdent(table)+" ORDER BY "+order, func(s *sqlite3.Stmt) error {
		var b strings.Builder
		b.WriteString(prefix)
		for i := range s.ColumnCount() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sqlLiteral(s, i))
		}
		b.WriteString(");\n")
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// sqlLiteral is column i of the current row as a literal of its storage
// class that reads back as the same value.
func sqlLiteral(s *sqlite3.Stmt, i int) string {
	switch s.ColumnType(i) {
	case sqlite3.INTEGER:
		return strconv.FormatInt(s.ColumnInt64(i), 10)
	case sqlite3.FLOAT:
		f := s.ColumnFloat(i)
		switch {
		case math.IsInf(f, 1):
			return "9e999"
		case math.IsInf(f, -1):
			return "-9e999"
		}
		t := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(t, ".eEn") {
			t += ".0"
		}
		return t
	case sqlite3.TEXT:
		return quoteLiteral(s.ColumnText(i))
	case sqlite3.BLOB:
		return "X'" + hex.EncodeToString(s.ColumnRawBlob(i)) + "'"
	}
	return "NULL"
}

// eachRow runs sql and calls fn on each row.
func eachRow(c *sqlite3.Conn, sql string, fn func(*sqlite3.Stmt) error) error {
	s, _, err := c.Prepare(sql)
	if err != nil {
		return err
	}
	defer s.Close()
	for s.Step() {
		if err := fn(s); err != nil {
			return err
		}
	}
	return s.Err()
}
