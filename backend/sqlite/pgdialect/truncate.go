package pgdialect

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// truncate translates TRUNCATE a, b [RESTART IDENTITY]: a DELETE of
// every row of each table, referencing tables first, then a DELETE that
// matches nothing, so that the statement reports no rows affected, as
// TRUNCATE's command tag has no count. A table that a table outside the
// list references is PostgreSQL's 0A000 (CASCADE, which would truncate
// that table too, is refused). RESTART IDENTITY resets the tables'
// sequences.
func (t *translator) truncate(s *pg_query.TruncateStmt) error {
	var names []string
	for _, n := range s.GetRelations() {
		rv := n.GetRangeVar()
		if !rv.GetInh() {
			return refuse("TRUNCATE ONLY")
		}
		if _, err := t.tableName(rv); err != nil {
			return err
		}
		names = append(names, rv.GetRelname())
	}
	refs, ok := t.cat.(References)
	if !ok {
		return refuse("TRUNCATE on a catalog that cannot tell foreign keys")
	}
	for _, n := range names {
		for _, r := range refs.ReferencedBy(n) {
			if slices.Contains(names, r) {
				continue
			}
			if s.GetBehavior() == pg_query.DropBehavior_DROP_CASCADE {
				return refuse("TRUNCATE ... CASCADE when another table (%s) references %s", r, n)
			}
			return pgError("0A000", "cannot truncate a table referenced in a foreign key constraint: table %q references %q", r, n)
		}
	}
	ordered, err := t.dropOrder(names)
	if err != nil {
		return err
	}
	for _, n := range ordered {
		t.out.Statements = append(t.out.Statements, "DELETE FROM "+quoteIdent(n))
		if s.GetRestartSeqs() {
			t.out.Statements = append(t.out.Statements, t.restartSequences(n)...)
		}
	}
	t.out.Statements = append(t.out.Statements, "DELETE FROM "+quoteIdent(ordered[0])+" WHERE 0")
	return nil
}

// restartSequences resets a table's sequences to their start.
func (t *translator) restartSequences(table string) []string {
	cols, _ := t.cat.Columns(table)
	var out []string
	for _, s := range t.serialsOf(target{name: table, cols: cols}) {
		out = append(out, "UPDATE "+quoteIdent(s.seq)+` SET "last_value" = 1, "is_called" = 0`)
	}
	return out
}
