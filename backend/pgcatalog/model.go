package pgcatalog

import (
	"fmt"
	"slices"
)

// model is the Schema with its objects' oids, which the catalog rows and
// the functions share. Oids are numbered from firstUserOid in the
// Schema's order: for each table the table, its row type, its row type's
// array type, one pg_attrdef row per column default (column order), then
// the primary key's index and constraint, each unique's index and
// constraint, each index, each foreign key, each check; for each view the
// view, its row type and array type; for each sequence the sequence.
type model struct {
	s         *Schema
	rels      []*relObj // tables, views, sequences, indexes in oid order
	relByOid  map[int64]*relObj
	relByName map[string]*relObj
	cons      []*consObj
	consByOid map[int64]*consObj
	defs      []*attrDef
	next      int64
}

// relObj is a user relation: a table ('r'), view ('v'), sequence ('S')
// or index ('i').
type relObj struct {
	oid, rowType, arrayType int64
	name                    string
	kind                    string
	cols                    []Column
	table                   *Table
	view                    *View
	seq                     *Sequence
	index                   *indexObj
	cons                    []*consObj // a table's constraints
	indexes                 []*relObj  // a table's indexes
	comment                 string
}

// indexObj is an index: of table, unique or not, on cols; cons the
// constraint it backs (nil for none).
type indexObj struct {
	table           *relObj
	unique, primary bool
	cols            []string
	cons            *consObj
}

// consObj is a constraint of table: typ 'p', 'u', 'f' or 'c'.
type consObj struct {
	oid   int64
	name  string
	typ   string
	table *relObj
	cols  []string
	index *relObj // 'p', 'u': the index; 'f': the referenced key's index
	fk    *ForeignKey
	ref   *relObj
	check string // 'c': the expression as pg_get_expr prints it
}

// attrDef is one column default (pg_attrdef).
type attrDef struct {
	oid    int64
	table  *relObj
	attnum int
	expr   string
}

// newModel numbers s's objects (see model).
func newModel(s *Schema) (*model, error) {
	m := &model{s: s, relByOid: map[int64]*relObj{}, relByName: map[string]*relObj{},
		consByOid: map[int64]*consObj{}, next: firstUserOid}
	for i := range s.Tables {
		m.addTable(&s.Tables[i])
	}
	for i := range s.Views {
		v := &s.Views[i]
		m.addRel(&relObj{name: v.Name, kind: "v", cols: v.Columns, view: v}, true)
	}
	for i := range s.Sequences {
		q := &s.Sequences[i]
		m.addRel(&relObj{name: q.Name, kind: "S", seq: q}, false)
	}
	if err := m.resolveForeignKeys(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *model) oid() int64 { m.next++; return m.next - 1 }

// addRel numbers r (with a row type and its array type when typed).
func (m *model) addRel(r *relObj, typed bool) {
	r.oid = m.oid()
	if typed {
		r.rowType, r.arrayType = m.oid(), m.oid()
	}
	m.rels = append(m.rels, r)
	m.relByOid[r.oid] = r
	m.relByName[r.name] = r
}

func (m *model) addTable(t *Table) {
	r := &relObj{name: t.Name, kind: "r", cols: t.Columns, table: t, comment: t.Comment}
	m.addRel(r, true)
	for i, c := range t.Columns {
		if c.Default != "" {
			m.defs = append(m.defs, &attrDef{oid: m.oid(), table: r, attnum: i + 1, expr: c.Default})
		}
	}
	if len(t.PrimaryKey) > 0 {
		name := t.PrimaryKeyName
		if name == "" {
			name = t.Name + "_pkey"
		}
		m.addKey(r, name, "p", t.PrimaryKey)
	}
	for _, u := range t.Uniques {
		m.addKey(r, u.Name, "u", u.Columns)
	}
	for _, ix := range t.Indexes {
		m.addIndex(r, ix.Name, ix.Unique, ix.Columns)
	}
	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		m.addCons(&consObj{name: fk.Name, typ: "f", table: r, cols: fk.Columns, fk: fk})
	}
	for _, c := range t.Checks {
		m.addCons(&consObj{name: c.Name, typ: "c", table: r, cols: checkColumns(c.Expr, t.Columns),
			check: parenthesized(c.Expr)})
	}
}

// addKey adds a primary key or unique constraint and its index.
func (m *model) addKey(r *relObj, name, typ string, cols []string) {
	ix := m.addIndex(r, name, true, cols)
	ix.index.primary = typ == "p"
	c := &consObj{name: name, typ: typ, table: r, cols: cols, index: ix}
	ix.index.cons = c
	m.addCons(c)
}

func (m *model) addIndex(r *relObj, name string, unique bool, cols []string) *relObj {
	ix := &relObj{name: name, kind: "i", index: &indexObj{table: r, unique: unique, cols: cols}}
	for _, c := range cols {
		if col, ok := r.column(c); ok {
			ix.cols = append(ix.cols, Column{Name: c, Type: col.Type, Typmod: col.Typmod})
		}
	}
	m.addRel(ix, false)
	r.indexes = append(r.indexes, ix)
	return ix
}

func (m *model) addCons(c *consObj) {
	c.oid = m.oid()
	m.cons = append(m.cons, c)
	m.consByOid[c.oid] = c
	c.table.cons = append(c.table.cons, c)
}

// resolveForeignKeys finds each foreign key's referenced table and the
// unique index over its referenced columns.
func (m *model) resolveForeignKeys() error {
	for _, c := range m.cons {
		if c.typ != "f" {
			continue
		}
		ref := m.relByName[c.fk.RefTable]
		if ref == nil || ref.kind != "r" {
			return fmt.Errorf("foreign key %s: no table %q", c.name, c.fk.RefTable)
		}
		c.ref = ref
		for _, ix := range ref.indexes {
			if ix.index.unique && slices.Equal(ix.index.cols, c.fk.RefColumns) {
				c.index = ix
				break
			}
		}
	}
	return nil
}

// column returns r's column named name.
func (r *relObj) column(name string) (Column, bool) {
	_, c, ok := r.attnum(name)
	return c, ok
}

// attnum returns the 1-based number of r's column named name.
func (r *relObj) attnum(name string) (int, Column, bool) {
	for i, c := range r.cols {
		if c.Name == name {
			return i + 1, c, true
		}
	}
	return 0, Column{}, false
}

// attnums returns the numbers of r's columns named names.
func (r *relObj) attnums(names []string) []int64 {
	out := make([]int64, 0, len(names))
	for _, n := range names {
		i, _, _ := r.attnum(n)
		out = append(out, int64(i))
	}
	return out
}

// nspOid is the namespace of the Schema's objects.
func (r *relObj) nspOid() int64 { return nsPublic }
