package pgdialect

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// addConstraint adds a table constraint under its name (PostgreSQL's
// default name when none is given, written into the schema so that
// DROP CONSTRAINT and the emulated catalog find it) and checks the rows.
func (t *translator) addConstraint(al *alteration, c *pg_query.Constraint) error {
	if (c.GetDeferrable() || c.GetInitdeferred()) && c.GetContype() != pg_query.ConstrType_CONSTR_FOREIGN {
		return refuse("deferrable constraints other than foreign keys")
	}
	if c.GetSkipValidation() {
		return refuse("ADD CONSTRAINT ... NOT VALID")
	}
	name := c.GetConname()
	var body string
	var err error
	switch c.GetContype() {
	case pg_query.ConstrType_CONSTR_PRIMARY:
		body, err = t.addKey(al, c, &name)
	case pg_query.ConstrType_CONSTR_UNIQUE:
		body, err = t.addKey(al, c, &name)
	case pg_query.ConstrType_CONSTR_FOREIGN:
		body, err = t.addForeignKey(al, c, &name)
	case pg_query.ConstrType_CONSTR_CHECK:
		body, err = t.addCheck(al, c, &name)
	default:
		return refuse("ADD CONSTRAINT of a %s constraint", strings.TrimPrefix(c.GetContype().String(), "CONSTR_"))
	}
	if err != nil {
		return err
	}
	if al.constraintAt(name) >= 0 {
		return pgError("42710", "constraint %q for relation %q already exists", name, al.table)
	}
	al.elems = append(al.elems, element{tokens: tokensOf("CONSTRAINT " + quoteIdent(name) + body)})
	return nil
}

// keyColumns are a key's column names (42703 for a missing one).
func (al *alteration) keyColumns(keys []*pg_query.Node) ([]string, error) {
	var names []string
	for _, k := range keys {
		if al.colIndex(strNode(k)) < 0 {
			return nil, pgError("42703", "column %q of relation %q does not exist", strNode(k), al.table)
		}
		names = append(names, strNode(k))
	}
	return names, nil
}

// addKey is ADD PRIMARY KEY (its columns become NOT NULL, as in
// PostgreSQL) or ADD UNIQUE: 23502 for a NULL in a primary key, 23505
// for duplicates, PostgreSQL's messages.
func (t *translator) addKey(al *alteration, c *pg_query.Constraint, name *string) (string, error) {
	if err := indexOptions(c); err != nil {
		return "", err
	}
	names, err := al.keyColumns(c.GetKeys())
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if al.cols[al.colIndex(n)].Type.Name == "json" {
			return "", pgError("42704", "data type json has no default operator class for access method \"btree\"")
		}
		if err := noJSONBKey(al.cols[al.colIndex(n)].Type, "UNIQUE and PRIMARY KEY"); err != nil {
			return "", err
		}
	}
	kind := "UNIQUE"
	if c.GetContype() == pg_query.ConstrType_CONSTR_PRIMARY {
		kind = "PRIMARY KEY"
		if al.hasPrimaryKey() {
			return "", pgError("42P16", "multiple primary keys for table %q are not allowed", al.table)
		}
		for _, n := range names {
			if err := al.setNotNull(n); err != nil {
				return "", err
			}
		}
		if *name == "" {
			*name = al.newName("", "pkey")
		}
	} else if *name == "" {
		*name = al.newName(strings.Join(names, "_"), "key")
	}
	if len(*name) > 63 {
		return "", refuse("a constraint name longer than 63 bytes")
	}
	quoted := quoteIdents(names)
	notNull := strings.Join(quoted, " IS NOT NULL AND ") + " IS NOT NULL"
	al.guards = append(al.guards, "SELECT pg_raise('23505', "+quoteString(pgMessage("could not create unique index %q", *name))+", count(*)) FROM "+al.projection()+" WHERE "+notNull+" GROUP BY "+strings.Join(quoted, ", ")+" HAVING count(*) > 1")
	return " " + kind + " (" + strings.Join(quoted, ", ") + ")", nil
}

func quoteIdents(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteIdent(n)
	}
	return out
}

func (al *alteration) hasPrimaryKey() bool {
	for _, e := range al.elems {
		if find(e.tokens, "PRIMARY", "KEY") >= 0 {
			return true
		}
	}
	return false
}

// addForeignKey is ADD FOREIGN KEY: the existing rows must have their
// referenced row (23503), checked at once whether the key is DEFERRABLE
// or not, as PostgreSQL checks them.
func (t *translator) addForeignKey(al *alteration, c *pg_query.Constraint, name *string) (string, error) {
	body, err := t.foreignKey(c, al.cols)
	if err != nil {
		return "", err
	}
	local, _ := al.keyColumns(c.GetFkAttrs())
	if *name == "" {
		*name = al.newName(strings.Join(local, "_"), "fkey")
	}
	if len(*name) > 63 {
		return "", refuse("a constraint name longer than 63 bytes")
	}
	parent := c.GetPktable().GetRelname()
	from := quoteIdent(parent)
	if parent == al.table {
		from = al.projection()
	}
	var match []string
	for i, k := range c.GetPkAttrs() {
		match = append(match, "p."+quoteIdent(strNode(k))+" = n."+quoteIdent(local[i]))
	}
	notNull := strings.Join(quoteIdents(local), " IS NOT NULL AND n.") + " IS NOT NULL"
	msg := pgMessage("insert or update on table %q violates foreign key constraint %q", al.table, *name)
	al.guards = append(al.guards, "SELECT pg_raise('23503', "+quoteString(msg)+", "+al.rowValue("n.")+") FROM "+al.projection()+" AS n WHERE n."+notNull+" AND NOT EXISTS (SELECT 1 FROM "+from+" AS p WHERE "+strings.Join(match, " AND ")+")")
	return body, nil
}

// addCheck is ADD CHECK: no existing row may make it false (23514).
func (t *translator) addCheck(al *alteration, c *pg_query.Constraint, name *string) (string, error) {
	if c.GetIsNoInherit() {
		return "", refuse("CHECK ... NO INHERIT")
	}
	sc := &scope{rels: []rel{{cols: al.cols, bare: true}}}
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
	if *name == "" {
		*name = al.newName(al.checkColumn(columnRefs(c.GetRawExpr(), nil)), "check")
	}
	msg := pgMessage("check constraint %q of relation %q is violated by some row", *name, al.table)
	al.guards = append(al.guards, "SELECT pg_raise('23514', "+quoteString(msg)+", "+al.rowValue("")+") FROM "+al.projection()+" WHERE NOT ("+cond+")")
	return " CHECK (" + cond + ")", nil
}

// columnRefs appends the column names the expression n refers to.
func columnRefs(n proto.Message, out []string) []string {
	if cr, ok := n.(*pg_query.ColumnRef); ok {
		if f := cr.GetFields(); len(f) > 0 && strNode(f[len(f)-1]) != "" {
			out = append(out, strNode(f[len(f)-1]))
		}
		return out
	}
	n.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				out = columnRefs(v.List().Get(i).Message().Interface(), out)
			}
		default:
			out = columnRefs(v.Message().Interface(), out)
		}
		return true
	})
	return out
}

// columnConstraints are a column's constraints with their [NOT]
// DEFERRABLE and INITIALLY DEFERRED/IMMEDIATE attributes, which
// PostgreSQL's grammar gives as constraints of their own after the one
// they qualify, folded into that one (a copy), as PostgreSQL's
// transformConstraintAttrs does, with its errors (42601).
func columnConstraints(nodes []*pg_query.Node) ([]*pg_query.Constraint, error) {
	var out []*pg_query.Constraint
	var last *pg_query.Constraint
	sawDeferrability, sawInitially := false, false
	for _, n := range nodes {
		c := n.GetConstraint()
		kind := c.GetContype()
		var clause string
		switch kind {
		case pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE:
			clause = "DEFERRABLE"
		case pg_query.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
			clause = "NOT DEFERRABLE"
		case pg_query.ConstrType_CONSTR_ATTR_DEFERRED:
			clause = "INITIALLY DEFERRED"
		case pg_query.ConstrType_CONSTR_ATTR_IMMEDIATE:
			clause = "INITIALLY IMMEDIATE"
		default:
			last = proto.Clone(c).(*pg_query.Constraint)
			out = append(out, last)
			sawDeferrability, sawInitially = false, false
			continue
		}
		if last == nil || !takesAttrs(last.GetContype()) {
			return nil, pgError("42601", "misplaced %s clause", clause)
		}
		if err := foldAttr(last, kind, &sawDeferrability, &sawInitially); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// takesAttrs reports constraint kinds PostgreSQL lets DEFERRABLE qualify.
func takesAttrs(k pg_query.ConstrType) bool {
	switch k {
	case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE,
		pg_query.ConstrType_CONSTR_EXCLUSION, pg_query.ConstrType_CONSTR_FOREIGN:
		return true
	}
	return false
}

// foldAttr applies one attribute to c, as transformConstraintAttrs.
func foldAttr(c *pg_query.Constraint, kind pg_query.ConstrType, sawDeferrability, sawInitially *bool) error {
	mustDefer := pgError("42601", "constraint declared INITIALLY DEFERRED must be DEFERRABLE")
	switch kind {
	case pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE, pg_query.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
		if *sawDeferrability {
			return pgError("42601", "multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed")
		}
		*sawDeferrability = true
		c.Deferrable = kind == pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE
		if !c.Deferrable && *sawInitially && c.GetInitdeferred() {
			return mustDefer
		}
	default:
		if *sawInitially {
			return pgError("42601", "multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed")
		}
		*sawInitially = true
		c.Initdeferred = kind == pg_query.ConstrType_CONSTR_ATTR_DEFERRED
		if c.Initdeferred && !*sawDeferrability {
			c.Deferrable = true
		} else if c.Initdeferred && !c.GetDeferrable() {
			return mustDefer
		}
	}
	return nil
}

// deferClause is a foreign key's deferrability in SQLite's words:
// SQLite checks a DEFERRABLE INITIALLY DEFERRED key when the transaction
// commits, and every other key (DEFERRABLE INITIALLY IMMEDIATE too) at the
// end of each statement; the backend checks deferred keys at the end of
// each tx and runs SET CONSTRAINTS (backend/sqlite deferfk.go).
func deferClause(c *pg_query.Constraint) string {
	switch {
	case c.GetDeferrable() && c.GetInitdeferred():
		return " DEFERRABLE INITIALLY DEFERRED"
	case c.GetDeferrable():
		return " DEFERRABLE INITIALLY IMMEDIATE"
	}
	return ""
}
