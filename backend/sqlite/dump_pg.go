package sqlite

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// DumpPostgres is Dump for a database of the postgres SQL dialect: it
// writes the replicated tables as PostgreSQL's SQL, which psql runs into
// an empty PostgreSQL database, from the schema the emulated catalog shows
// (schemaOf): for each table, in byte order of its name, the sequences of
// its serial columns, its CREATE TABLE with PostgreSQL's types, defaults,
// NOT NULL, primary key, UNIQUE and CHECK constraints, the sequences'
// owners (OWNED BY the column) and current values (setval), its rows as
// INSERTs with PostgreSQL's literals in primary-key order and its
// indexes; then every foreign key as ALTER TABLE; all in one transaction.
// A CHECK is written back from the translation SQLite keeps
// (dump_pgcheck.go); a table whose CHECK or default cannot be written
// exactly is the dump's error, found before anything is written, never a
// different constraint.
func DumpPostgres(ctx context.Context, path string, w io.Writer) (int64, error) {
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READONLY|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return 0, fmt.Errorf("dump: open %s: %w", path, err)
	}
	defer c.Close()
	if err := c.Exec("BEGIN"); err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	defer c.Exec("ROLLBACK")
	st, err := readState(c)
	if err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	s, err := dumpSchema(c)
	if err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	checks := make([][]string, len(s.Tables))
	for i, t := range s.Tables {
		if checks[i], err = pgChecks(c, t); err != nil {
			return 0, fmt.Errorf("dump %s: %w", t.Name, err)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "-- relchain dump of the replicated tables at height %d (PostgreSQL's SQL)\n", st.Height)
	io.WriteString(bw, "SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\nBEGIN;\n")
	for i, t := range s.Tables {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := dumpPgTable(c, s, t, checks[i], bw); err != nil {
			return 0, fmt.Errorf("dump %s: %w", t.Name, err)
		}
	}
	for _, t := range s.Tables {
		for _, fk := range t.ForeignKeys {
			fk.RefTable = tableName(s, fk.RefTable)
			fmt.Fprintf(bw, "ALTER TABLE %s ADD CONSTRAINT %s %s;\n", pgIdent(t.Name), pgIdent(fk.Name), pgcatalog.ForeignKeyDef(fk))
		}
	}
	io.WriteString(bw, "COMMIT;\n")
	return st.Height, bw.Flush()
}

// pgIdent is a name as PostgreSQL's quote_ident prints it.
func pgIdent(name string) string { return pgcatalog.QuoteIdent(name) }

// dumpSchema is the schema the emulated catalog shows, its tables in
// byte order of their names and their indexes in byte order of theirs (an
// order every node's copy of the file gives, whatever the order of
// sqlite_schema). A user table the catalog does not show (neither a
// table of the dialect nor a sequence's state) is an error: the dump
// would leave it out.
func dumpSchema(c *sqlite3.Conn) (*pgcatalog.Schema, error) {
	s, err := schemaOf(c)
	if err != nil {
		return nil, err
	}
	stored, err := userTables(c)
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for _, t := range s.Tables {
		shown[t.Name] = true
	}
	for _, q := range s.Sequences {
		shown[q.Name] = true
	}
	for _, t := range stored {
		if !shown[t.name] {
			return nil, fmt.Errorf("table %s has a column type the postgres dialect did not write: it cannot be dumped as PostgreSQL's SQL", t.name)
		}
	}
	slices.SortStableFunc(s.Tables, func(a, b pgcatalog.Table) int { return strings.Compare(a.Name, b.Name) })
	for i := range s.Tables {
		slices.SortStableFunc(s.Tables[i].Indexes, func(a, b pgcatalog.Index) int { return strings.Compare(a.Name, b.Name) })
	}
	return s, nil
}

// tableName is the name of s's table that ref names (SQLite's foreign
// key list gives the name as REFERENCES wrote it; SQLite folds ASCII
// case).
func tableName(s *pgcatalog.Schema, ref string) string {
	for _, t := range s.Tables {
		if strings.EqualFold(t.Name, ref) {
			return t.Name
		}
	}
	return ref
}

// dumpPgTable writes one table, checks its CHECK expressions as
// PostgreSQL's SQL: its sequences, CREATE TABLE, the sequences' owner
// (the column) and values, its rows and its indexes.
func dumpPgTable(c *sqlite3.Conn, s *pgcatalog.Schema, t pgcatalog.Table, checks []string, w io.Writer) error {
	var seqs []pgcatalog.Sequence
	for _, q := range s.Sequences {
		if q.OwnedByTable == t.Name {
			seqs = append(seqs, q)
		}
	}
	for _, q := range seqs {
		typ, _ := pgcatalog.FormatType(q.Type, -1)
		fmt.Fprintf(w, "CREATE SEQUENCE %s AS %s START WITH %d INCREMENT BY %d MINVALUE %d MAXVALUE %d NO CYCLE;\n",
			pgIdent(q.Name), typ, q.Start, q.Increment, q.Min, q.Max)
	}
	def, err := createTableText(t, checks)
	if err != nil {
		return err
	}
	io.WriteString(w, def)
	for _, q := range seqs {
		fmt.Fprintf(w, "ALTER SEQUENCE %s OWNED BY %s.%s;\n", pgIdent(q.Name), pgIdent(q.OwnedByTable), pgIdent(q.OwnedByColumn))
		if err := dumpSequence(c, q, w); err != nil {
			return err
		}
	}
	if err := dumpPgRows(c, t, w); err != nil {
		return err
	}
	for _, ix := range t.Indexes {
		def, err := indexText(c, t.Name, ix)
		if err != nil {
			return fmt.Errorf("index %s: %w", ix.Name, err)
		}
		fmt.Fprintf(w, "%s;\n", def)
	}
	return nil
}

// indexText is ix's CREATE INDEX as pg_get_indexdef prints it, with the
// columns SQLite keeps in descending order marked DESC (the catalog's
// Index does not record the order).
func indexText(c *sqlite3.Conn, table string, ix pgcatalog.Index) (string, error) {
	var cols []string
	desc := false
	err := eachRow(c, `SELECT name, "desc" FROM pragma_index_xinfo(`+quoteLiteral(ix.Name)+`) WHERE key ORDER BY seqno`, func(st *sqlite3.Stmt) error {
		col := pgIdent(st.ColumnText(0))
		if st.ColumnInt64(1) != 0 {
			col, desc = col+" DESC", true
		}
		cols = append(cols, col)
		return nil
	})
	if err != nil || !desc {
		return pgcatalog.IndexDef(table, ix), err
	}
	def := pgcatalog.IndexDef(table, pgcatalog.Index{Name: ix.Name, Unique: ix.Unique})
	return strings.TrimSuffix(def, "()") + "(" + strings.Join(cols, ", ") + ")", nil
}

// createTableText is t's CREATE TABLE in PostgreSQL's SQL, checks its
// CHECK expressions.
func createTableText(t pgcatalog.Table, checks []string) (string, error) {
	var els []string
	for _, col := range t.Columns {
		typ, ok := pgcatalog.FormatType(col.Type, col.Typmod)
		if !ok {
			return "", fmt.Errorf("column %s: type %s unknown to the catalog", col.Name, col.Type)
		}
		el := pgIdent(col.Name) + " " + typ
		if col.Default != "" {
			el += " DEFAULT " + col.Default
		}
		if col.NotNull {
			el += " NOT NULL"
		}
		els = append(els, el)
	}
	if len(t.PrimaryKey) > 0 {
		els = append(els, "CONSTRAINT "+pgIdent(t.PrimaryKeyName)+" "+pgcatalog.PrimaryKeyDef(t.PrimaryKey))
	}
	for _, u := range t.Uniques {
		els = append(els, "CONSTRAINT "+pgIdent(u.Name)+" "+pgcatalog.UniqueDef(u))
	}
	for i, k := range t.Checks {
		els = append(els, "CONSTRAINT "+pgIdent(k.Name)+" CHECK "+checks[i])
	}
	return "CREATE TABLE " + pgIdent(t.Name) + " (\n    " + strings.Join(els, ",\n    ") + "\n);\n", nil
}

// dumpSequence writes setval of q to the value its state table holds.
func dumpSequence(c *sqlite3.Conn, q pgcatalog.Sequence, w io.Writer) error {
	found := false
	err := eachRow(c, `SELECT last_value, is_called FROM `+quoteIdent(q.Name), func(st *sqlite3.Stmt) error {
		found = true
		fmt.Fprintf(w, "SELECT pg_catalog.setval(%s, %d, %t);\n", quoteLiteral(pgIdent(q.Name)), st.ColumnInt64(0), st.ColumnInt64(1) != 0)
		return nil
	})
	if err == nil && !found {
		err = fmt.Errorf("sequence %s has no state", q.Name)
	}
	return err
}

// dumpPgRows writes t's rows as INSERTs in primary-key order (a table
// without one: in the order of its columns' values, which every node's
// copy gives alike).
func dumpPgRows(c *sqlite3.Conn, t pgcatalog.Table, w io.Writer) error {
	names := make([]string, len(t.Columns))
	types := make([]pgdialect.Type, len(t.Columns))
	for i, col := range t.Columns {
		names[i] = quoteIdent(col.Name)
		types[i] = pgdialect.Type{Name: col.Type, Typmod: col.Typmod}
	}
	var order []string
	for _, k := range t.PrimaryKey {
		order = append(order, quoteIdent(k))
	}
	if len(order) == 0 {
		for _, n := range names {
			order = append(order, n+" COLLATE BINARY")
		}
	}
	prefix := "INSERT INTO " + pgIdent(t.Name) + " (" + pgIdentList(t.Columns) + ") VALUES ("
	sql := "SELECT " + strings.Join(names, ", ") + " FROM " + quoteIdent(t.Name) + " ORDER BY " + strings.Join(order, ", ")
	return eachRow(c, sql, func(st *sqlite3.Stmt) error {
		var b strings.Builder
		b.WriteString(prefix)
		for i := range types {
			if i > 0 {
				b.WriteString(", ")
			}
			v, err := pgLiteral(st, i, types[i])
			if err != nil {
				return fmt.Errorf("column %s: %w", t.Columns[i].Name, err)
			}
			b.WriteString(v)
		}
		b.WriteString(");\n")
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// pgIdentList is the columns' names as PostgreSQL quotes them, joined.
func pgIdentList(cols []pgcatalog.Column) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = pgIdent(c.Name)
	}
	return strings.Join(q, ", ")
}

// pgLiteral is column i of the current row, of PostgreSQL type t, as a
// PostgreSQL literal that reads back as the same value: the value the
// read path returns for it (pgruntime.Value), written as PostgreSQL's
// input function reads it.
func pgLiteral(st *sqlite3.Stmt, i int, t pgdialect.Type) (string, error) {
	var raw any
	switch st.ColumnType(i) {
	case sqlite3.NULL:
		return "NULL", nil
	case sqlite3.INTEGER:
		raw = st.ColumnInt64(i)
	case sqlite3.FLOAT:
		raw = st.ColumnFloat(i)
	case sqlite3.TEXT:
		raw = st.ColumnText(i)
	case sqlite3.BLOB:
		raw = st.ColumnBlob(i, nil)
	}
	if f, ok := raw.(float64); ok && (t.Name == "float4" || t.Name == "float8") {
		return floatLiteral(f, t.Name), nil
	}
	v, err := pgruntime.Value(t, raw)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case []byte:
		return `'\x` + hex.EncodeToString(x) + "'", nil
	case string:
		if t.Name == "numeric" {
			return x, nil
		}
		return quoteLiteral(x), nil
	}
	return "", fmt.Errorf("a %T value", v)
}

// floatLiteral is a stored float of type typ (float4 or float8) as the
// shortest text that float4in or float8in reads back as the same value,
// quoted. A float4 is stored as the float64 of a float32 (the dialect
// rounds on assignment).
func floatLiteral(f float64, typ string) string {
	switch {
	case math.IsInf(f, 1):
		return "'Infinity'"
	case math.IsInf(f, -1):
		return "'-Infinity'"
	}
	bits := 64
	if typ == "float4" {
		bits = 32
	}
	return "'" + strconv.FormatFloat(f, 'g', -1, bits) + "'"
}

// pgChecks are t's CHECK expressions as PostgreSQL's SQL, each in
// parentheses, in the order of t.Checks.
// They are verified with the defaults (verifyTable).
func pgChecks(c *sqlite3.Conn, t pgcatalog.Table) ([]string, error) {
	var stored []string
	sql := ""
	err := eachRow(c, `SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = `+quoteLiteral(t.Name), func(st *sqlite3.Stmt) error {
		sql = st.ColumnText(0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range parseConstraints(sql) {
		if k.kind == 'c' {
			stored = append(stored, strings.TrimSpace(k.expr))
		}
	}
	if len(stored) != len(t.Checks) {
		return nil, fmt.Errorf("%d CHECK constraints in the schema, %d in the catalog", len(stored), len(t.Checks))
	}
	p := &checkPrinter{cols: map[string]pgdialect.Type{}}
	for _, col := range t.Columns {
		p.cols[col.Name] = pgdialect.Type{Name: col.Type, Typmod: col.Typmod}
	}
	out := make([]string, len(stored))
	for i, s := range stored {
		n, err := parseCheck(s)
		if err == nil {
			out[i], err = p.print(n, "bool")
		}
		if err != nil {
			return nil, fmt.Errorf("CHECK constraint %s %s: %w", t.Checks[i].Name, s, err)
		}
		if !strings.HasPrefix(out[i], "(") {
			out[i] = "(" + out[i] + ")"
		}
	}
	if err := verifyTable(t, sql, out); err != nil {
		return nil, err
	}
	return out, nil
}
