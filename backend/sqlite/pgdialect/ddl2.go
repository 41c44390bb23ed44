package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"strings"
)

// tableConstraints translates the table constraints of CREATE TABLE:
// PRIMARY KEY (its columns made NOT NULL by PostgreSQL: checked here),
// UNIQUE and FOREIGN KEY.
func (t *translator) tableConstraints(elts []*pg_query.Node, cols []Column) ([]string, error) {
	var out []string
	for _, e := range elts {
		c := e.GetConstraint()
		if c == nil {
			continue
		}
		if (c.GetDeferrable() || c.GetInitdeferred()) && c.GetContype() != pg_query.ConstrType_CONSTR_FOREIGN {
			return nil, refuse("deferrable constraints other than foreign keys")
		}
		var s string
		var err error
		switch c.GetContype() {
		case pg_query.ConstrType_CONSTR_PRIMARY:
			s, err = keyConstraint("PRIMARY KEY", c, cols)
		case pg_query.ConstrType_CONSTR_UNIQUE:
			s, err = keyConstraint("UNIQUE", c, cols)
		case pg_query.ConstrType_CONSTR_FOREIGN:
			s, err = t.foreignKey(c, cols)
		case pg_query.ConstrType_CONSTR_CHECK:
			t.checks = append(t.checks, c)
			continue
		default:
			err = refuse("the table constraint %s", c.GetContype())
		}
		if err != nil {
			return nil, err
		}
		out = append(out, constraintName(c)+s)
	}
	for _, c := range t.checks {
		s, err := t.check(c, cols)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// check translates a CHECK constraint over the table's columns: a
// boolean expression (42804 otherwise), without subqueries or
// aggregates; like PostgreSQL's, it fails only when false (NULL passes).
func (t *translator) check(c *pg_query.Constraint, cols []Column) (string, error) {
	if c.GetSkipValidation() || c.GetIsNoInherit() {
		return "", refuse("CHECK ... NOT VALID and NO INHERIT")
	}
	sc := &scope{rels: []rel{{cols: cols, bare: true}}}
	saved := t.sawAgg
	t.sawAgg, t.inDDL = false, true
	cond, err := t.condition(c.GetRawExpr(), sc, "CHECK")
	agg := t.sawAgg
	t.sawAgg, t.inDDL = saved, false
	if err != nil {
		return "", err
	}
	if agg {
		return "", pgError("42803", "aggregate functions are not allowed in check constraints")
	}
	return constraintName(c) + " CHECK " + parenthesized(cond), nil
}

// parenthesized is an expression as SQLite's CHECK takes it: in
// parentheses (a translation that is already one parenthesized group is
// kept as it is, as tables created before kept it).
func parenthesized(sql string) string {
	if ts, ok := tokenize(sql); ok && len(ts) == 1 && strings.HasPrefix(sql, "(") {
		return sql
	}
	return "(" + sql + ")"
}

// keyConstraint is PRIMARY KEY (...) or UNIQUE (...); a table PRIMARY
// KEY's columns must be declared NOT NULL for SQLite (which would allow
// NULL), so one that is not is refused.
func keyConstraint(kind string, c *pg_query.Constraint, cols []Column) (string, error) {
	if err := indexOptions(c); err != nil {
		return "", err
	}
	names, err := columnNames(c.GetKeys(), cols)
	if err != nil {
		return "", err
	}
	for _, k := range c.GetKeys() {
		if col, _ := findColumn(cols, strNode(k)); noJSONBKey(col.Type, kind) != nil {
			return "", noJSONBKey(col.Type, kind)
		}
	}
	if kind == "PRIMARY KEY" {
		for _, k := range c.GetKeys() {
			if col, _ := findColumn(cols, strNode(k)); !col.NotNull {
				return "", refuse("a table PRIMARY KEY on a column not declared NOT NULL (declare %s NOT NULL or PRIMARY KEY on the column)", col.Name)
			}
		}
	}
	return " " + kind + " (" + names + ")", nil
}

func findColumn(cols []Column, name string) (Column, bool) {
	for _, c := range cols {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

func columnNames(keys []*pg_query.Node, cols []Column) (string, error) {
	var names []string
	for _, k := range keys {
		c, ok := findColumn(cols, strNode(k))
		if !ok {
			return "", pgError("42703", "column %q named in key does not exist", strNode(k))
		}
		names = append(names, quoteIdent(c.Name))
	}
	return join(names, ", "), nil
}

func (t *translator) foreignKey(c *pg_query.Constraint, cols []Column) (string, error) {
	var local []Column
	for _, k := range c.GetFkAttrs() {
		col, ok := findColumn(cols, strNode(k))
		if !ok {
			return "", pgError("42703", "column %q referenced in foreign key constraint does not exist", strNode(k))
		}
		local = append(local, col)
	}
	names, _ := columnNames(c.GetFkAttrs(), cols)
	s, err := t.references(c, local)
	return " FOREIGN KEY (" + names + ")" + s, err
}

var fkActions = map[string]string{"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}

// references translates REFERENCES t (cols) with its actions; the
// referenced columns must exist with comparable types (42804).
func (t *translator) references(c *pg_query.Constraint, local []Column) (string, error) {
	if c.GetFkMatchtype() == "f" || len(c.GetFkDelSetCols()) > 0 {
		return "", refuse("MATCH FULL and SET NULL (columns)")
	}
	remote, err := t.referencedColumns(c.GetPktable())
	if err != nil {
		return "", err
	}
	sql := " REFERENCES " + quoteIdent(c.GetPktable().GetRelname())
	if len(c.GetPkAttrs()) == 0 {
		return "", refuse("REFERENCES without a column list")
	}
	if len(c.GetPkAttrs()) != len(local) {
		return "", pgError("42830", "number of referencing and referenced columns for foreign key disagree")
	}
	for i, k := range c.GetPkAttrs() {
		rc, ok := findColumn(remote, strNode(k))
		if !ok {
			return "", pgError("42703", "column %q referenced in foreign key constraint does not exist", strNode(k))
		}
		if _, ok := pgconvComparable(local[i].Type, rc.Type); !ok {
			return "", pgError("42804", "foreign key constraint cannot be implemented: %s and %s", label(local[i].Type), label(rc.Type))
		}
	}
	names, _ := columnNames(c.GetPkAttrs(), remote)
	sql += " (" + names + ")"
	for _, a := range []struct{ kw, code string }{{" ON DELETE ", c.GetFkDelAction()}, {" ON UPDATE ", c.GetFkUpdAction()}} {
		if a.code != "" && a.code != "a" {
			sql += a.kw + fkActions[a.code]
		}
	}
	return sql + deferClause(c), nil
}

// referencedColumns are the columns of a foreign key's table: the table
// being created when it references itself, else the catalog's.
func (t *translator) referencedColumns(rv *pg_query.RangeVar) ([]Column, error) {
	if t.newTable != "" && rv.GetRelname() == t.newTable && (rv.GetSchemaname() == "" || rv.GetSchemaname() == "public") && rv.GetCatalogname() == "" {
		return t.newColumns, nil
	}
	return t.tableName(rv)
}

// pgconvComparable reports whether a foreign key between the types is one
// SQLite checks as PostgreSQL does: the same type family.
func pgconvComparable(a, b Type) (Type, bool) {
	switch {
	case isInt(a) && isInt(b), isText(a) && isText(b), a.Name == b.Name && !isJSON(a) && !isFloat(a):
		return a, true
	}
	return a, false
}
