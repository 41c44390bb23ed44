package pgcatalog

import (
	"fmt"
	"regexp"
	"strings"
)

// formatType is format_type(oid, typmod) as PostgreSQL prints it; hasMod
// false is a NULL typmod. Unknown oids print "???".
func (m *model) formatType(oid, typmod int64, hasMod bool) string {
	if r := m.rowTypeRel(oid); r != nil {
		if oid == r.arrayType {
			return quoteIdent(r.name) + "[]"
		}
		return quoteIdent(r.name)
	}
	t := typesByOid[oid]
	if t == nil {
		return "???"
	}
	if t.category == "A" && t.elem != 0 {
		if e := typesByOid[t.elem]; e != nil {
			return m.formatType(e.oid, typmod, hasMod) + "[]"
		}
	}
	if !hasMod {
		return t.fmtNull
	}
	if typmod < 0 {
		return t.fmtNoMod
	}
	return withTypmod(t, typmod)
}

// withTypmod prints a type with its modifier (typmod >= 0).
func withTypmod(t *pgType, typmod int64) string {
	switch t.name {
	case "varchar", "bpchar":
		return fmt.Sprintf("%s(%d)", t.fmtNull, typmod-4)
	case "bit", "varbit":
		return fmt.Sprintf("%s(%d)", t.fmtNull, typmod)
	case "numeric":
		m := typmod - 4
		return fmt.Sprintf("numeric(%d,%d)", (m>>16)&0xffff, m&0xffff)
	case "time", "timetz", "timestamp", "timestamptz":
		base, zone, _ := strings.Cut(t.fmtNoMod, " ")
		return fmt.Sprintf("%s(%d) %s", base, typmod, zone)
	case "interval":
		if p := typmod & 0xffff; p != 0xffff {
			return fmt.Sprintf("interval(%d)", p)
		}
	}
	return t.fmtNoMod
}

// rowTypeRel is the relation whose row type (or its array) oid is.
func (m *model) rowTypeRel(oid int64) *relObj {
	for _, r := range m.rels {
		if r.rowType != 0 && (r.rowType == oid || r.arrayType == oid) {
			return r
		}
	}
	return nil
}

// indexDef is pg_get_indexdef(oid, col, pretty): the CREATE INDEX
// statement (col 0) or the col-th column's name; "" when oid is no index.
// As PostgreSQL, the table is schema-qualified unless pretty (public is
// on the search path).
func (m *model) indexDef(oid int64, col int, pretty bool) (string, bool) {
	r := m.relByOid[oid]
	if r == nil || r.kind != "i" {
		return "", false
	}
	if col > 0 {
		if col > len(r.index.cols) {
			return "", true
		}
		return quoteIdent(r.index.cols[col-1]), true
	}
	unique := ""
	if r.index.unique {
		unique = "UNIQUE "
	}
	schema := "public."
	if pretty {
		schema = ""
	}
	return fmt.Sprintf("CREATE %sINDEX %s ON %s%s USING btree (%s)", unique, quoteIdent(r.name), schema,
		quoteIdent(r.index.table.name), identList(r.index.cols)), true
}

// constraintDef is pg_get_constraintdef(oid, pretty).
func (m *model) constraintDef(oid int64, pretty bool) (string, bool) {
	c := m.consByOid[oid]
	if c == nil {
		return "", false
	}
	switch c.typ {
	case "p":
		return PrimaryKeyDef(c.cols), true
	case "u":
		return UniqueDef(Unique{Columns: c.cols}), true
	case "c":
		if pretty {
			return "CHECK (" + prettyCheck(c.check) + ")", true
		}
		return "CHECK (" + c.check + ")", true
	}
	fk := *c.fk
	fk.Columns, fk.RefTable = c.cols, c.ref.name
	return ForeignKeyDef(fk), true
}

// fkActionText is a foreign key action's SQL ("CASCADE" …).
func fkActionText(a string) string {
	switch a {
	case "r":
		return "RESTRICT"
	case "c":
		return "CASCADE"
	case "n":
		return "SET NULL"
	case "d":
		return "SET DEFAULT"
	}
	return "NO ACTION"
}

// identList is names quoted as needed and joined by ", ".
func identList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// viewDef is pg_get_viewdef(oid): the view's definition text.
func (m *model) viewDef(oid int64) (string, bool) {
	r := m.relByOid[oid]
	if r == nil || r.kind != "v" {
		return "", false
	}
	return r.view.Definition, true
}

// ruleDef is pg_get_ruledef(oid, pretty): a view's _RETURN rule as
// PostgreSQL prints it (the view schema-qualified unless pretty).
func (m *model) ruleDef(oid int64, pretty bool) (string, bool) {
	r := m.ruleByOid[oid]
	if r == nil {
		return "", false
	}
	schema := "public."
	if pretty {
		schema = ""
	}
	return fmt.Sprintf("CREATE RULE \"_RETURN\" AS\n    ON SELECT TO %s%s DO INSTEAD %s", schema,
		quoteIdent(r.name), r.view.Definition), true
}

// checkColumns are the columns whose names occur as identifiers in a
// check expression (its conkey).
func checkColumns(expr string, cols []Column) []string {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(expr, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		words[w] = true
	}
	var out []string
	for _, c := range cols {
		if words[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// parenthesized wraps expr in parentheses unless one pair already
// encloses it whole, as PostgreSQL's deparser prints an operator
// expression.
func parenthesized(expr string) string {
	expr = strings.TrimSpace(expr)
	if strings.HasPrefix(expr, "(") && strings.HasSuffix(expr, ")") {
		depth := 0
		for i, r := range expr {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 && i < len(expr)-1 {
				return "(" + expr + ")"
			}
		}
		return expr
	}
	return "(" + expr + ")"
}

// constantCast is a parenthesized number cast to a type, "(0)::numeric",
// as PostgreSQL's deparser prints a constant's cast when not pretty.
var constantCast = regexp.MustCompile(`\((-?[0-9]+(?:\.[0-9]+)?)\)::`)

// castCast is a parenthesized cast of a literal cast again,
// "('now'::text)::date", which pretty mode prints "'now'::text::date".
var castCast = regexp.MustCompile(`\(('(?:[^']|'')*'::[a-z][a-z0-9_ ]*)\)::`)

// prettyCheck is an expression as PostgreSQL's plain deparse prints it
// (a check's parenthesized: the backend's text) as pretty mode
// (pg_get_constraintdef(oid, true), pg_get_expr(e, rel, true)) prints it:
// without the enclosing parentheses and with a non-negative constant's
// cast and a cast literal's second cast unparenthesized
// ("price >= 0::numeric", "'now'::text::date"). PostgreSQL's
// pretty mode also drops inner parentheses its precedence rules make
// redundant, which this does not: "((a > 0) AND (b > 0))" stays
// "(a > 0) AND (b > 0)" where PostgreSQL prints "a > 0 AND b > 0".
func prettyCheck(expr string) string {
	if p := parenthesized(expr); p == expr && strings.HasPrefix(expr, "(") {
		expr = expr[1 : len(expr)-1]
	}
	expr = castCast.ReplaceAllString(expr, "$1::")
	return constantCast.ReplaceAllStringFunc(expr, func(s string) string {
		if strings.HasPrefix(s, "(-") {
			return s
		}
		return s[1:strings.Index(s, ")")] + "::"
	})
}
