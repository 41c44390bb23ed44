package pgnames

import (
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// MaxNameBytes is PostgreSQL's longest name (NAMEDATALEN - 1).
const MaxNameBytes = 63

// ObjectName is PostgreSQL's makeObjectName, the default name of a
// sequence, constraint or index: name1_name2_label (name1_label when
// name2 is ""), name1 and name2 clipped (the longer first, at a character
// boundary) to fit in MaxNameBytes.
func ObjectName(name1, name2, label string) string {
	avail := MaxNameBytes - len(label) - 1
	if name2 != "" {
		avail--
	}
	n1, n2 := len(name1), len(name2)
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := clip(name1, n1)
	if name2 != "" {
		out += "_" + clip(name2, n2)
	}
	return out + "_" + label
}

// clip is s cut to at most n bytes at a UTF-8 character boundary.
func clip(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// KeyIndex is the index a CREATE TABLE makes for one PRIMARY KEY or
// UNIQUE constraint.
type KeyIndex struct {
	Name    string
	Named   bool // the statement names it (CONSTRAINT name)
	Primary bool
}

// KeyIndexes are the indexes CREATE TABLE table with elements elts makes
// for its PRIMARY KEY and UNIQUE constraints (a column's own and the
// table's), each named by its CONSTRAINT or PostgreSQL's default: t_pkey,
// t_a_key, t_a_b_key (the columns joined by _).
func KeyIndexes(table string, elts []*pg_query.Node) []KeyIndex {
	var out []KeyIndex
	add := func(c *pg_query.Constraint, cols []string) {
		k := KeyIndex{Name: c.GetConname(), Named: c.GetConname() != ""}
		switch c.GetContype() {
		case pg_query.ConstrType_CONSTR_PRIMARY:
			k.Primary = true
			if !k.Named {
				k.Name = ObjectName(table, "", "pkey")
			}
		case pg_query.ConstrType_CONSTR_UNIQUE:
			if !k.Named {
				k.Name = ObjectName(table, strings.Join(cols, "_"), "key")
			}
		default:
			return
		}
		out = append(out, k)
	}
	for _, e := range elts {
		if d := e.GetColumnDef(); d != nil {
			for _, cn := range d.GetConstraints() {
				add(cn.GetConstraint(), []string{d.GetColname()})
			}
		}
	}
	for _, e := range elts {
		if c := e.GetConstraint(); c != nil {
			var cols []string
			for _, k := range c.GetKeys() {
				cols = append(cols, k.GetString_().GetSval())
			}
			add(c, cols)
		}
	}
	return out
}

// Clash is the first of keys whose name PostgreSQL could not give it in
// a schema where taken reports the relations: one taken, the table's own
// name, or another key's. Named keys come first, in order (PostgreSQL
// reserves the names a statement gives before it chooses the others): one
// that clashes fails there (42P07). For a default one that clashes
// PostgreSQL would choose another name (t_pkey1), which the translations
// do not follow.
func Clash(table string, keys []KeyIndex, taken func(string) bool) (KeyIndex, bool) {
	seen := map[string]bool{table: true}
	for _, named := range []bool{true, false} {
		for _, k := range keys {
			if k.Named != named {
				continue
			}
			if seen[k.Name] || taken(k.Name) {
				return k, true
			}
			seen[k.Name] = true
		}
	}
	return KeyIndex{}, false
}
