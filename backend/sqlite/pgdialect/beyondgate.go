package pgdialect

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// BeyondGate reports whether sql is one of the statements the postgres
// dialect on SQLite takes beyond PostgreSQL's gate (backend/postgres/pggate,
// which judges them for PostgreSQL networks, whose verdicts are part of
// their history and change only with a protocol version). They are DDL.
// Today: ALTER TABLE t RENAME TO u and ALTER TABLE t RENAME [COLUMN] a TO
// b, which migrations write (Django's RenameField and RenameModel,
// Alembic's alter_column, Sequelize's renameColumn). The translation is
// SQLite's own RENAME (rename.go), judged by SQLite's gate as every
// translated statement; names of the system or of relchain are refused
// here as PostgreSQL's gate refuses them. For any other statement it is
// false, and PostgreSQL's gate's verdict stands.
func BeyondGate(sql string) bool {
	if prescan.Check(sql, prescan.PostgreSQL) != nil {
		return false
	}
	tree, err := pgparse.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return false
	}
	r := tree.GetStmts()[0].GetStmt().GetRenameStmt()
	if r == nil {
		return false
	}
	switch {
	case r.GetRenameType() == pg_query.ObjectType_OBJECT_TABLE:
		if reservedName(r.GetNewname()) {
			return false
		}
	case r.GetRenameType() == pg_query.ObjectType_OBJECT_COLUMN && r.GetRelationType() == pg_query.ObjectType_OBJECT_TABLE:
	default:
		return false
	}
	rel := r.GetRelation()
	return rel.GetCatalogname() == "" && (rel.GetSchemaname() == "" || rel.GetSchemaname() == "public") && !reservedName(rel.GetRelname())
}

// reservedName reports whether a table name is the system's (pg_, SQLite's
// sqlite_) or relchain's.
func reservedName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "pg_") || strings.HasPrefix(n, "sqlite_") || strings.HasPrefix(n, "relchain")
}
