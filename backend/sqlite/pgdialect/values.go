package pgdialect

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// valuesQuery translates VALUES (...), (...) as a query: columns
// column1, column2 ... whose types are each column's common type (untyped
// values text), as PostgreSQL resolves them.
func (t *translator) valuesQuery(s *pg_query.SelectStmt, parent *scope) (query, error) {
	cols, rows, err := t.valuesRows(s, parent)
	if err != nil {
		return query{}, err
	}
	return query{sql: valuesSelect(cols, rows), cols: cols}, nil
}

// valuesRows translates the rows of VALUES (...), (...): the columns
// (column1 ...) with their types and SQLite's rows, "(a, b), (c, d)".
func (t *translator) valuesRows(s *pg_query.SelectStmt, parent *scope) ([]Column, string, error) {
	if len(s.GetSortClause()) > 0 || s.GetLimitCount() != nil || s.GetLimitOffset() != nil {
		return nil, "", refuse("VALUES with ORDER BY, LIMIT or OFFSET")
	}
	var rows [][]value
	for _, l := range s.GetValuesLists() {
		vals, err := t.args(l.GetList().GetItems(), &scope{parent: parent})
		if err != nil {
			return nil, "", err
		}
		if len(rows) > 0 && len(vals) != len(rows[0]) {
			return nil, "", pgError("42601", "VALUES lists must all be the same length")
		}
		rows = append(rows, vals)
	}
	cols := make([]Column, len(rows[0]))
	for j := range cols {
		var column []value
		for _, row := range rows {
			column = append(column, row[j])
		}
		typ, err := commonType("VALUES", column)
		if err != nil {
			return nil, "", err
		}
		cols[j] = Column{Name: fmt.Sprintf("column%d", j+1), Type: typ}
	}
	var out []string
	for _, row := range rows {
		var items []string
		for j, v := range row {
			sql, err := t.coerce(v, cols[j].Type, ctxImplicit)
			if err != nil {
				return nil, "", err
			}
			items = append(items, sql)
		}
		out = append(out, "("+join(items, ", ")+")")
	}
	return cols, join(out, ", "), nil
}

// valuesSelect names SQLite's VALUES columns (column1 ...) explicitly. A
// numeric or char(n) column is named under RTRIM: SQLite gives a VALUES
// column the collation of its first row's item, which a NULL or a
// converted value does not carry (targetSQL).
func valuesSelect(cols []Column, rows string) string {
	var names []string
	for _, c := range cols {
		name := quoteIdent(c.Name)
		if c.Type.Name == "numeric" || c.Type.Name == "bpchar" {
			name = "(" + name + " COLLATE RTRIM)"
		}
		names = append(names, name+" AS "+quoteIdent(c.Name))
	}
	return "SELECT " + join(names, ", ") + " FROM (VALUES " + rows + ")"
}
