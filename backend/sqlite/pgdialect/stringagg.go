package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// stringAgg is string_agg(text, delimiter [ORDER BY ...]) as SQLite's
// group_concat(x, delimiter ORDER BY ...): both skip NULL values and give
// NULL for no value. The delimiter must be a constant string (PostgreSQL
// reads a NULL delimiter as empty, SQLite as a comma); without ORDER BY
// the order is the rows' (pggate adds one on block statements).
func (t *translator) stringAgg(f *pg_query.FuncCall, sc *scope) (value, error) {
	if t.aggDepth > 0 {
		return value{}, pgError("42803", "aggregate function calls cannot be nested")
	}
	if len(f.GetArgs()) != 2 || f.GetAggStar() || f.GetAggFilter() != nil || f.GetAggDistinct() {
		return value{}, refuse("this call of string_agg (DISTINCT, FILTER, other arguments)")
	}
	t.sawAgg = true
	t.aggDepth++
	defer func() { t.aggDepth-- }()
	args, err := t.args(f.GetArgs(), sc)
	if err != nil {
		return value{}, err
	}
	if args[1].lit == nil {
		return value{}, refuse("string_agg with a delimiter that is not a constant string")
	}
	s, err := t.textArgs("string_agg", args)
	if err != nil {
		return value{}, err
	}
	order, err := t.aggOrder(f.GetAggOrder(), sc)
	if err != nil {
		return value{}, err
	}
	return value{sql: "group_concat(" + s[0] + ", " + s[1] + order + ")", typ: tText, name: "string_agg"}, nil
}

// aggOrder translates an aggregate's ORDER BY with PostgreSQL's NULL
// order written out.
func (t *translator) aggOrder(items []*pg_query.Node, sc *scope) (string, error) {
	if len(items) == 0 {
		return "", nil
	}
	var keys []string
	for _, n := range items {
		sb := n.GetSortBy()
		if len(sb.GetUseOp()) > 0 {
			return "", refuse("ORDER BY ... USING")
		}
		v, err := t.outputValue(sb.GetNode(), sc)
		if err != nil {
			return "", err
		}
		if err := orderable(v.typ); err != nil {
			return "", err
		}
		keys = append(keys, nonPositional(v.sql)+sortSuffix(sb))
	}
	return " ORDER BY " + join(keys, ", "), nil
}
