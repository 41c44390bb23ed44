package pgcatalog

import (
	"encoding/json"
	"fmt"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// buildDB builds the catalog database of s: an in-memory SQLite
// connection with pg_catalog and information_schema attached, every
// Relation created in its schema and filled, and every Function
// registered.
func buildDB(s *Schema) (*sqlite3.Conn, error) {
	m, err := newModel(s)
	if err != nil {
		return nil, err
	}
	db, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	if err := setUp(db, m); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func setUp(db *sqlite3.Conn, m *model) error {
	if err := createRelations(db); err != nil {
		return err
	}
	w := &writer{db: db, rels: relationsByName()}
	fillBuiltins(w, m)
	fillUserCatalog(w, m)
	fillInfoSchema(w, m)
	if w.err != nil {
		return w.err
	}
	return registerFunctions(db, m)
}

// createRelations attaches the two schemas and creates every Relation.
func createRelations(db *sqlite3.Conn) error {
	stmts := []string{
		"PRAGMA case_sensitive_like=ON",
		"ATTACH ':memory:' AS pg_catalog",
		"ATTACH ':memory:' AS information_schema",
	}
	for _, r := range Relations {
		stmts = append(stmts, createTable(r))
	}
	for _, q := range stmts {
		if err := db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// createTable is r's CREATE TABLE: each column's declared type gives the
// affinity doc.go's representation wants; pg_catalog's integer and bool
// columns default to 0 and its "char" columns to ” (as PostgreSQL's
// rows have them when a filler does not set them).
func createTable(r Relation) string {
	var cols []string
	for _, c := range r.Columns {
		decl, def := sqliteType(c.Type)
		col := fmt.Sprintf("%q %s", c.Name, decl)
		if r.Schema == pgCatalog && def != "" {
			col += " DEFAULT " + def
		}
		cols = append(cols, col)
	}
	return fmt.Sprintf("CREATE TABLE %s.%s (%s)", r.Schema, r.Name, strings.Join(cols, ", "))
}

// sqliteType is the declared type of a PostgreSQL type in the catalog
// database, and its default in pg_catalog ("" none).
func sqliteType(t string) (decl, def string) {
	switch {
	case strings.HasPrefix(t, "_"), t == "int2vector", t == "oidvector":
		return "TEXT", ""
	case t == "char":
		return "TEXT", "''"
	case t == "float4", t == "float8":
		return "REAL", "0"
	case t == "bool", t == "oid", t == "xid", strings.HasPrefix(t, "int"), strings.HasPrefix(t, "reg"):
		return "INTEGER", "0"
	}
	return "TEXT", ""
}

// relationsByName indexes Relations by "schema.name".
func relationsByName() map[string]*Relation {
	out := map[string]*Relation{}
	for i := range Relations {
		r := &Relations[i]
		out[r.Schema+"."+r.Name] = r
	}
	return out
}

// row is one row to insert: column name → value (nil, bool, int, int64,
// float64, string, or a slice stored as a JSON array).
type row map[string]any

// writer inserts rows, keeping the first error.
type writer struct {
	db   *sqlite3.Conn
	rels map[string]*Relation
	err  error
}

// insert adds one row to rel ("pg_catalog.pg_class"); a column not in
// the Relation is an error.
func (w *writer) insert(rel string, r row) {
	if w.err != nil {
		return
	}
	if err := w.insertRow(rel, r); err != nil {
		w.err = fmt.Errorf("insert into %s: %w", rel, err)
	}
}

func (w *writer) insertRow(rel string, r row) error {
	def := w.rels[rel]
	if def == nil {
		return fmt.Errorf("no such relation")
	}
	names, marks := make([]string, 0, len(r)), make([]string, 0, len(r))
	for _, c := range def.Columns {
		if _, ok := r[c.Name]; ok {
			names, marks = append(names, fmt.Sprintf("%q", c.Name)), append(marks, "?")
		}
	}
	if len(names) != len(r) {
		return fmt.Errorf("a column of %v is not the relation's", keys(r))
	}
	stmt, _, err := w.db.Prepare(fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", rel,
		strings.Join(names, ","), strings.Join(marks, ",")))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, n := range names {
		if err := bindValue(stmt, i+1, r[strings.Trim(n, `"`)]); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return stmt.Exec()
}

func keys(r row) []string {
	out := make([]string, 0, len(r))
	for k := range r {
		out = append(out, k)
	}
	return out
}

// bindValue binds a row value as doc.go's representation stores it.
func bindValue(s *sqlite3.Stmt, i int, v any) error {
	switch x := v.(type) {
	case nil:
		return s.BindNull(i)
	case bool:
		return s.BindBool(i, x)
	case int:
		return s.BindInt64(i, int64(x))
	case int64:
		return s.BindInt64(i, x)
	case float64:
		return s.BindFloat(i, x)
	case string:
		return s.BindText(i, x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if string(b) == "null" { // a nil slice: NULL, not the JSON null
		return s.BindNull(i)
	}
	return s.BindText(i, string(b))
}
