package pgruntime

import (
	"fmt"
	"strings"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// catalog reads a connection's schema when asked (so it sees the open
// transaction's DDL). It also implements pgdialect.References.
type catalog struct {
	c *sqlite3.Conn
	// err is the first failure to read the schema (an interrupt, an I/O
	// error, SQLite out of memory): node-local, so the translation made
	// with this catalog is no verdict (CatalogError).
	err error
	// tables are the declared columns read so far, by table, when the
	// catalog serves one translation (NewTranslationCatalog): it asks
	// for the same table's columns several times (Columns, then Serial
	// for each column), and the schema does not change while it
	// translates. nil: every question reads the schema.
	tables map[string][]declared
	// shared, if not nil, holds what translations before this one read
	// on the same schema (Tables).
	shared *Tables
}

// Tables keeps the declared columns that translations on one schema have
// read, by table, for the translations after them (NewTranslationCatalog):
// on a node's committed state the schema changes only when a block that
// changed it commits, and each table's columns are otherwise read by every
// translation that names it. Its owner must stop using it once the schema
// it was filled on may have changed. It is safe for concurrent use; it
// keeps at most maxShared tables (a name that is no table is kept too, as
// an absence), past which it starts again empty.
type Tables struct {
	mu sync.Mutex
	m  map[string][]declared
}

// maxShared bounds a Tables.
const maxShared = 4096

func (s *Tables) get(table string) ([]declared, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cols, ok := s.m[table]
	return cols, ok
}

// put keeps cols, which nobody changes after.
func (s *Tables) put(table string, cols []declared) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxShared {
		s.m = make(map[string][]declared)
	}
	s.m[strings.Clone(table)] = cols
}

// declared is one column of a table as SQLite's table_info reports it.
type declared struct {
	name, typ string
	notNull   bool
}

// declaredColumns are table's columns in their order (none: no such
// table), read once per catalog; false when the schema could not be read.
func (k *catalog) declaredColumns(table string) ([]declared, bool) {
	if cols, ok := k.tables[table]; ok {
		return cols, true
	}
	if k.shared != nil {
		if cols, ok := k.shared.get(table); ok {
			k.tables[table] = cols
			return cols, true
		}
	}
	st, _, err := k.c.Prepare(`SELECT p.name, p.type, p."notnull" FROM sqlite_schema AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table' AND m.name = ?1 ORDER BY p.cid`)
	if k.failed(err) != nil {
		return nil, false
	}
	defer st.Close()
	if k.failed(st.BindText(1, table)) != nil {
		return nil, false
	}
	var cols []declared
	for st.Step() {
		cols = append(cols, declared{name: st.ColumnText(0), typ: st.ColumnText(1), notNull: st.ColumnInt64(2) != 0})
	}
	if k.failed(st.Err()) != nil {
		return nil, false
	}
	if k.tables != nil {
		k.tables[table] = cols
	}
	if k.shared != nil {
		k.shared.put(table, cols)
	}
	return cols, true
}

// failed records a failure to read the schema and returns it.
func (k *catalog) failed(err error) error {
	if err != nil && k.err == nil {
		k.err = fmt.Errorf("read the schema: %w", err)
	}
	return err
}

// CatalogError is the first failure of a Catalog NewCatalog returned to
// read its connection's schema, nil if none. A translation made while the
// schema could not be read (it answers "no such table" then) is no
// verdict on the statement: the caller must check CatalogError before it
// takes the translation's result or error, and treat a failure as its
// node's fault, never as the statement's.
func CatalogError(c pgdialect.Catalog) error {
	if k, ok := c.(*catalog); ok {
		return k.err
	}
	return nil
}

// NewCatalog returns the Catalog of c's schema: each table's columns with
// the PostgreSQL types CREATE TABLE declared. It reads the schema when
// asked, so it sees tables created earlier in c's open transaction.
// relchain's own tables (relchain_*) and SQLite's (sqlite_*) are not in
// it, nor a table with a column whose declared type the dialect did not
// write.
func NewCatalog(c *sqlite3.Conn) pgdialect.Catalog { return &catalog{c: c} }

// NewTranslationCatalog is NewCatalog for one translation, during which
// c's schema does not change: it reads each table's columns once (the
// translation of an INSERT asks for them once for the target, then once
// per column for its serial sequence). It answers as NewCatalog's would.
// shared, if not nil, is the columns that translations before it on the
// same schema read (Tables): it reads only the tables not in it, and adds
// them.
func NewTranslationCatalog(c *sqlite3.Conn, shared *Tables) pgdialect.Catalog {
	return &catalog{c: c, tables: make(map[string][]declared), shared: shared}
}

var (
	_ pgdialect.References = (*catalog)(nil)
	_ pgdialect.Indexes    = (*catalog)(nil)
	_ pgdialect.Serials    = (*catalog)(nil)
)

// Columns implements pgdialect.Catalog. Names match exactly (SQLite's own
// lookup folds ASCII case; PostgreSQL's quoted names do not).
func (k *catalog) Columns(table string) ([]pgdialect.Column, bool) {
	if strings.HasPrefix(table, "relchain_") || strings.HasPrefix(table, "sqlite_") {
		return nil, false
	}
	decl, ok := k.declaredColumns(table)
	if !ok || len(decl) == 0 {
		return nil, false
	}
	cols := make([]pgdialect.Column, 0, len(decl))
	for _, d := range decl {
		typ, ok := pgdialect.ParseDeclaredType(d.typ)
		if !ok {
			return nil, false
		}
		cols = append(cols, pgdialect.Column{Name: d.name, Type: typ, NotNull: d.notNull})
	}
	return cols, true
}

// ReferencedBy implements pgdialect.References: the other tables with a
// foreign key to table, by name.
func (k *catalog) ReferencedBy(table string) []string {
	st, _, err := k.c.Prepare(`SELECT DISTINCT m.name FROM sqlite_schema AS m, pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table' AND f."table" = ?1 AND m.name <> ?1 ORDER BY m.name`)
	if k.failed(err) != nil {
		return []string{"(unreadable schema)"}
	}
	defer st.Close()
	if k.failed(st.BindText(1, table)) != nil {
		return []string{"(unreadable schema)"}
	}
	var out []string
	for st.Step() {
		out = append(out, st.ColumnText(0))
	}
	if k.failed(st.Err()) != nil {
		return []string{"(unreadable schema)"}
	}
	return out
}

// HasIndex implements pgdialect.Indexes.
func (k *catalog) HasIndex(name string) bool {
	st, _, err := k.c.Prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?1`)
	if k.failed(err) != nil {
		return false
	}
	defer st.Close()
	if k.failed(st.BindText(1, name)) != nil {
		return false
	}
	found := st.Step()
	k.failed(st.Err())
	return found
}

// Serial implements pgdialect.Serials: the sequence a serial column's
// declared type names.
func (k *catalog) Serial(table, column string) (string, bool) {
	decl, _ := k.declaredColumns(table)
	for _, d := range decl {
		if d.name == column {
			return pgdialect.ParseSerial(d.typ)
		}
	}
	return "", false
}

// SequenceType implements pgdialect.Sequences: the integer type of the
// serial column whose sequence seq is (its declared type names it).
func (k *catalog) SequenceType(seq string) (pgdialect.Type, bool) {
	st, _, err := k.c.Prepare(`SELECT p.type FROM sqlite_schema AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table' AND m.name NOT LIKE 'relchain\_%' ESCAPE '\' AND p.type LIKE '% serial %' ORDER BY m.name, p.cid`)
	if k.failed(err) != nil {
		return pgdialect.Type{}, false
	}
	defer st.Close()
	for st.Step() {
		decl := st.ColumnText(0)
		if s, ok := pgdialect.ParseSerial(decl); ok && s == seq {
			return pgdialect.ParseDeclaredType(decl)
		}
	}
	k.failed(st.Err())
	return pgdialect.Type{}, false
}
