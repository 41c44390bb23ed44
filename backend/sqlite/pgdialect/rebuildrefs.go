package pgdialect

import (
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A rebuilt table that other tables reference. SQLite's DROP TABLE
// deletes the old table's rows first (foreign keys are on, and cannot
// be switched off inside the block's transaction), and that delete runs
// the referencing tables' ON DELETE actions and checks: it would cascade
// into, null or refuse rows that must stay. So every table that
// references the rebuilt one, directly or through others (its
// dependents), is rebuilt with it, unchanged: each new table references
// the other new tables, the old ones are dropped referencing tables
// first (when one is dropped, no table left references it), and the
// renames point every reference back at the final names (SQLite
// rewrites REFERENCES clauses when a referenced table is renamed).
// PostgreSQL rewrites only the altered table; the rows, keys and
// actions come out the same.

// dependents are the tables that reference table directly or through
// others, sorted by name; a cycle of references among them (or back to
// table) is refused: no drop order would leave the others' rows alone.
func (t *translator) dependents(table string) ([]string, error) {
	seen := map[string]bool{table: true}
	queue := []string{table}
	var out []string
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, r := range t.referencedBy(n) {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
				queue = append(queue, r)
			}
		}
	}
	slices.Sort(out)
	if _, err := t.rebuildDropOrder(table, out); err != nil {
		return nil, err
	}
	return out, nil
}

// rebuildDropOrder is the order the old tables of a rebuild are dropped
// in: each after every table that references it (drop.go's dropOrder).
func (t *translator) rebuildDropOrder(table string, deps []string) ([]string, error) {
	if len(deps) == 0 {
		return []string{table}, nil
	}
	all := append([]string{table}, deps...)
	slices.Sort(all)
	order, err := t.dropOrder(all)
	if err != nil {
		return nil, refuse("ALTER TABLE %s (a rebuild) while the tables that reference it reference each other in a cycle", table)
	}
	return order, nil
}

// dependent is a referencing table rebuilt unchanged beside the altered one.
type dependent struct {
	table   string
	elems   []element
	cols    []string // quoted column names, in the table's order
	indexes []string
}

// loadDependent reads a dependent's schema.
func (t *translator) loadDependent(table string) (dependent, error) {
	create, indexes, ok := t.cat.(Schema).TableSQL(table)
	if !ok {
		return dependent{}, pgError("42P01", "relation %q does not exist", table)
	}
	elems, ok := parseCreate(create)
	if !ok {
		return dependent{}, refuse("ALTER TABLE of a table referenced by %s, whose schema the dialect cannot read", table)
	}
	d := dependent{table: table, elems: elems, indexes: indexes}
	for _, e := range elems {
		if e.col != "" {
			d.cols = append(d.cols, quoteIdent(e.col))
		}
	}
	return d, nil
}

// retarget points the REFERENCES clauses of ts at the new tables of
// renamed (old name -> new name).
func retarget(ts []token, renamed map[string]string) []token {
	out := slices.Clone(ts)
	for i := 0; i+1 < len(out); i++ {
		if word(out[i], "REFERENCES") {
			if n, ok := unquote(out[i+1].text); ok {
				if to, ok := renamed[n]; ok {
					out[i+1].text = quoteIdent(to)
				}
			}
		}
	}
	return out
}

// selfRestrictGuard refuses (0A000) the rebuild of a table with rows
// that reference it through a foreign key to itself that is ON DELETE
// RESTRICT: SQLite checks RESTRICT row by row while DROP TABLE deletes
// the old rows, so it would fail on rows that reference rows dropped
// with them.
func selfRestrictGuard(table string, elems []element) string {
	for _, e := range elems {
		cols, ok := selfRestrictColumns(e, table)
		if !ok {
			continue
		}
		var conds []string
		for _, c := range cols {
			conds = append(conds, c+" IS NOT NULL")
		}
		msg := "the postgres dialect on SQLite does not support ALTER TABLE (a rebuild) of " + table + " while its rows reference each other through a foreign key with ON DELETE RESTRICT"
		return "SELECT pg_raise('0A000', " + quoteString(msg) + ", count(*)) FROM " + quoteIdent(table) + " WHERE " + strings.Join(conds, " AND ") + " HAVING count(*) > 0"
	}
	return ""
}

// selfRestrictColumns are the referencing columns (quoted) of an element
// that is a foreign key of table to itself with ON DELETE RESTRICT.
func selfRestrictColumns(e element, table string) ([]string, bool) {
	ts := e.tokens
	at := find(ts, "REFERENCES")
	if at < 0 || at+1 >= len(ts) || find(ts[at:], "ON", "DELETE", "RESTRICT") < 0 {
		return nil, false
	}
	if n, ok := unquote(ts[at+1].text); !ok || n != table {
		return nil, false
	}
	if e.col != "" {
		return []string{quoteIdent(e.col)}, true
	}
	fk := find(ts, "FOREIGN", "KEY")
	if fk < 0 || fk+2 >= len(ts) {
		return nil, false
	}
	names := groupNames(ts[fk+2].text)
	return quoteIdents(names), len(names) > 0
}

// rebuildSteps are the statements of a rebuild with its dependents:
// the new tables filled, the old ones dropped in order, the renames and
// the indexes. create and copy are the altered table's own.
func (t *translator) rebuildSteps(al *alteration, create, copyRows string) ([]string, error) {
	deps, err := t.dependents(al.table)
	if err != nil {
		return nil, err
	}
	renamed := map[string]string{al.table: al.table + rebuildSuffix}
	for _, d := range deps {
		renamed[d] = d + rebuildSuffix
		if _, exists := t.cat.Columns(d + rebuildSuffix); exists {
			return nil, refuse("ALTER TABLE %s while a table %s exists", al.table, d+rebuildSuffix)
		}
	}
	var guards, out, renames, indexes []string
	if g := selfRestrictGuard(al.table, al.elems); g != "" {
		guards = append(guards, g)
	}
	out = append(out, create, copyRows)
	renames = append(renames, "ALTER TABLE "+quoteIdent(renamed[al.table])+" RENAME TO "+quoteIdent(al.table))
	for _, name := range deps {
		d, err := t.loadDependent(name)
		if err != nil {
			return nil, err
		}
		var defs []string
		for _, e := range d.elems {
			defs = append(defs, joinTokens(retarget(e.tokens, renamed)))
		}
		if g := selfRestrictGuard(d.table, d.elems); g != "" {
			guards = append(guards, g)
		}
		cols := strings.Join(d.cols, ", ")
		out = append(out,
			"CREATE TABLE "+quoteIdent(renamed[d.table])+" ("+strings.Join(defs, ", ")+")",
			"INSERT INTO "+quoteIdent(renamed[d.table])+" ("+cols+") SELECT "+cols+" FROM "+quoteIdent(d.table))
		renames = append(renames, "ALTER TABLE "+quoteIdent(renamed[d.table])+" RENAME TO "+quoteIdent(d.table))
		indexes = append(indexes, d.indexes...)
	}
	order, err := t.rebuildDropOrder(al.table, deps)
	if err != nil {
		return nil, err
	}
	for _, n := range order {
		out = append(out, "DROP TABLE "+quoteIdent(n))
	}
	out = append(out, al.drops...)
	out = append(out, renames...)
	out = append(out, al.indexes...)
	return append(append(guards, out...), indexes...), nil
}

// sameStorage reports whether a column's values keep their stored form
// and comparisons when its type changes from a to b (a foreign key
// between them compares as before): a typmod change, integers of any
// width, text and varchar.
func sameStorage(a, b Type) bool {
	switch {
	case isArray(a) || isArray(b):
		return a.Name == b.Name
	case a.Name == b.Name, isInt(a) && isInt(b), isText(a) && isText(b):
		return true
	}
	return false
}

// foreignKeyColumns are the table's own columns its foreign keys use.
func (al *alteration) foreignKeyColumns() []string {
	var out []string
	for _, e := range al.elems {
		at := find(e.tokens, "REFERENCES")
		switch {
		case at < 0:
		case e.col != "":
			out = append(out, e.col)
		default:
			if fk := find(e.tokens, "FOREIGN", "KEY"); fk >= 0 && fk+2 < len(e.tokens) {
				out = append(out, groupNames(e.tokens[fk+2].text)...)
			}
		}
	}
	return out
}

// keyColumnsReferenced are the table's columns that foreign keys (of other
// tables, or its own) reference: a REFERENCES list, or the primary key.
func (t *translator) keyColumnsReferenced(al *alteration) []string {
	var out []string
	scan := func(elems []element) {
		for _, e := range elems {
			at := find(e.tokens, "REFERENCES")
			if at < 0 || at+1 >= len(e.tokens) {
				continue
			}
			if n, ok := unquote(e.tokens[at+1].text); !ok || n != al.table {
				continue
			}
			if at+2 < len(e.tokens) && strings.HasPrefix(e.tokens[at+2].text, "(") {
				out = append(out, groupNames(e.tokens[at+2].text)...)
			} else {
				out = append(out, al.primaryKeyColumns()...)
			}
		}
	}
	scan(al.elems)
	for _, r := range t.referencedBy(al.table) {
		if create, _, ok := t.cat.(Schema).TableSQL(r); ok {
			elems, _ := parseCreate(create)
			scan(elems)
		}
	}
	return out
}

// primaryKeyColumns are the columns of the table's primary key.
func (al *alteration) primaryKeyColumns() []string {
	var out []string
	for _, c := range al.cols {
		if al.inPrimaryKey(c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// groupNames are the identifiers of a parenthesized list: ("a", "b").
func groupNames(group string) []string {
	inner, _ := tokenize(strings.TrimSuffix(strings.TrimPrefix(group, "("), ")"))
	var out []string
	for _, tok := range inner {
		if n, ok := unquote(tok.text); ok {
			out = append(out, n)
		} else if tok.text != "," {
			out = append(out, tok.text)
		}
	}
	return out
}

// retypeDefault converts the DEFAULT among a retyped column's clauses
// (rest) to the new type, as PostgreSQL casts the default expression:
// the dialect keeps a DEFAULT as the constant it converted once
// (defaultValue), so it converts that constant again, with the same
// rules.
func (t *translator) retypeDefault(rest []token, old, next Column) ([]token, error) {
	at := defaultAt(rest)
	if at < 0 {
		return rest, nil
	}
	konst, ok := parseStoredLiteral(rest[at+1].text)
	if !ok {
		return nil, refuse("ALTER COLUMN ... TYPE of a column whose DEFAULT is not a constant")
	}
	saved := t.deferred
	t.deferred = nil
	defer func() { t.deferred = saved }()
	sql, err := t.coerce(constOf(konst, old.Type, old.Name), next.Type, ctxAssignment)
	if errIs(err, "42804") {
		return nil, pgError("42804", "default for column %q cannot be cast automatically to type %s", next.Name, label(next.Type))
	}
	if err != nil {
		return nil, err
	}
	if t.deferred != nil {
		return nil, refuse("a DEFAULT whose value does not convert to its column's new type (%v)", t.deferred)
	}
	out := slices.Clone(rest)
	out[at+1] = token{text: "(" + sql + ")", space: rest[at+1].space}
	return out, nil
}

// parseStoredLiteral reads back a DEFAULT's constant as renderLiteral
// wrote it, in parentheses: NULL, an integer, a real, a string or a blob.
func parseStoredLiteral(s string) (any, bool) {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil, false
	}
	s = s[1 : len(s)-1]
	switch {
	case strings.EqualFold(s, "NULL"):
		return nil, true
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		body := s[1 : len(s)-1]
		if strings.Count(body, "'")%2 != 0 || strings.Contains(strings.ReplaceAll(body, "''", ""), "'") {
			return nil, false
		}
		return strings.ReplaceAll(body, "''", "'"), true
	case len(s) >= 3 && (s[0] == 'X' || s[0] == 'x') && s[1] == '\'' && s[len(s)-1] == '\'':
		b, err := hex.DecodeString(s[2 : len(s)-1])
		return b, err == nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	switch s {
	case "9e999":
		return math.Inf(1), true
	case "-9e999":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}
