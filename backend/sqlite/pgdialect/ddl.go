package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// References is an optional interface of a Catalog: the tables whose
// foreign keys reference table (other than table itself), sorted. DROP
// TABLE needs it to honour RESTRICT and CASCADE as PostgreSQL does.
type References interface {
	ReferencedBy(table string) []string
}

// Indexes is an optional interface of a Catalog: whether an index of
// that exact name exists (DROP INDEX 42704, CREATE INDEX 42P07).
type Indexes interface {
	HasIndex(name string) bool
}

func (t *translator) createTable(c *pg_query.CreateStmt) error {
	switch {
	case len(c.GetInhRelations()) > 0 || c.GetPartbound() != nil || c.GetPartspec() != nil || c.GetOfTypename() != nil:
		return refuse("INHERITS, PARTITION and OF in CREATE TABLE")
	case c.GetRelation().GetRelpersistence() != "p":
		return refuse("TEMPORARY and UNLOGGED tables")
	case c.GetTablespacename() != "" || c.GetAccessMethod() != "" || c.GetOncommit() != pg_query.OnCommitAction_ONCOMMIT_NOOP:
		return refuse("TABLESPACE, USING and ON COMMIT")
	}
	if err := storageOptions(c.GetOptions()); err != nil {
		return err
	}
	name := c.GetRelation().GetRelname()
	t.newTable, t.newColumns = name, declaredColumns(c.GetTableElts())
	if _, err := t.tableName(c.GetRelation()); err == nil && !c.GetIfNotExists() {
		return pgError("42P07", "relation %q already exists", name)
	}
	var cols []string
	var colTypes []Column
	keyed := primaryKeyColumns(c.GetTableElts())
	for _, e := range c.GetTableElts() {
		switch el := e.GetNode().(type) {
		case *pg_query.Node_ColumnDef:
			if keyed[el.ColumnDef.GetColname()] {
				impliedNotNull(el.ColumnDef)
			}
			def, col, err := t.columnDef(el.ColumnDef)
			if err != nil {
				return err
			}
			cols, colTypes = append(cols, def), append(colTypes, col)
		case *pg_query.Node_Constraint:
		default:
			return refuse("%s in CREATE TABLE", nodeName(e))
		}
	}
	cons, err := t.tableConstraints(c.GetTableElts(), colTypes)
	if err != nil {
		return err
	}
	if _, exists := t.cat.Columns(name); !exists {
		var seqs []string
		for _, s := range t.creating {
			seqs = append(seqs, s.seq)
		}
		if err := t.newRelationNames(c, name, seqs); err != nil {
			return err
		}
	}
	ifNot := ""
	if c.GetIfNotExists() {
		ifNot = "IF NOT EXISTS "
		if _, exists := t.cat.Columns(name); exists {
			t.creating = nil // the table stands: no sequence is created
		}
	}
	t.out.Statements = []string{"CREATE TABLE " + ifNot + quoteIdent(name) + " (" + join(append(cols, cons...), ", ") + ")"}
	for _, s := range t.creating {
		t.out.Statements = append(t.out.Statements, sequenceTable(s.seq)...)
	}
	t.out.DDL = true
	return nil
}

// primaryKeyColumns are the columns a table PRIMARY KEY constraint of a
// CREATE TABLE names.
func primaryKeyColumns(elts []*pg_query.Node) map[string]bool {
	out := map[string]bool{}
	for _, e := range elts {
		if c := e.GetConstraint(); c != nil && c.GetContype() == pg_query.ConstrType_CONSTR_PRIMARY {
			for _, k := range c.GetKeys() {
				out[strNode(k)] = true
			}
		}
	}
	return out
}

// impliedNotNull declares a column of a table PRIMARY KEY NOT NULL, as
// PostgreSQL's primary key makes it (SQLite's would allow NULL), unless
// the column says NOT NULL itself.
func impliedNotNull(cd *pg_query.ColumnDef) {
	for _, c := range cd.GetConstraints() {
		if c.GetConstraint().GetContype() == pg_query.ConstrType_CONSTR_NOTNULL {
			return
		}
	}
	cd.Constraints = append(cd.Constraints, &pg_query.Node{Node: &pg_query.Node_Constraint{
		Constraint: &pg_query.Constraint{Contype: pg_query.ConstrType_CONSTR_NOTNULL, Location: -1}}})
}

// declaredColumns are the columns a CREATE TABLE declares, as far as
// their types can be read (columnDef reports what cannot), so that a
// foreign key to the table itself finds them, wherever they stand.
func declaredColumns(elts []*pg_query.Node) []Column {
	var cols []Column
	for _, e := range elts {
		cd := e.GetColumnDef()
		if cd == nil {
			continue
		}
		typ, ok := serialType(cd.GetTypeName())
		if !ok {
			var err error
			if typ, err = typeFromName(cd.GetTypeName()); err != nil {
				continue
			}
		}
		cols = append(cols, Column{Name: cd.GetColname(), Type: Type{Name: typ.Name, Typmod: typ.Typmod}})
	}
	return cols
}

// storageOptions allows the storage parameters that cannot change a
// result (dropped: SQLite has none).
func storageOptions(opts []*pg_query.Node) error {
	for _, o := range opts {
		d := o.GetDefElem()
		switch d.GetDefname() {
		case "fillfactor", "autovacuum_enabled", "toast_tuple_target", "parallel_workers":
		default:
			return refuse("the storage parameter %s", d.GetDefname())
		}
	}
	return nil
}

// columnDef translates one column: its declared type, NOT NULL, DEFAULT
// (a constant, converted now), PRIMARY KEY (with NOT NULL, which
// PostgreSQL implies and SQLite does not), UNIQUE and REFERENCES.
func (t *translator) columnDef(cd *pg_query.ColumnDef) (string, Column, error) {
	if typ, ok := serialType(cd.GetTypeName()); ok {
		return t.serialColumnDef(cd, typ)
	}
	typ, err := typeFromName(cd.GetTypeName())
	if err != nil {
		return "", Column{}, err
	}
	if identityByDefault(cd) && isInt(typ) {
		// As pggate: GENERATED BY DEFAULT AS IDENTITY without options
		// numbers rows as the serial of its type.
		return t.serialColumnDef(cd, Type{Name: typ.Name, Typmod: -1})
	}
	if cd.GetCollClause() != nil || cd.GetIdentity() != "" || cd.GetGenerated() != "" {
		return "", Column{}, refuse("COLLATE, identity and generated columns")
	}
	col := Column{Name: cd.GetColname(), Type: typ}
	sql := quoteIdent(col.Name) + " " + DeclaredType(typ) + Collation(typ)
	notNull := cd.GetIsNotNull()
	cons, err := columnConstraints(cd.GetConstraints())
	if err != nil {
		return "", Column{}, err
	}
	for _, c := range cons {
		s, nn, err := t.columnConstraint(c, col)
		if err != nil {
			return "", Column{}, err
		}
		notNull = notNull || nn
		sql += s
	}
	if notNull {
		sql += " NOT NULL"
	}
	col.NotNull = notNull
	return sql, col, nil
}

func (t *translator) columnConstraint(c *pg_query.Constraint, col Column) (string, bool, error) {
	if (c.GetDeferrable() || c.GetInitdeferred()) && c.GetContype() != pg_query.ConstrType_CONSTR_FOREIGN {
		return "", false, refuse("deferrable constraints other than foreign keys")
	}
	switch c.GetContype() {
	case pg_query.ConstrType_CONSTR_NOTNULL:
		return "", true, nil
	case pg_query.ConstrType_CONSTR_NULL:
		return "", false, nil
	case pg_query.ConstrType_CONSTR_DEFAULT:
		d, err := t.defaultValue(c.GetRawExpr(), col)
		return " DEFAULT " + d, false, err
	case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE:
		if err := noJSONBKey(col.Type, "PRIMARY KEY and UNIQUE"); err != nil {
			return "", false, err
		}
		if c.GetContype() == pg_query.ConstrType_CONSTR_UNIQUE {
			return constraintName(c) + " UNIQUE", false, indexOptions(c)
		}
		return constraintName(c) + " PRIMARY KEY", true, indexOptions(c)
	case pg_query.ConstrType_CONSTR_FOREIGN:
		s, err := t.references(c, []Column{col})
		return constraintName(c) + s, false, err
	case pg_query.ConstrType_CONSTR_CHECK:
		t.checks = append(t.checks, c) // translated once every column is known
		return "", false, nil
	}
	return "", false, refuse("the column constraint %s", c.GetContype())
}

func constraintName(c *pg_query.Constraint) string {
	if c.GetConname() == "" {
		return ""
	}
	return " CONSTRAINT " + quoteIdent(c.GetConname())
}

func indexOptions(c *pg_query.Constraint) error {
	if c.GetNullsNotDistinct() || len(c.GetIncluding()) > 0 || len(c.GetOptions()) > 0 || c.GetIndexspace() != "" || c.GetIndexname() != "" {
		return refuse("NULLS NOT DISTINCT, INCLUDE, WITH, USING INDEX and USING INDEX TABLESPACE")
	}
	return nil
}

// defaultValue converts a constant DEFAULT to the column's type now.
func (t *translator) defaultValue(n *pg_query.Node, col Column) (string, error) {
	if !constantNode(n) {
		return "", refuse("a DEFAULT that is not a constant")
	}
	saved := t.deferred
	t.deferred = nil
	defer func() { t.deferred = saved }()
	v, err := t.expr(n, &scope{})
	if err != nil {
		return "", err
	}
	sql, err := t.assign(v, col)
	if err != nil {
		return "", err
	}
	if t.deferred != nil {
		// PostgreSQL keeps the expression and fails at each INSERT that
		// uses it; the dialect converts DEFAULTs once, here.
		return "", refuse("a DEFAULT whose value does not convert to its column's type (%v)", t.deferred)
	}
	return "(" + sql + ")", nil
}

// constantNode reports whether n is a constant: a literal, a cast of one,
// or a negated one.
func constantNode(n *pg_query.Node) bool {
	switch e := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		return true
	case *pg_query.Node_TypeCast:
		return constantNode(e.TypeCast.GetArg())
	}
	return false
}
