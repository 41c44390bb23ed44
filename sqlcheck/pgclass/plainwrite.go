package pgclass

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

// PlainWrite reports whether sql is one INSERT, UPDATE or DELETE without
// RETURNING and without WITH (which could hold a query that returns
// rows): a statement that returns no rows. Anything it cannot read is not
// a plain write (fail closed).
func (Classifier) PlainWrite(sql string) bool {
	if prescan.Check(sql, prescan.PostgreSQL) != nil {
		return false // beyond the bounds every parser is kept to
	}
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return false
	}
	switch st := tree.GetStmts()[0].GetStmt(); {
	case st.GetInsertStmt() != nil:
		return len(st.GetInsertStmt().GetReturningList()) == 0 && st.GetInsertStmt().GetWithClause() == nil
	case st.GetUpdateStmt() != nil:
		return len(st.GetUpdateStmt().GetReturningList()) == 0 && st.GetUpdateStmt().GetWithClause() == nil
	case st.GetDeleteStmt() != nil:
		return len(st.GetDeleteStmt().GetReturningList()) == 0 && st.GetDeleteStmt().GetWithClause() == nil
	}
	return false
}
