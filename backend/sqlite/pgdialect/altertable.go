package pgdialect

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// constraintAt is the index of the element that holds the constraint
// named name, under an explicit CONSTRAINT or PostgreSQL's default name
// for an unnamed one (t_pkey, t_a_b_key, t_a_fkey, t_c_check; a column's
// own PRIMARY KEY, UNIQUE or REFERENCES likewise), or -1.
func (al *alteration) constraintAt(name string) int {
	for i, names := range al.allConstraintNames() {
		if slices.Contains(names, name) {
			return i
		}
	}
	return -1
}

// allConstraintNames are the names of each element's constraints. An
// unnamed CHECK gets PostgreSQL's choice: t_c_check when its expression
// uses the one column c, else t_check, with 1, 2 ... appended while the
// name is taken (by any named constraint, or an earlier unnamed CHECK).
func (al *alteration) allConstraintNames() [][]string {
	out := make([][]string, len(al.elems))
	taken := map[string]bool{}
	for i, e := range al.elems {
		out[i] = al.constraintNames(e)
		for _, n := range out[i] {
			taken[n] = true
		}
	}
	for i, e := range al.elems {
		for j, tok := range e.tokens {
			if word(tok, "CHECK") && constraintNameOf(e.tokens, j) == "" && j+1 < len(e.tokens) {
				n := freeName(al.table, al.checkColumn(quotedNames(e.tokens[j+1].text)), "check", taken)
				taken[n] = true
				out[i] = append(out[i], n)
			}
		}
	}
	return out
}

// freeName is PostgreSQL's ChooseConstraintName: ObjectName(name1, name2,
// label), or with the first of 1, 2 ... appended to label that makes it a
// name not taken.
func freeName(name1, name2, label string, taken map[string]bool) string {
	n := ObjectName(name1, name2, label)
	for k := 1; taken[n]; k++ {
		n = ObjectName(name1, name2, label+strconv.Itoa(k))
	}
	return n
}

// newName is PostgreSQL's choice of a name for a new constraint of the
// table on columns name2 ("" none) of kind label.
func (al *alteration) newName(name2, label string) string {
	taken := map[string]bool{}
	for _, names := range al.allConstraintNames() {
		for _, n := range names {
			taken[n] = true
		}
	}
	return freeName(al.table, name2, label, taken)
}

// checkColumn is the column an unnamed CHECK is named after (t_c_check):
// the one column it uses, or "" (t_check) when it uses more or none.
func (al *alteration) checkColumn(used []string) string {
	var cols []string
	for _, u := range used {
		if al.colIndex(u) >= 0 && !slices.Contains(cols, u) {
			cols = append(cols, u)
		}
	}
	if len(cols) == 1 {
		return cols[0]
	}
	return ""
}

// quotedNames are the quoted identifiers in an SQL text the translator
// wrote (string literals skipped).
func quotedNames(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '"' && s[i] != '\'' {
			continue
		}
		end, ok := tokenEnd(s, i)
		if !ok {
			return out
		}
		if s[i] == '"' {
			n, _ := unquote(s[i:end])
			out = append(out, n)
		}
		i = end - 1
	}
	return out
}

// constraintNames are the names of the constraints an element holds.
func (al *alteration) constraintNames(e element) []string {
	var out []string
	for _, c := range al.constraintsOf(e) {
		out = append(out, c.name)
	}
	return out
}

// namedConstraint is a constraint's name and kind (pkey, key, fkey).
type namedConstraint struct{ name, kind string }

// constraintsOf are the constraints an element holds, but its unnamed
// CHECKs (named by allConstraintNames: it depends on the names taken).
func (al *alteration) constraintsOf(e element) []namedConstraint {
	var out []namedConstraint
	for i, tok := range e.tokens {
		var kind, cols string
		switch {
		case word(tok, "PRIMARY"):
			kind = "pkey"
		case word(tok, "UNIQUE"):
			kind = "key"
		case word(tok, "REFERENCES") && e.col != "", word(tok, "FOREIGN"):
			kind = "fkey"
		case word(tok, "CHECK"):
			kind = "check"
		default:
			continue
		}
		if n := constraintNameOf(e.tokens, i); n != "" {
			out = append(out, namedConstraint{n, kind})
			continue
		}
		cols = e.col
		if e.col == "" && kind != "pkey" && kind != "check" {
			cols = keyListAfter(e.tokens, i)
		}
		switch kind {
		case "pkey":
			out = append(out, namedConstraint{ObjectName(al.table, "", "pkey"), kind})
		case "check":
		default:
			out = append(out, namedConstraint{ObjectName(al.table, cols, kind), kind})
		}
	}
	return out
}

// keyListAfter is a table constraint's column list after the keyword at
// i, joined with _ as PostgreSQL's default names join them.
func keyListAfter(ts []token, i int) string {
	for j := i + 1; j < len(ts); j++ {
		if strings.HasPrefix(ts[j].text, "(") {
			inner, ok := tokenize(ts[j].text[1 : len(ts[j].text)-1])
			if !ok {
				return ""
			}
			var names []string
			for _, t := range inner {
				if t.text != "," {
					n, _ := unquote(t.text)
					names = append(names, n)
				}
			}
			return strings.Join(names, "_")
		}
	}
	return ""
}

// dropConstraint drops a table constraint, or a column's own PRIMARY
// KEY, UNIQUE or REFERENCES clause; a key other tables may reference is
// refused (PostgreSQL would need CASCADE or fail with 2BP01).
func (t *translator) dropConstraint(al *alteration, name string, missingOk bool) error {
	i := al.constraintAt(name)
	if i < 0 {
		if missingOk {
			return nil
		}
		return pgError("42704", "constraint %q of relation %q does not exist", name, al.table)
	}
	e := al.elems[i]
	isKey := find(e.tokens, "PRIMARY", "KEY") >= 0 || find(e.tokens, "UNIQUE") >= 0
	if isKey && len(t.referencedBy(al.table)) > 0 {
		return refuse("DROP CONSTRAINT of a key of a table other tables reference")
	}
	if e.col == "" {
		al.elems = slices.Delete(al.elems, i, i+1)
		return nil
	}
	ts, ok := withoutClause(e.tokens, name, al)
	if !ok {
		return refuse("DROP CONSTRAINT of a column's constraint the dialect cannot isolate")
	}
	al.elems[i].tokens = ts
	return nil
}

// withoutClause removes the column constraint named name from a column
// element's tokens: [CONSTRAINT n] PRIMARY KEY | UNIQUE | REFERENCES t
// (cols) [ON DELETE|UPDATE action]...
func withoutClause(ts []token, name string, al *alteration) ([]token, bool) {
	e := element{col: "", tokens: ts}
	for i, tok := range ts {
		if !word(tok, "PRIMARY") && !word(tok, "UNIQUE") && !word(tok, "REFERENCES") {
			continue
		}
		e.col = unquoteFirst(ts)
		names := al.constraintNames(element{col: e.col, tokens: ts[:i+1]})
		if len(names) == 0 || names[len(names)-1] != name {
			continue
		}
		start, end := i, clauseEnd(ts, i)
		if constraintNameOf(ts, i) != "" {
			start = i - 2
		}
		return append(ts[:start:start], ts[end:]...), true
	}
	return nil, false
}

func unquoteFirst(ts []token) string {
	n, _ := unquote(ts[0].text)
	return n
}

// clauseEnd is the end of the column constraint clause starting at i.
func clauseEnd(ts []token, i int) int {
	switch {
	case word(ts[i], "PRIMARY"):
		return i + 2
	case word(ts[i], "UNIQUE"):
		return i + 1
	}
	j := i + 2 // REFERENCES "t"
	if j < len(ts) && strings.HasPrefix(ts[j].text, "(") {
		j++
	}
	for j+1 < len(ts) && word(ts[j], "ON") {
		j += 2
		switch {
		case j < len(ts) && (word(ts[j], "SET") || word(ts[j], "NO")):
			j += 2
		default:
			j++
		}
	}
	return min(j, len(ts))
}

// alterColumnType is ALTER COLUMN c TYPE t [USING e]: the new declared
// type, each row's value converted as PostgreSQL's assignment cast (or
// the USING expression assigned), with PostgreSQL's errors.
func (t *translator) alterColumnType(al *alteration, cmd *pg_query.AlterTableCmd) error {
	name := cmd.GetName()
	i, err := al.column(name)
	if err != nil {
		return err
	}
	cd := cmd.GetDef().GetColumnDef()
	if cd.GetCollClause() != nil {
		return refuse("ALTER COLUMN ... TYPE ... COLLATE")
	}
	typ, err := typeFromName(cd.GetTypeName())
	if err != nil {
		return err
	}
	e := al.elems[i]
	if serial(e) {
		return refuse("ALTER COLUMN ... TYPE of a serial column")
	}
	for j, o := range al.elems {
		if j != i && mentions(o.tokens, name) && find(o.tokens, "CHECK") >= 0 {
			return refuse("ALTER COLUMN ... TYPE of a column a CHECK constraint uses")
		}
	}
	old := al.cols[al.colIndex(name)]
	if !sameStorage(old.Type, typ) && (slices.Contains(al.foreignKeyColumns(), name) || slices.Contains(t.keyColumnsReferenced(al), name)) {
		return refuse("ALTER COLUMN ... TYPE of a column a FOREIGN KEY uses or references, to a type stored differently (%s to %s)", label(old.Type), label(typ))
	}
	if al.retyped[name] {
		return pgError("0A000", "cannot alter type of column %q twice", name)
	}
	al.retyped[name] = true
	next := Column{Name: name, Type: typ, NotNull: old.NotNull}
	src, err := t.convertColumn(al, old, next, cmd.GetDef().GetColumnDef().GetRawDefault())
	if err != nil {
		return err
	}
	al.source[name] = src
	rest, err := t.retypeDefault(e.tokens[typeEnd(e.tokens):], old, next)
	if err != nil {
		return err
	}
	al.elems[i].tokens = append(tokensOf(quoteIdent(name)+" "+DeclaredType(typ)+Collation(typ)), rest...)
	al.cols[al.colIndex(name)] = next
	return nil
}

// convertColumn is the SQL of a row's new value: the USING expression
// over the old row (the columns as they were before the ALTER), or the
// column, assigned to the new type.
func (t *translator) convertColumn(al *alteration, old, next Column, using *pg_query.Node) (string, error) {
	v := value{sql: quoteIdent(old.Name), typ: old.Type, name: old.Name}
	if using != nil {
		sc := &scope{rels: []rel{{cols: al.old, bare: true}}}
		t.inDDL = true
		var err error
		v, err = t.expr(using, sc)
		t.inDDL = false
		if err != nil {
			return "", err
		}
	}
	sql, err := t.coerce(v, next.Type, ctxAssignment)
	if errIs(err, "42804") {
		if using != nil {
			return "", pgError("42804", "result of USING clause for column %q cannot be cast automatically to type %s", next.Name, label(next.Type))
		}
		return "", pgError("42804", "column %q cannot be cast automatically to type %s", next.Name, label(next.Type))
	}
	return sql, err
}

// projection is the new rows as a subquery over the old table: each new
// column's value (a kept column's source, an added column's DEFAULT or
// NULL). (The rowid is not used: SQLite's gate refuses reading it.)
func (al *alteration) projection() string {
	var cols []string
	for _, e := range al.elems {
		if e.col == "" {
			continue
		}
		cols = append(cols, al.valueOf(e)+" AS "+quoteIdent(e.col))
	}
	return "(SELECT " + strings.Join(cols, ", ") + " FROM " + quoteIdent(al.table) + ")"
}

// valueOf is a new column's value from the old row.
func (al *alteration) valueOf(e element) string {
	if s, ok := al.source[e.col]; ok && !al.added[e.col] {
		return s
	}
	if i := defaultAt(e.tokens); i >= 0 {
		return e.tokens[i+1].text
	}
	return "NULL"
}

// guard is a statement that raises code with msg when a new row matches
// cond.
func (al *alteration) guard(code, msg, cond string) string {
	return "SELECT pg_raise(" + quoteString(code) + ", " + quoteString(msg) + ", " + al.rowValue("") + ") FROM " + al.projection() + " WHERE " + cond + ""
}

// rowValue is a value of the new row (its first column), passed to
// pg_raise so that SQLite cannot evaluate the call once, as a constant,
// before it reads a row.
func (al *alteration) rowValue(qualifier string) string {
	for _, e := range al.elems {
		if e.col != "" {
			return qualifier + quoteIdent(e.col)
		}
	}
	return "NULL"
}
