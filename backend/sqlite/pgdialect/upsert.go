package pgdialect

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// valuesRows is a multi-row INSERT's translated VALUES: the column list
// (with the serial columns filled from their sequences), the rows' text,
// each row's translated values of the listed columns (keys) and the rows
// as parsed (lists).
type valuesRows struct {
	head, rows string
	cols       []Column
	keys       [][]string
	lists      []*pg_query.Node
}

// cardinalityMessage is PostgreSQL's error when one INSERT ... ON CONFLICT
// DO UPDATE proposes two rows with the same arbiter key.
const cardinalityMessage = "ON CONFLICT DO UPDATE command cannot affect row a second time"

// guardedValues is the body of INSERT ... VALUES (several rows) ... ON
// CONFLICT (cols) DO UPDATE. PostgreSQL fails with 21000 when two proposed
// rows share a (non-NULL) arbiter key, as the second would update the row
// the first inserted or updated; SQLite's UPSERT would update it twice.
// So the rows are inserted from SELECT * FROM (VALUES ...) (in their
// order) WHERE a guard finds no two rows' keys equal, calling pg_raise
// otherwise. The keys are evaluated twice, so each must be a parameter or
// a constant; a serial column filled from its sequence differs on every
// row, so an arbiter naming one needs no guard. An arbiter column the list
// leaves to its default, a SET of an arbiter column (the updated row's
// new key could meet a later row) and DO UPDATE ... WHERE are refused.
func (t *translator) guardedValues(oc *pg_query.OnConflictClause, tg target) (string, error) {
	v := t.values
	if oc.GetWhereClause() != nil {
		// WHERE decides whether a row updated by an earlier proposed row
		// (21000) or an existing row left alone (no error) is met.
		return "", refuse("ON CONFLICT DO UPDATE ... WHERE on several VALUES rows")
	}
	if err := setsNoArbiter(oc); err != nil {
		return "", err
	}
	var at []int
	for _, n := range oc.GetInfer().GetIndexElems() {
		name := n.GetIndexElem().GetName()
		if _, filled := findColumn(fillColumns(t.fill), name); filled {
			return v.head + " VALUES " + v.rows, nil
		}
		i := columnIndex(v.cols, name)
		if i < 0 {
			return "", refuse("ON CONFLICT DO UPDATE on several VALUES rows whose arbiter column %q takes its default", name)
		}
		at = append(at, i)
	}
	keys, err := v.keyRows(at)
	if err != nil {
		return "", err
	}
	var group, notNull []string
	for j := range at {
		c := fmt.Sprintf("column%d", j+1)
		group, notNull = append(group, c), append(notNull, c+" IS NOT NULL")
	}
	guard := "(SELECT pg_raise('21000', " + quoteString(cardinalityMessage) + ", count(*)) FROM (VALUES " + join(keys, ", ") +
		") WHERE " + join(notNull, " AND ") + " GROUP BY " + join(group, ", ") + " HAVING count(*) > 1) IS NULL"
	return v.head + " SELECT * FROM (VALUES " + v.rows + ") WHERE " + guard, nil
}

// keyRows are the rows' arbiter key values (columns at), refused unless
// each is a parameter or a constant.
func (v valuesRows) keyRows(at []int) ([]string, error) {
	var out []string
	for r, l := range v.lists {
		items := l.GetList().GetItems()
		var key []string
		for _, i := range at {
			if !constantItem(items[i]) {
				return nil, refuse("ON CONFLICT DO UPDATE on several VALUES rows whose arbiter key is not a parameter or a constant")
			}
			key = append(key, v.keys[r][i])
		}
		out = append(out, "("+join(key, ", ")+")")
	}
	return out, nil
}

// constantItem: n is a parameter or a constant, perhaps cast.
func constantItem(n *pg_query.Node) bool {
	switch {
	case n.GetParamRef() != nil, n.GetAConst() != nil:
		return true
	case n.GetTypeCast() != nil:
		return constantItem(n.GetTypeCast().GetArg())
	}
	return false
}

// setsNoArbiter refuses a DO UPDATE SET of an arbiter column.
func setsNoArbiter(oc *pg_query.OnConflictClause) error {
	for _, n := range oc.GetTargetList() {
		set := n.GetResTarget().GetName()
		for _, e := range oc.GetInfer().GetIndexElems() {
			if set == e.GetIndexElem().GetName() {
				return refuse("ON CONFLICT DO UPDATE on several VALUES rows that sets an arbiter column")
			}
		}
	}
	return nil
}

func fillColumns(fill []serialColumn) []Column {
	var out []Column
	for _, s := range fill {
		out = append(out, s.col)
	}
	return out
}

func columnIndex(cols []Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}
