package pgdialect

import (
	"errors"
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
// referenced row (23503). DEFERRABLE foreign keys are checked at the end
// of each statement, as NOT DEFERRABLE ones (DESIGN.md).
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

// errNotAttr: deferrableAttr's constraint is not an attribute.
var errNotAttr = errors.New("not a constraint attribute")

// deferrableAttr judges a column constraint's [NOT] DEFERRABLE or
// INITIALLY DEFERRED/IMMEDIATE, which PostgreSQL's grammar gives as
// constraints of their own after the one they qualify (prev): accepted
// after a foreign key (checked per statement, DESIGN.md), refused
// otherwise; errNotAttr when c is no such attribute.
func deferrableAttr(c *pg_query.Constraint, prev pg_query.ConstrType) error {
	switch c.GetContype() {
	case pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE, pg_query.ConstrType_CONSTR_ATTR_DEFERRED,
		pg_query.ConstrType_CONSTR_ATTR_IMMEDIATE, pg_query.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
	default:
		return errNotAttr
	}
	if prev != pg_query.ConstrType_CONSTR_FOREIGN {
		return refuse("deferrable constraints other than foreign keys")
	}
	return nil
}
