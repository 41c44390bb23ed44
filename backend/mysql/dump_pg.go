package mysql

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/sqlcheck/pgnames"
)

// DumpPostgres is Dump for a database of the postgres SQL dialect (a
// backend opened WithPostgresDialect): it writes the replicated tables as
// PostgreSQL's SQL, the text a PostgreSQL or SQLite validator's dump of
// the same state is (issue 37: a MariaDB validator moves to another
// engine, its checkpoints serve nodes of other engines). For each table,
// in byte order of its name: its CREATE TABLE with each column's
// PostgreSQL type (the type the dialect keeps in the column's COMMENT),
// NOT NULL, default, primary key, UNIQUE and CHECK constraints, then its
// rows as INSERTs of PostgreSQL's literals in primary-key order (in order
// of all columns for a table without one), then its other indexes; all in
// one transaction. Constraints have PostgreSQL's default names (t_pkey,
// t_a_b_key, t_a_check); a unique index MariaDB named itself (after its
// first column) is written as a UNIQUE constraint, one created by CREATE
// UNIQUE INDEX as that. A CHECK is written back from MariaDB's text of
// the dialect's translation and must translate to that text again
// (dump_pgcheck.go). It reads one snapshot as Dump does and returns the
// height that snapshot holds.
//
// What PostgreSQL's SQL cannot say as MariaDB holds it is the dump's
// error, naming the table and column, found before anything is written
// (a value, when its row is read): a table or column the dialect did not
// create (no pg: type, AUTO_INCREMENT, generated, foreign keys, views),
// a CHECK or default the reverse translation does not read (a string
// holding '?' among them: information_schema shows a character beyond
// the BMP as '?'), an index over an expression
// or a prefix the dialect does not make, a bool that is neither 0 nor 1,
// a text holding NUL.
func DumpPostgres(ctx context.Context, dsn string, w io.Writer) (int64, error) {
	s, err := openDumpSession(ctx, dsn)
	if err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	defer s.close()
	if !s.flavor.mariadb {
		return 0, fmt.Errorf("dump: the postgres SQL dialect runs on MariaDB only; this server is %s", s.flavor.version)
	}
	tables, err := readPgDumpSchema(ctx, s.conn)
	if err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "-- relchain dump of the replicated tables at height %d (PostgreSQL's SQL)\n", s.height)
	io.WriteString(bw, "SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\nBEGIN;\n")
	for _, t := range tables {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := writePgTable(ctx, s.conn, t, bw); err != nil {
			return 0, fmt.Errorf("dump %s: %w", t.Name, err)
		}
	}
	io.WriteString(bw, "COMMIT;\n")
	return s.height, bw.Flush()
}

// pgDumpTable is one table as DumpPostgres writes it: in PostgreSQL's
// terms (columns with their PostgreSQL types and defaults, key, UNIQUE
// constraints, CHECK constraints as PostgreSQL's SQL), the indexes
// written after its rows and its columns' dialect types.
type pgDumpTable struct {
	pgcatalog.Table
	types   []pgdialect.Type
	indexes []pgDumpIndex
	stored  []string // MariaDB's CHECK clauses, in the order of Checks
	taken   map[string]bool
}

// pgDumpIndex is an index written as CREATE [UNIQUE] INDEX.
type pgDumpIndex struct {
	name    string
	unique  bool
	columns []string
	desc    []bool
}

// column is the index of t's column name, or -1.
func (t *pgDumpTable) column(name string) int {
	return slices.IndexFunc(t.Columns, func(c pgcatalog.Column) bool { return c.Name == name })
}

// pgDumpIndexesSQL lists the indexes' columns with their order and
// prefix length (0: the whole column), in schemaIndexesSQL's order.
const pgDumpIndexesSQL = `SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME, COALESCE(COLLATION, 'A'), COALESCE(SUB_PART, 0)
		FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME, INDEX_NAME = 'PRIMARY' DESC, BINARY INDEX_NAME, SEQ_IN_INDEX`

// readPgDumpSchema reads the replicated tables of the snapshot q reads,
// in byte order of their names, as DumpPostgres writes them.
func readPgDumpSchema(ctx context.Context, q querier) ([]*pgDumpTable, error) {
	r := &pgDumpReader{q: q, byName: map[string]*pgDumpTable{}}
	steps := []struct {
		what string
		fn   func(context.Context) error
	}{
		{"tables", r.readTables}, {"columns", r.readColumns}, {"foreign keys", r.readForeignKeys},
		{"indexes", r.readIndexes}, {"checks", r.readChecks},
	}
	for _, s := range steps {
		if err := s.fn(ctx); err != nil {
			return nil, fmt.Errorf("read the schema's %s: %w", s.what, err)
		}
	}
	pgConstraintNames(r.tables)
	for _, t := range r.tables {
		if err := pgChecks(t); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	return r.tables, nil
}

// pgDumpReader builds the tables of a dump from information_schema.
type pgDumpReader struct {
	q      querier
	tables []*pgDumpTable
	byName map[string]*pgDumpTable
}

// each runs query and calls fn after scanning every row into dest.
func (r *pgDumpReader) each(ctx context.Context, query string, dest []any, fn func() error) error {
	return scanEach(ctx, r.q, query, dest, fn)
}

// table is the table name, or an error naming it.
func (r *pgDumpReader) table(name string) (*pgDumpTable, error) {
	if t := r.byName[name]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("table %s appeared while the schema was read", name)
}

// readTables lists the tables; a view, a system-versioned table or a
// table comment is an error (the dialect makes none).
func (r *pgDumpReader) readTables(ctx context.Context) error {
	var name, kind, comment string
	return r.each(ctx, schemaTablesSQL, []any{&name, &kind, &comment}, func() error {
		switch {
		case kind != "BASE TABLE":
			return fmt.Errorf("%s is a %s, which the postgres dialect does not make: it cannot be dumped as PostgreSQL's SQL", name, strings.ToLower(kind))
		}
		pkey, ok := pgdialect.PrimaryKeyName(name, comment)
		if !ok {
			return fmt.Errorf("table %s has a comment, which the postgres dialect does not make: it cannot be dumped as PostgreSQL's SQL", name)
		}
		t := &pgDumpTable{Table: pgcatalog.Table{Name: name, PrimaryKeyName: pkey}}
		r.tables = append(r.tables, t)
		r.byName[name] = t
		return nil
	})
}

// readColumns adds every column in PostgreSQL's terms (pgDumpColumn).
func (r *pgDumpReader) readColumns(ctx context.Context) error {
	var m mysqlColumn
	dest := []any{&m.table, &m.name, &m.dflt, &m.nullable, &m.dataType, &m.columnType,
		&m.charLen, &m.prec, &m.scale, &m.timePrec, &m.extra, &m.comment}
	return r.each(ctx, schemaColumnsSQL, dest, func() error {
		t, err := r.table(m.table)
		if err != nil {
			return err
		}
		c, typ, err := pgDumpColumn(m)
		if err != nil {
			return fmt.Errorf("table %s: %w", m.table, err)
		}
		t.Columns, t.types = append(t.Columns, c), append(t.types, typ)
		return nil
	})
}

// pgDumpColumn is column m in PostgreSQL's terms: the type its COMMENT
// names (which MariaDB must store as the dialect stores it, see
// pgKindOf), NOT NULL and its default (pgDumpDefault).
func pgDumpColumn(m mysqlColumn) (pgcatalog.Column, pgdialect.Type, error) {
	typ, ok := pgdialect.CommentType(m.comment)
	if !ok {
		return pgcatalog.Column{}, typ, fmt.Errorf("column %s (%s) has no PostgreSQL type: the postgres dialect did not create it, so it cannot be dumped as PostgreSQL's SQL", m.name, m.columnType)
	}
	if k, desc := pgKindOf(m.comment, m.dataType, m.columnType); k == kindNone {
		return pgcatalog.Column{}, typ, fmt.Errorf("column %s: %s is not a column the postgres dialect makes", m.name, desc)
	}
	if _, ok := pgcatalog.FormatType(typ.Name, typ.Typmod); !ok {
		return pgcatalog.Column{}, typ, fmt.Errorf("column %s: type %s unknown to the catalog", m.name, typ.Name)
	}
	if x := strings.TrimSpace(m.extra); x != "" {
		return pgcatalog.Column{}, typ, fmt.Errorf("column %s is %s, which the postgres dialect does not make", m.name, strings.ToLower(x))
	}
	def, err := pgDumpDefault(m.dflt, typ)
	if err != nil {
		return pgcatalog.Column{}, typ, fmt.Errorf("column %s: default %s: %w", m.name, m.dflt.String, err)
	}
	return pgcatalog.Column{Name: m.name, Type: typ.Name, Typmod: typ.Typmod, NotNull: m.nullable == "NO", Default: def}, typ, nil
}

// readForeignKeys fails on a foreign key: the dialect makes none.
func (r *pgDumpReader) readForeignKeys(ctx context.Context) error {
	var table, name, column, refTable, refColumn, onUpdate, onDelete string
	dest := []any{&table, &name, &column, &refTable, &refColumn, &onUpdate, &onDelete}
	return r.each(ctx, schemaForeignKeysSQL, dest, func() error {
		return fmt.Errorf("table %s has the foreign key %s, which the postgres dialect does not make: it cannot be dumped as PostgreSQL's SQL", table, name)
	})
}

// indexPart is one row of pgDumpIndexesSQL.
type indexPart struct {
	table, name string
	nonUnique   int64
	column      sql.NullString
	collation   string
	subPart     int64
}

// readIndexes adds the primary keys, the UNIQUE constraints (a unique
// index MariaDB named after its first column: UNIQUE in CREATE TABLE)
// and the indexes (CREATE [UNIQUE] INDEX).
func (r *pgDumpReader) readIndexes(ctx context.Context) error {
	var parts []indexPart
	var p indexPart
	dest := []any{&p.table, &p.name, &p.nonUnique, &p.column, &p.collation, &p.subPart}
	flush := func() error {
		if len(parts) == 0 {
			return nil
		}
		t, err := r.table(parts[0].table)
		if err == nil {
			err = addPgIndex(t, parts)
		}
		parts = parts[:0]
		return err
	}
	err := r.each(ctx, pgDumpIndexesSQL, dest, func() error {
		if len(parts) > 0 && (parts[0].table != p.table || parts[0].name != p.name) {
			if err := flush(); err != nil {
				return err
			}
		}
		parts = append(parts, p)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// mariaUniqueName matches the names MariaDB gives a UNIQUE constraint:
// its first column's, with _2, _3 … on a clash.
func mariaUniqueName(name, first string) bool {
	rest, ok := strings.CutPrefix(name, first)
	if !ok || rest == "" {
		return ok
	}
	n, err := strconv.Atoi(strings.TrimPrefix(rest, "_"))
	return err == nil && n >= 2 && rest == "_"+strconv.Itoa(n)
}

// addPgIndex adds the index of parts (its columns in order) to t.
func addPgIndex(t *pgDumpTable, parts []indexPart) error {
	ix := pgDumpIndex{name: parts[0].name, unique: parts[0].nonUnique == 0}
	anyDesc := false
	for _, p := range parts {
		if !p.column.Valid {
			return fmt.Errorf("table %s: index %s has an expression, which the postgres dialect does not make", t.Name, ix.name)
		}
		if err := checkPrefix(t, ix, p); err != nil {
			return err
		}
		ix.columns = append(ix.columns, p.column.String)
		ix.desc = append(ix.desc, p.collation == "D")
		anyDesc = anyDesc || p.collation == "D"
	}
	switch {
	case ix.name == "PRIMARY" && anyDesc:
		return fmt.Errorf("table %s: a primary key in descending order, which the postgres dialect does not make", t.Name)
	case ix.name == "PRIMARY":
		t.PrimaryKey = ix.columns
	case ix.unique && !anyDesc && ix.name == pgnames.ObjectName(t.Name, strings.Join(ix.columns, "_"), "key"):
		// A UNIQUE constraint the dialect named as PostgreSQL does.
		t.Uniques = append(t.Uniques, pgcatalog.Unique{Name: ix.name, Columns: ix.columns})
	case ix.unique && !anyDesc && mariaUniqueName(ix.name, ix.columns[0]):
		// One MariaDB named (the dialect before it kept PostgreSQL's names).
		t.Uniques = append(t.Uniques, pgcatalog.Unique{Columns: ix.columns})
	default:
		t.indexes = append(t.indexes, ix)
	}
	return nil
}

// checkPrefix accepts a key part p of ix unless it indexes a prefix of
// its column that the dialect does not make: it makes the first 255
// characters of a text, bytea or long varchar column in an index that is
// not unique (PostgreSQL's index holds the whole value, which orders the
// same).
func checkPrefix(t *pgDumpTable, ix pgDumpIndex, p indexPart) error {
	if p.subPart == 0 {
		return nil
	}
	i := t.column(p.column.String)
	if i >= 0 && !ix.unique && p.subPart == 255 {
		switch typ := t.types[i]; {
		case typ.Name == "text", typ.Name == "bytea", typ.Name == "varchar" && typ.Typmod-4 > 768:
			return nil
		}
	}
	return fmt.Errorf("table %s: index %s holds a prefix of %d of column %s, which the postgres dialect does not make", t.Name, ix.name, p.subPart, p.column.String)
}

// constraintNumber reads MariaDB's name of an unnamed CHECK constraint,
// CONSTRAINT_<n>: every CHECK the dialect makes is one.
var constraintNumber = regexp.MustCompile(`^CONSTRAINT_([0-9]+)$`)

// readChecks adds each table's CHECK clauses in the order of their
// numbers (the order CREATE TABLE gave them).
func (r *pgDumpReader) readChecks(ctx context.Context) error {
	var table, name, clause string
	nums := map[*pgDumpTable][]int{}
	err := r.each(ctx, schemaChecksMariaDBSQL, []any{&table, &name, &clause}, func() error {
		t, err := r.table(table)
		if err != nil {
			return err
		}
		m := constraintNumber.FindStringSubmatch(name)
		if m == nil {
			return fmt.Errorf("table %s: the CHECK constraint %s is not one the postgres dialect makes", table, name)
		}
		n, _ := strconv.Atoi(m[1])
		at, _ := slices.BinarySearch(nums[t], n)
		nums[t] = slices.Insert(nums[t], at, n)
		t.stored = slices.Insert(t.stored, at, clause)
		t.Checks = append(t.Checks, pgcatalog.Check{})
		return nil
	})
	return err
}

// pgConstraintNames names the primary keys, UNIQUE and CHECK constraints
// of tables as PostgreSQL names them when CREATE TABLE names none
// (ChooseConstraintName: t_pkey, t_a_b_key, t_a_check for a CHECK over
// one column, t_check otherwise; clipped to 63 bytes, a number appended
// on a clash with a relation or constraint already named). The CHECK
// names are set by pgChecks, which reads their columns.
func pgConstraintNames(tables []*pgDumpTable) {
	taken := map[string]bool{}
	for _, t := range tables {
		taken[t.Name] = true
		if len(t.PrimaryKey) > 0 {
			taken[t.PrimaryKeyName] = true
		}
		for _, ix := range t.indexes {
			taken[ix.name] = true
		}
		for _, u := range t.Uniques {
			if u.Name != "" {
				taken[u.Name] = true
			}
		}
	}
	for _, t := range tables {
		t.taken = taken
		for i := range t.Uniques {
			if t.Uniques[i].Name == "" {
				t.Uniques[i].Name = t.chooseName(strings.Join(t.Uniques[i].Columns, "_"), "key")
			}
		}
	}
}

// chooseName is PostgreSQL's name <table>_<name2>_<label> (clipped,
// numbered on a clash) for a constraint of t, taken from then on.
func (t *pgDumpTable) chooseName(name2, label string) string {
	name := pgnames.ObjectName(t.Name, name2, label)
	for i := 1; t.taken[name]; i++ {
		name = pgnames.ObjectName(t.Name, name2, label+strconv.Itoa(i))
	}
	t.taken[name] = true
	return name
}

// writePgTable writes t's CREATE TABLE, its rows and its indexes.
func writePgTable(ctx context.Context, q querier, t *pgDumpTable, w io.Writer) error {
	io.WriteString(w, createTableText(t))
	if err := writePgRows(ctx, q, t, w); err != nil {
		return err
	}
	for _, ix := range t.indexes {
		cols := make([]string, len(ix.columns))
		for i, c := range ix.columns {
			cols[i] = pgcatalog.QuoteIdent(c)
			if ix.desc[i] {
				cols[i] += " DESC"
			}
		}
		def := pgcatalog.IndexDef(t.Name, pgcatalog.Index{Name: ix.name, Unique: ix.unique})
		fmt.Fprintf(w, "%s(%s);\n", strings.TrimSuffix(def, "()"), strings.Join(cols, ", "))
	}
	return nil
}

// createTableText is t's CREATE TABLE in PostgreSQL's SQL.
func createTableText(t *pgDumpTable) string {
	var els []string
	for _, col := range t.Columns {
		typ, _ := pgcatalog.FormatType(col.Type, col.Typmod)
		el := pgcatalog.QuoteIdent(col.Name) + " " + typ
		if col.Default != "" {
			el += " DEFAULT " + col.Default
		}
		if col.NotNull {
			el += " NOT NULL"
		}
		els = append(els, el)
	}
	if len(t.PrimaryKey) > 0 {
		els = append(els, "CONSTRAINT "+pgcatalog.QuoteIdent(t.PrimaryKeyName)+" "+pgcatalog.PrimaryKeyDef(t.PrimaryKey))
	}
	for _, u := range t.Uniques {
		els = append(els, "CONSTRAINT "+pgcatalog.QuoteIdent(u.Name)+" "+pgcatalog.UniqueDef(u))
	}
	for _, k := range t.Checks {
		els = append(els, "CONSTRAINT "+pgcatalog.QuoteIdent(k.Name)+" CHECK "+k.Expr)
	}
	return "CREATE TABLE " + pgcatalog.QuoteIdent(t.Name) + " (\n    " + strings.Join(els, ",\n    ") + "\n);\n"
}

// writePgRows writes t's rows as INSERTs of PostgreSQL's literals
// (pgLiteral) in primary-key order (a table without one: in order of all
// its columns, which MariaDB's binary collations make total).
func writePgRows(ctx context.Context, q querier, t *pgDumpTable, w io.Writer) error {
	sel := make([]string, len(t.Columns))
	pg := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		sel[i], pg[i] = quoteIdent(c.Name), pgcatalog.QuoteIdent(c.Name)
	}
	order := make([]string, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		order[i] = quoteIdent(k)
	}
	if len(order) == 0 {
		for i := range sel {
			order = append(order, strconv.Itoa(i+1))
		}
	}
	rows, err := q.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+quoteIdent(t.Name)+" ORDER BY "+strings.Join(order, ", "))
	if err != nil {
		return fmt.Errorf("rows: %w", err)
	}
	defer rows.Close()
	raw := make([]sql.RawBytes, len(sel))
	ptrs := make([]any, len(sel))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	prefix := "INSERT INTO " + pgcatalog.QuoteIdent(t.Name) + " (" + strings.Join(pg, ", ") + ") VALUES ("
	vals := make([]string, len(sel))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("rows: %w", err)
		}
		for i, c := range raw {
			if vals[i], err = pgLiteral(t.types[i], c); err != nil {
				return fmt.Errorf("column %s: %w", t.Columns[i].Name, err)
			}
		}
		if _, err := io.WriteString(w, prefix+strings.Join(vals, ", ")+");\n"); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rows: %w", err)
	}
	return nil
}

// pgLiteral is MariaDB's text c of a value of PostgreSQL type t as a
// PostgreSQL literal that reads back as the value the read path returns
// for it (pgValue): an integer or numeric as it is, a float8 as the
// shortest text that reads back as the same double, bool as true or
// false, bytea in hex, the others quoted.
func pgLiteral(t pgdialect.Type, c []byte) (string, error) {
	if c == nil {
		return "NULL", nil
	}
	switch t.Name {
	case "bool":
		switch string(c) {
		case "0":
			return "false", nil
		case "1":
			return "true", nil
		}
		return "", fmt.Errorf("%s in a bool column (TINYINT(1)): neither 0 nor 1", c)
	case "text", "varchar":
		if slices.Contains(c, 0) {
			return "", fmt.Errorf("a text holding NUL, which PostgreSQL's text cannot")
		}
	case "numeric":
		if !numberLit.Match(c) {
			return "", fmt.Errorf("%q is not a number", c)
		}
		return string(c), nil
	}
	v, err := pgValue(t, c)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return "'" + strconv.FormatFloat(x, 'g', -1, 64) + "'", nil
	case []byte:
		return `'\x` + hex.EncodeToString(x) + "'", nil
	case string:
		return pgQuoteLiteral(x), nil
	}
	return "", fmt.Errorf("a %T value of type %s", v, t.Name)
}
