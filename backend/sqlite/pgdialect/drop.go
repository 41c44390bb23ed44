package pgdialect

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// drop translates DROP TABLE a, b [CASCADE|RESTRICT] and DROP INDEX.
// SQLite drops one table per statement and has no CASCADE: a table that
// another (not dropped) table references is PostgreSQL's 2BP01 under
// RESTRICT and refused under CASCADE (which would drop the constraint).
func (t *translator) drop(d *pg_query.DropStmt) error {
	if d.GetConcurrent() {
		return refuse("DROP INDEX CONCURRENTLY")
	}
	kind := map[pg_query.ObjectType]string{pg_query.ObjectType_OBJECT_TABLE: "TABLE", pg_query.ObjectType_OBJECT_INDEX: "INDEX"}[d.GetRemoveType()]
	if kind == "" {
		return refuse("DROP %s", d.GetRemoveType())
	}
	var names []string
	for _, o := range d.GetObjects() {
		parts := o.GetList().GetItems()
		if len(parts) == 2 && strNode(parts[0]) == "public" {
			parts = parts[1:]
		}
		if len(parts) != 1 {
			return refuse("schema-qualified names other than public")
		}
		names = append(names, strNode(parts[0]))
	}
	ifExists := ""
	if d.GetMissingOk() {
		ifExists = "IF EXISTS "
	}
	if kind == "TABLE" {
		if err := t.checkDropTables(names, d); err != nil {
			return err
		}
		var err error
		if names, err = t.dropOrder(names); err != nil {
			return err
		}
	}
	if ix, ok := t.cat.(Indexes); ok && kind == "INDEX" && !d.GetMissingOk() {
		for _, n := range names {
			if !ix.HasIndex(n) {
				return pgError("42704", "index %q does not exist", n)
			}
		}
	}
	for _, n := range names {
		t.out.Statements = append(t.out.Statements, "DROP "+kind+" "+ifExists+quoteIdent(n))
		if kind == "TABLE" {
			t.out.Statements = append(t.out.Statements, t.dropSequences(n)...)
		}
	}
	t.out.DDL = true
	return nil
}

func (t *translator) checkDropTables(names []string, d *pg_query.DropStmt) error {
	for _, n := range names {
		if _, ok := t.cat.Columns(n); !ok && !d.GetMissingOk() {
			return pgError("42P01", "table %q does not exist", n)
		}
		refs, ok := t.cat.(References)
		if !ok {
			return refuse("DROP TABLE on a catalog that cannot tell foreign keys")
		}
		for _, r := range refs.ReferencedBy(n) {
			if slices.Contains(names, r) {
				continue
			}
			if d.GetBehavior() == pg_query.DropBehavior_DROP_CASCADE {
				return refuse("DROP TABLE ... CASCADE when another table (%s) references %s", r, n)
			}
			return pgError("2BP01", "cannot drop table %s because other objects depend on it", n)
		}
	}
	return nil
}

// createIndex translates CREATE [UNIQUE] INDEX name ON t (cols).
// patternOpsFor are the operator classes an index column may name (Django
// writes varchar_pattern_ops for LIKE 'x%' on its _like indexes) and the
// types each takes. They change which operators the index serves, never
// a result: equality is the default's bytewise one, as the dialect's
// comparisons are (PostgreSQL's "C" collation), so SQLite's plain index
// keeps PostgreSQL's results, uniqueness included.
var patternOpsFor = map[string][]string{
	"text_pattern_ops": {"text", "varchar"}, "varchar_pattern_ops": {"text", "varchar"}, "bpchar_pattern_ops": {"bpchar"},
}

// patternOpclass checks an index column's operator class: none, or a
// pattern_ops class of the column's type (42704 for another type, as
// PostgreSQL); any other class is refused.
func patternOpclass(names []*pg_query.Node, c Column) error {
	if len(names) == 0 {
		return nil
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, strNode(n))
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	types, ok := patternOpsFor[strings.Join(parts, ".")]
	if !ok || len(parts) != 1 {
		return refuse("the operator class %s", strings.Join(parts, "."))
	}
	if !slices.Contains(types, c.Type.Name) {
		return pgError("42804", "operator class %q does not accept data type %s", parts[0], label(c.Type))
	}
	return nil
}

func (t *translator) createIndex(ix *pg_query.IndexStmt) error {
	switch {
	case ix.GetWhereClause() != nil || len(ix.GetIndexIncludingParams()) > 0 || ix.GetConcurrent():
		return refuse("partial indexes, INCLUDE and CONCURRENTLY")
	case ix.GetAccessMethod() != "" && ix.GetAccessMethod() != "btree":
		return refuse("the index method %s", ix.GetAccessMethod())
	case ix.GetIdxname() == "":
		return refuse("CREATE INDEX without a name")
	case ix.GetNullsNotDistinct() || len(ix.GetOptions()) > 0 || ix.GetTableSpace() != "":
		return refuse("NULLS NOT DISTINCT, WITH and TABLESPACE on an index")
	}
	cols, err := t.tableName(ix.GetRelation())
	if err != nil {
		return err
	}
	if err := t.indexNameFree(ix); err != nil {
		return err
	}
	var keys []string
	for _, p := range ix.GetIndexParams() {
		e := p.GetIndexElem()
		if e.GetExpr() != nil || len(e.GetCollation()) > 0 || len(e.GetOpclassopts()) > 0 {
			return refuse("expression indexes, COLLATE and operator classes")
		}
		c, ok := findColumn(cols, e.GetName())
		if !ok {
			return pgError("42703", "column %q does not exist", e.GetName())
		}
		if err := patternOpclass(e.GetOpclass(), c); err != nil {
			return err
		}
		if c.Type.Name == "json" {
			return pgError("42704", "data type json has no default operator class for access method \"btree\"")
		}
		if err := noJSONBKey(c.Type, "indexes"); err != nil {
			return err
		}
		keys = append(keys, quoteIdent(c.Name)+indexOrder(e))
	}
	sql := "CREATE "
	if ix.GetUnique() {
		sql += "UNIQUE "
	}
	sql += "INDEX "
	if ix.GetIfNotExists() {
		sql += "IF NOT EXISTS "
	}
	t.out.Statements = []string{sql + quoteIdent(ix.GetIdxname()) + " ON " + quoteIdent(ix.GetRelation().GetRelname()) + " (" + join(keys, ", ") + ")"}
	t.out.DDL = true
	return nil
}

// indexOrder keeps an index column's direction (NULLS ordering does not
// change results).
func indexOrder(e *pg_query.IndexElem) string {
	if e.GetOrdering() == pg_query.SortByDir_SORTBY_DESC {
		return " DESC"
	}
	return ""
}

// addColumn translates ALTER TABLE t ADD COLUMN, which SQLite makes in
// place.
func (t *translator) addColumn(a *pg_query.AlterTableStmt) error {
	cmd := a.GetCmds()[0].GetAlterTableCmd()
	cd := cmd.GetDef().GetColumnDef()
	cols, _ := t.cat.Columns(a.GetRelation().GetRelname())
	if _, exists := findColumn(cols, cd.GetColname()); exists {
		if cmd.GetMissingOk() {
			return refuse("ADD COLUMN IF NOT EXISTS of a column that exists")
		}
		return pgError("42701", "column %q of relation %q already exists", cd.GetColname(), a.GetRelation().GetRelname())
	}
	if err := checkAddColumn(cd); err != nil {
		return err
	}
	def, _, err := t.columnDef(cd)
	if err != nil {
		return err
	}
	t.out.Statements = []string{"ALTER TABLE " + quoteIdent(a.GetRelation().GetRelname()) + " ADD COLUMN " + def}
	t.out.DDL = true
	return nil
}

func containsDefault(cd *pg_query.ColumnDef) bool {
	for _, c := range cd.GetConstraints() {
		if c.GetConstraint().GetContype() == pg_query.ConstrType_CONSTR_DEFAULT {
			return true
		}
	}
	return false
}

// dropOrder orders the tables of one DROP TABLE so that a table is
// dropped before the tables it references (SQLite's DROP TABLE deletes
// the rows first, which a surviving reference would refuse). A cycle of
// references among them is refused.
func (t *translator) dropOrder(names []string) ([]string, error) {
	refs, _ := t.cat.(References)
	left := slices.Clone(names)
	var out []string
	for len(left) > 0 {
		next := -1
		for i, n := range left {
			if !slices.ContainsFunc(refs.ReferencedBy(n), func(r string) bool { return r != n && slices.Contains(left, r) }) {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, refuse("DROP TABLE of tables that reference each other in a cycle")
		}
		out = append(out, left[next])
		left = slices.Delete(left, next, next+1)
	}
	return out, nil
}
