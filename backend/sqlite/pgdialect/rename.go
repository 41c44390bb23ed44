package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// rename translates ALTER TABLE t RENAME TO u and ALTER TABLE t RENAME
// [COLUMN] a TO b: SQLite rewrites the references (foreign keys, indexes,
// CHECK constraints) as PostgreSQL's references by OID follow them.
func (t *translator) rename(r *pg_query.RenameStmt) error {
	if r.GetRelationType() != pg_query.ObjectType_OBJECT_TABLE && r.GetRenameType() != pg_query.ObjectType_OBJECT_TABLE {
		return refuse("ALTER ... RENAME of a %s", r.GetRenameType())
	}
	if r.GetMissingOk() {
		return refuse("ALTER TABLE IF EXISTS ... RENAME")
	}
	cols, err := t.tableName(r.GetRelation())
	if err != nil {
		return err
	}
	table := quoteIdent(r.GetRelation().GetRelname())
	switch r.GetRenameType() {
	case pg_query.ObjectType_OBJECT_TABLE:
		if _, exists := t.cat.Columns(r.GetNewname()); exists {
			return pgError("42P07", "relation %q already exists", r.GetNewname())
		}
		t.out.Statements = []string{"ALTER TABLE " + table + " RENAME TO " + quoteIdent(r.GetNewname())}
	case pg_query.ObjectType_OBJECT_COLUMN:
		if _, ok := findColumn(cols, r.GetSubname()); !ok {
			return pgError("42703", "column %q does not exist", r.GetSubname())
		}
		if _, ok := findColumn(cols, r.GetNewname()); ok {
			return pgError("42701", "column %q of relation %q already exists", r.GetNewname(), r.GetRelation().GetRelname())
		}
		t.out.Statements = []string{"ALTER TABLE " + table + " RENAME COLUMN " + quoteIdent(r.GetSubname()) + " TO " + quoteIdent(r.GetNewname())}
	default:
		return refuse("ALTER TABLE ... RENAME of a %s", r.GetRenameType())
	}
	t.out.DDL = true
	return nil
}
