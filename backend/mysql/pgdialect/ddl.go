package pgdialect

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgnames"
)

// commentPrefix starts a column's COMMENT holding its PostgreSQL type.
const commentPrefix = "pg:"

// tableOptions are every table's: InnoDB (transactional), text in
// utf8mb4 with the binary NO PAD collation.
const tableOptions = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=" + textCollation

// colDef is a column of a CREATE TABLE being translated.
type colDef struct {
	col     Column
	def     *pg_query.Node // DEFAULT's expression, nil when none
	key     bool           // in the PRIMARY KEY
	checks  []*pg_query.Node
	uniques []string // its UNIQUE constraints' CONSTRAINT names ("" unnamed)
	primary bool
}

// createTable translates CREATE TABLE [IF NOT EXISTS].
func (t *translator) createTable(s *pg_query.CreateStmt) error {
	rv := s.GetRelation()
	switch {
	case rv.GetRelpersistence() != "p", len(s.GetInhRelations()) > 0, s.GetPartspec() != nil, s.GetPartbound() != nil,
		s.GetOfTypename() != nil, len(s.GetOptions()) > 0, s.GetAccessMethod() != "", s.GetTablespacename() != "":
		return refuse("CREATE TABLE with TEMP/UNLOGGED, INHERITS, PARTITION, OF, WITH, USING or TABLESPACE")
	case rv.GetSchemaname() != "" && rv.GetSchemaname() != "public":
		return refuse("tables of the schema %s", rv.GetSchemaname())
	}
	name := rv.GetRelname()
	if strings.ToLower(name) != name {
		return refuse("table names with upper-case letters (%q): MariaDB keeps table names in lower case "+
			"(relchain runs it with lower_case_table_names=1), where PostgreSQL tells %q from %q", name, name, strings.ToLower(name))
	}
	var defs []*colDef
	var tableCons []*pg_query.Constraint
	for _, e := range s.GetTableElts() {
		switch x := e.GetNode().(type) {
		case *pg_query.Node_ColumnDef:
			d, err := columnDef(x.ColumnDef)
			if err != nil {
				return err
			}
			defs = append(defs, d)
		case *pg_query.Node_Constraint:
			tableCons = append(tableCons, x.Constraint)
		default:
			return refuse("the table element %s", nodeName(e))
		}
	}
	if err := distinctIgnoringCase(defs); err != nil {
		return err
	}
	keys, err := tableKeys(name, defs, tableCons)
	if err != nil {
		return err
	}
	indexes := pgnames.KeyIndexes(name, s.GetTableElts())
	if _, exists := t.cat.Columns(name); !exists {
		if err := t.newRelationNames(s, name, indexes); err != nil {
			return err
		}
	}
	t.push()
	defer t.pop()
	t.stored = true // DEFAULT and CHECK: MariaDB keeps their text
	var cols []Column
	for _, d := range defs {
		cols = append(cols, d.col)
	}
	if err := t.add(rel{name: name, cols: cols}); err != nil {
		return err
	}
	items, err := t.columnSQL(defs)
	if err != nil {
		return err
	}
	checks, err := t.checkSQL(defs, tableCons)
	if err != nil {
		return err
	}
	items = append(append(items, keys...), checks...)
	ine := ""
	if s.GetIfNotExists() {
		ine = "IF NOT EXISTS "
	}
	t.out.Statements = []string{"CREATE TABLE " + ine + quoteIdent(name) + " (" + join(items, ", ") + ")" + tableOptions + pkeyComment(name, indexes)}
	t.out.DDL = true
	t.out.schema = schemaChange{create: name, cols: storedColumns(defs)}
	for _, k := range indexes {
		t.out.schema.relations = append(t.out.schema.relations, k.Name)
	}
	return nil
}

// pkeyComment is the table's COMMENT keeping its PRIMARY KEY's name when
// the statement names it otherwise than PostgreSQL's default t_pkey
// (MariaDB names every primary key PRIMARY), or "".
func pkeyComment(table string, keys []pgnames.KeyIndex) string {
	for _, k := range keys {
		if k.Primary && k.Name != pgnames.ObjectName(table, "", "pkey") {
			return " COMMENT=" + quoteString(pkeyCommentPrefix+k.Name)
		}
	}
	return ""
}

// distinctIgnoringCase refuses two columns whose names differ only in
// case: MariaDB's column names ignore case, PostgreSQL's do not (two equal
// names are PostgreSQL's own error, left to the translation).
func distinctIgnoringCase(defs []*colDef) error {
	seen := map[string]string{}
	for _, d := range defs {
		low := strings.ToLower(d.col.Name)
		if other, ok := seen[low]; ok && other != d.col.Name {
			return refuse("columns whose names differ only in case (%q and %q): MariaDB's column names ignore case", other, d.col.Name)
		}
		seen[low] = d.col.Name
	}
	return nil
}

// columnDef reads a column definition and its constraints.
func columnDef(c *pg_query.ColumnDef) (*colDef, error) {
	typ, err := typeOf(c.GetTypeName())
	if err != nil {
		return nil, err
	}
	if c.GetCollClause() != nil || c.GetIdentity() != "" || c.GetGenerated() != "" {
		return nil, refuse("COLLATE, identity and generated columns")
	}
	d := &colDef{col: Column{Name: c.GetColname(), Type: typ}}
	for _, cn := range c.GetConstraints() {
		k := cn.GetConstraint()
		switch k.GetContype() {
		case pg_query.ConstrType_CONSTR_NOTNULL:
			d.col.NotNull = true
		case pg_query.ConstrType_CONSTR_NULL:
		case pg_query.ConstrType_CONSTR_DEFAULT:
			d.col.Default = true
			d.def = k.GetRawExpr()
		case pg_query.ConstrType_CONSTR_PRIMARY:
			d.primary, d.key, d.col.NotNull = true, true, true
		case pg_query.ConstrType_CONSTR_UNIQUE:
			d.uniques = append(d.uniques, k.GetConname())
		case pg_query.ConstrType_CONSTR_CHECK:
			d.checks = append(d.checks, k.GetRawExpr())
		default:
			return nil, refuse("the column constraint %s", k.GetContype().String())
		}
	}
	return d, nil
}

// tableKeys checks the PRIMARY KEY and UNIQUE constraints of table and
// marks key columns (keyBytes: none of unbounded length, at most
// maxKeyBytes in all). Each UNIQUE index has PostgreSQL's name (its
// CONSTRAINT's or the default, t_a_key), so that SchemaCatalog finds it.
func tableKeys(table string, defs []*colDef, cons []*pg_query.Constraint) ([]string, error) {
	var out []string
	var pk []string
	for _, d := range defs {
		if d.primary {
			pk = append(pk, d.col.Name)
		}
		for _, n := range d.uniques {
			out = append(out, uniqueKey(table, n, []string{d.col.Name}))
		}
	}
	for _, c := range cons {
		var names []string
		for _, k := range c.GetKeys() {
			names = append(names, strNode(k))
		}
		switch c.GetContype() {
		case pg_query.ConstrType_CONSTR_PRIMARY:
			pk = append(pk, names...)
		case pg_query.ConstrType_CONSTR_UNIQUE:
			for _, n := range names {
				if findDef(defs, n) == nil {
					return nil, pgError("42703", "column %q named in key does not exist", n)
				}
			}
			out = append(out, uniqueKey(table, c.GetConname(), names))
		case pg_query.ConstrType_CONSTR_CHECK:
		default:
			return nil, refuse("the table constraint %s", c.GetContype().String())
		}
		if len(c.GetIncluding()) > 0 || c.GetIndexspace() != "" || len(c.GetOptions()) > 0 || c.GetDeferrable() {
			return nil, refuse("constraint options (INCLUDE, WITH, USING INDEX TABLESPACE, DEFERRABLE)")
		}
	}
	if len(pk) == 0 {
		return out, nil
	}
	var q []string
	size := 0
	for _, n := range pk {
		d := findDef(defs, n)
		if d == nil {
			return nil, pgError("42703", "column %q named in key does not exist", n)
		}
		d.key, d.col.NotNull = true, true
		bytes, err := keyBytes(d.col)
		if err != nil {
			return nil, err
		}
		size += bytes
		q = append(q, quoteIdent(n))
	}
	if size > maxKeyBytes {
		return nil, refuse("a PRIMARY KEY of %d bytes (InnoDB keys hold at most %d bytes; varchar(n) takes 4n there)", size, maxKeyBytes)
	}
	return append([]string{"PRIMARY KEY (" + join(q, ", ") + ")"}, out...), nil
}

// uniqueKey is MariaDB's UNIQUE key over cols named name, or
// PostgreSQL's default name of it when name is "".
func uniqueKey(table, name string, cols []string) string {
	if name == "" {
		name = pgnames.ObjectName(table, join(cols, "_"), "key")
	}
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return "CONSTRAINT " + quoteIdent(name) + " UNIQUE (" + join(q, ", ") + ")"
}

// maxKeyBytes is InnoDB's bound on a key (innodb_page_size 16k, DYNAMIC
// rows, both checked on every node: backend/mysql profile.go).
const maxKeyBytes = 3072

// keyBytes is what column c takes in an InnoDB key at most. A column of
// unbounded length (text, bytea) is refused there: MariaDB would fail a
// long value that PostgreSQL stores, at run time, on one engine only.
func keyBytes(c Column) (int, error) {
	switch t := c.Type; {
	case t.Name == "varchar" && t.Typmod >= 4:
		return 4 * int(t.Typmod-4), nil
	case isText(t) || t.Name == "bytea":
		return 0, refuse("a PRIMARY KEY over the %s column %q (InnoDB keys hold at most %d bytes, PostgreSQL's any length): declare it varchar(n), n ≤ 768", t.Name, c.Name, maxKeyBytes)
	case t.Name == "numeric":
		p, _, _ := numericPS(t)
		return int(p)/2 + 1, nil
	}
	return map[string]int{"int2": 2, "int4": 4, "bool": 1, "date": 3}[c.Type.Name] + 8, nil // 8: others, and a margin
}

// findDef finds a column definition by name.
func findDef(defs []*colDef, name string) *colDef {
	for _, d := range defs {
		if d.col.Name == name {
			return d
		}
	}
	return nil
}

// columnSQL is each column's MariaDB definition; its COMMENT keeps the
// PostgreSQL type for the Catalog.
func (t *translator) columnSQL(defs []*colDef) ([]string, error) {
	var out []string
	for _, d := range defs {
		typ, err := mariaType(d.col.Type, d.key)
		if err != nil {
			return nil, err
		}
		sql := quoteIdent(d.col.Name) + " " + typ
		if d.col.NotNull {
			sql += " NOT NULL"
		}
		if d.def != nil {
			v, err := t.constantDefault(d.def, d.col)
			if err != nil {
				return nil, err
			}
			sql += " DEFAULT " + v
		}
		out = append(out, sql+" COMMENT "+quoteString(commentPrefix+typeString(d.col.Type)))
	}
	return out, nil
}

// constantDefault translates a DEFAULT that is a constant (a literal, a
// cast of one, a negated number).
func (t *translator) constantDefault(n *pg_query.Node, col Column) (string, error) {
	switch {
	case n.GetAConst() != nil:
	case n.GetTypeCast() != nil && n.GetTypeCast().GetArg().GetAConst() != nil:
	default:
		return "", refuse("DEFAULT other than a constant")
	}
	v, err := t.expr(n)
	if err != nil {
		return "", err
	}
	if v, err = t.assign(v, col.Type, col.Name); err != nil {
		return "", err
	}
	return "(" + v.sql + ")", nil
}

// checkSQL translates CHECK constraints (over the new table's columns),
// each in parentheses.
func (t *translator) checkSQL(defs []*colDef, cons []*pg_query.Constraint) ([]string, error) {
	var exprs []*pg_query.Node
	for _, d := range defs {
		exprs = append(exprs, d.checks...)
	}
	for _, c := range cons {
		if c.GetContype() == pg_query.ConstrType_CONSTR_CHECK {
			if c.GetIsNoInherit() || c.GetSkipValidation() {
				return nil, refuse("CHECK ... NO INHERIT / NOT VALID")
			}
			exprs = append(exprs, c.GetRawExpr())
		}
	}
	var out []string
	for _, e := range exprs {
		v, err := t.expr(e)
		if err != nil {
			return nil, err
		}
		if v, err = t.wantBool(v, "argument of CHECK"); err != nil {
			return nil, err
		}
		if t.sawAgg || len(t.params) > 0 {
			return nil, pgError("42P17", "aggregates and parameters are not allowed in check constraints")
		}
		// Parenthesised: a bare column (CHECK (b) over a bool) is v.sql
		// without parentheses, and MariaDB's CHECK needs them.
		out = append(out, "CHECK ("+v.sql+")")
	}
	return out, nil
}

// drop translates DROP TABLE [IF EXISTS] a, b (RESTRICT).
func (t *translator) drop(s *pg_query.DropStmt) error {
	if s.GetRemoveType() != pg_query.ObjectType_OBJECT_TABLE || s.GetBehavior() == pg_query.DropBehavior_DROP_CASCADE || s.GetConcurrent() {
		return refuse("DROP other than DROP TABLE, and CASCADE")
	}
	var names []string
	for _, o := range s.GetObjects() {
		parts := o.GetList().GetItems()
		if len(parts) == 2 && strNode(parts[0]) != "public" || len(parts) > 2 {
			return refuse("tables of another schema")
		}
		name := strNode(parts[len(parts)-1])
		if _, ok := t.cat.Columns(name); !ok && !s.GetMissingOk() {
			return pgError("42P01", "table %q does not exist", name)
		}
		names = append(names, quoteIdent(name))
		t.out.schema.drop = append(t.out.schema.drop, name)
	}
	ie := ""
	if s.GetMissingOk() {
		ie = "IF EXISTS "
	}
	t.out.Statements = []string{"DROP TABLE " + ie + join(names, ", ")}
	t.out.DDL = true
	return nil
}

// createIndex translates CREATE [UNIQUE] INDEX over columns (a text
// column out of a unique index is indexed by its first 255 characters:
// MariaDB indexes LONGTEXT by a prefix; a UNIQUE one by a hash of it).
func (t *translator) createIndex(s *pg_query.IndexStmt) error {
	if s.GetWhereClause() != nil || len(s.GetIndexIncludingParams()) > 0 || (s.GetAccessMethod() != "" && s.GetAccessMethod() != "btree") ||
		s.GetConcurrent() || len(s.GetOptions()) > 0 || s.GetTableSpace() != "" || s.GetIdxname() == "" {
		return refuse("CREATE INDEX with WHERE, INCLUDE, USING other than btree, CONCURRENTLY, WITH, TABLESPACE or without a name")
	}
	cols, err := t.tableColumns(s.GetRelation())
	if err != nil {
		return err
	}
	table := s.GetRelation().GetRelname()
	if err := t.indexNameFree(s, table); err != nil {
		return err
	}
	var parts []string
	for _, p := range s.GetIndexParams() {
		e := p.GetIndexElem()
		if e.GetName() == "" || len(e.GetCollation()) > 0 || len(e.GetOpclass()) > 0 || e.GetNullsOrdering() != pg_query.SortByNulls_SORTBY_NULLS_DEFAULT {
			return refuse("index items other than columns (expressions, COLLATE, operator classes, NULLS FIRST/LAST)")
		}
		c, ok := findColumn(cols, e.GetName())
		if !ok {
			return pgError("42703", "column %q does not exist", e.GetName())
		}
		item := quoteIdent(c.Name)
		if !s.GetUnique() && (c.Type.Name == "text" || c.Type.Name == "bytea" || (c.Type.Name == "varchar" && c.Type.Typmod-4 > 768)) {
			item += "(255)"
		}
		if e.GetOrdering() == pg_query.SortByDir_SORTBY_DESC {
			item += " DESC"
		}
		parts = append(parts, item)
	}
	kind := "INDEX "
	if s.GetUnique() {
		kind = "UNIQUE INDEX "
	}
	ine := ""
	if s.GetIfNotExists() {
		ine = "IF NOT EXISTS "
	}
	t.out.Statements = []string{"CREATE " + kind + ine + quoteIdent(s.GetIdxname()) + " ON " + quoteIdent(table) + " (" + join(parts, ", ") + ")"}
	t.out.DDL = true
	t.out.schema = schemaChange{relations: []string{s.GetIdxname()}, on: table}
	return nil
}
