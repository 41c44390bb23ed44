package pgdialect

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func (t *translator) insert(ins *pg_query.InsertStmt) error {
	if ins.GetWithClause() != nil || ins.GetOverride() != pg_query.OverridingKind_OVERRIDING_NOT_SET {
		return refuse("INSERT with WITH or OVERRIDING")
	}
	tg, err := t.target(ins.GetRelation())
	if err != nil {
		return err
	}
	cols, err := insertColumns(ins.GetCols(), tg)
	if err != nil {
		return err
	}
	explicit := len(ins.GetCols()) > 0
	if !explicit {
		cols = implicitColumns(ins.GetSelectStmt().GetSelectStmt(), cols)
	}
	sql := "INSERT INTO " + tg.sql()
	t.inserting = tg.name
	t.fill = omittedSerials(t.serialsOf(tg), cols)
	body, rows, err := t.insertBody(ins.GetSelectStmt(), cols, explicit)
	if err != nil {
		return err
	}
	if len(t.fill) > 0 && rows < 0 {
		return refuse("INSERT ... SELECT into a table whose serial column it leaves to its sequence")
	}
	conflict, err := t.onConflict(ins.GetOnConflictClause(), tg, rows)
	if err != nil {
		return err
	}
	if rows > 1 && ins.GetOnConflictClause().GetAction() == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
		if body, err = t.guardedValues(ins.GetOnConflictClause(), tg); err != nil {
			return err
		}
	}
	sql += body
	sc := &scope{rels: []rel{{alias: tg.alias, cols: tg.cols}}}
	ret, err := t.returning(ins.GetReturningList(), sc)
	if err != nil {
		return err
	}
	if oc := ins.GetOnConflictClause(); oc.GetAction() == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
		if err := setTwice(oc.GetTargetList(), tg); err != nil {
			return err
		}
	}
	t.out.Statements = append(t.advanceSequences(rows), sql+conflict+ret)
	return nil
}

func insertColumns(items []*pg_query.Node, tg target) ([]Column, error) {
	if len(items) == 0 {
		return tg.cols, nil
	}
	var cols []Column
	seen := map[string]bool{}
	for _, n := range items {
		rt := n.GetResTarget()
		if len(rt.GetIndirection()) > 0 {
			return nil, refuse("INSERT into subscripts or fields")
		}
		c, _, err := tg.column(rt.GetName())
		if err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, pgError("42701", "column %q specified more than once", c.Name)
		}
		seen[c.Name] = true
		cols = append(cols, c)
	}
	return cols, nil
}

// implicitColumns: without a column list, VALUES rows (or a SELECT's
// targets) fill the first columns and the rest take their defaults.
func implicitColumns(s *pg_query.SelectStmt, cols []Column) []Column {
	if s == nil {
		return nil // DEFAULT VALUES: every column takes its default (a serial its sequence)
	}
	n := len(s.GetTargetList())
	if v := s.GetValuesLists(); len(v) > 0 {
		n = len(v[0].GetList().GetItems())
	}
	if len(s.GetValuesLists()) == 0 || n > len(cols) {
		return cols // a SELECT's width is known once it is translated
	}
	return cols[:n]
}

func columnList(cols []Column) string {
	var names []string
	for _, c := range cols {
		names = append(names, quoteIdent(c.Name))
	}
	return join(names, ", ")
}

// insertBody translates the column list and VALUES, SELECT or DEFAULT
// VALUES, with each value assigned to its column's type; rows is the number of VALUES rows (-1
// for a SELECT).
func (t *translator) insertBody(n *pg_query.Node, cols []Column, explicit bool) (string, int, error) {
	s := n.GetSelectStmt()
	if n == nil {
		if names, vals := t.serialValues(0, 1); len(names) > 0 {
			return " (" + join(names, ", ") + ") VALUES (" + join(vals, ", ") + ")", 1, nil
		}
		return " DEFAULT VALUES", 1, nil
	}
	if len(s.GetValuesLists()) == 0 {
		return t.insertSelect(s, cols, explicit)
	}
	if len(s.GetValuesLists()) == 1 {
		return t.singleRow(s.GetValuesLists()[0].GetList().GetItems(), cols)
	}
	var rows []string
	var keys [][]string
	for _, l := range s.GetValuesLists() {
		items := l.GetList().GetItems()
		if len(items) > len(cols) {
			return "", 0, pgError("42601", "INSERT has more expressions than target columns")
		}
		if len(items) < len(cols) {
			return "", 0, pgError("42601", "INSERT has more target columns than expressions")
		}
		row, err := t.valuesRow(items, cols, len(s.GetValuesLists()))
		if err != nil {
			return "", 0, err
		}
		keys = append(keys, row)
		_, vals := t.serialValues(len(rows), len(s.GetValuesLists()))
		rows = append(rows, "("+join(append(row, vals...), ", ")+")")
	}
	names, _ := t.serialValues(0, 1)
	list := columnList(cols)
	if len(names) > 0 {
		list += ", " + join(names, ", ")
	}
	t.values = valuesRows{head: " (" + list + ")", rows: join(rows, ", "), cols: cols, keys: keys, lists: s.GetValuesLists()}
	return t.values.head + " VALUES " + t.values.rows, len(rows), nil
}

// singleRow translates one VALUES row, leaving out the columns whose
// value is DEFAULT (SQLite has no DEFAULT in VALUES).
func (t *translator) singleRow(items []*pg_query.Node, cols []Column) (string, int, error) {
	if len(items) != len(cols) {
		return "", 0, pgError("42601", "INSERT has more %s than %s", map[bool]string{true: "expressions", false: "target columns"}[len(items) > len(cols)],
			map[bool]string{true: "target columns", false: "expressions"}[len(items) > len(cols)])
	}
	var names, vals []string
	serials := t.serialsOf(target{name: t.inserting, cols: cols})
	vs, err := t.assignedValues(items, &scope{})
	if err != nil {
		return "", 0, err
	}
	for i, item := range items {
		if item.GetSetToDefault() != nil {
			for _, s := range serials {
				if s.col.Name == cols[i].Name {
					t.fill = append(t.fill, s)
				}
			}
			continue
		}
		sql, err := t.assign(vs[i], cols[i])
		if err != nil {
			return "", 0, err
		}
		names, vals = append(names, quoteIdent(cols[i].Name)), append(vals, sql)
	}
	sn, sv := t.serialValues(0, 1)
	names, vals = append(names, sn...), append(vals, sv...)
	if len(vals) == 0 {
		return " DEFAULT VALUES", 1, nil
	}
	return " (" + join(names, ", ") + ") VALUES (" + join(vals, ", ") + ")", 1, nil
}

// valuesRow translates one VALUES row; DEFAULT is allowed in a single
// row (SQLite has no DEFAULT in VALUES: the column is left out).
func (t *translator) valuesRow(items []*pg_query.Node, cols []Column, nrows int) ([]string, error) {
	for _, item := range items {
		if item.GetSetToDefault() != nil {
			return nil, refuse("DEFAULT in VALUES")
		}
	}
	vs, err := t.assignedValues(items, &scope{})
	if err != nil {
		return nil, err
	}
	var row []string
	for i := range items {
		sql, err := t.assign(vs[i], cols[i])
		if err != nil {
			return nil, err
		}
		row = append(row, sql)
	}
	return row, nil
}

// insertSelect translates INSERT ... SELECT: the query becomes a subquery
// whose columns are assigned (and SQLite's UPSERT parsing ambiguity is
// avoided with WHERE true).
func (t *translator) insertSelect(s *pg_query.SelectStmt, cols []Column, explicit bool) (string, int, error) {
	q, err := t.insertSource(s, cols)
	if err != nil {
		return "", 0, err
	}
	if !explicit && len(q.cols) < len(cols) {
		cols = cols[:len(q.cols)]
	}
	if len(q.cols) > len(cols) {
		return "", 0, pgError("42601", "INSERT has more expressions than target columns")
	}
	if len(q.cols) < len(cols) {
		return "", 0, pgError("42601", "INSERT has more target columns than expressions")
	}
	source, names := positional(q)
	var outs []string
	for i, c := range q.cols {
		v := value{sql: "q." + quoteIdent(names[i]), typ: c.Type}
		sql, err := t.assign(v, cols[i])
		if err != nil {
			return "", 0, err
		}
		outs = append(outs, sql)
	}
	return " (" + columnList(cols) + ") SELECT " + join(outs, ", ") + " FROM (" + source + ") AS q WHERE true", -1, nil
}

// insertSource translates INSERT's SELECT. As PostgreSQL, an untyped
// output column of a plain SELECT (a string literal, a parameter) takes
// its target column's type, where a SELECT elsewhere would make it text:
// INSERT INTO t (n) SELECT '5' inserts 5, SELECT 'x' fails with 22P02.
func (t *translator) insertSource(s *pg_query.SelectStmt, cols []Column) (query, error) {
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE || s.GetWithClause() != nil {
		return t.selectQuery(s, nil)
	}
	hints := &armHints{types: make([]Type, len(cols))}
	for i, c := range cols {
		hints.types[i] = c.Type
	}
	return t.setArm(s, nil, hints)
}

// positional is the text of q with output columns its caller can name,
// and their names. INSERT ... SELECT assigns by position, and PostgreSQL
// lets two output columns share a name (SELECT g, g % 2, 'n' || g: two
// ?column?): then the columns are named c1 ... cn by a compound SELECT,
// whose names are its first arm's, an empty row of NULLs (no affinity:
// the values pass unchanged), followed by every column of q (*).
func positional(q query) (string, []string) {
	names := make([]string, len(q.cols))
	if !dupNames(q.cols) {
		for i, c := range q.cols {
			names[i] = c.Name
		}
		return q.sql, names
	}
	nulls := make([]string, len(q.cols))
	for i := range q.cols {
		names[i] = fmt.Sprintf("c%d", i+1)
		nulls[i] = "NULL AS " + quoteIdent(names[i])
	}
	return "SELECT " + join(nulls, ", ") + " WHERE false UNION ALL SELECT * FROM (" + q.sql + ")", names
}

func dupNames(cols []Column) bool {
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c.Name] {
			return true
		}
		seen[c.Name] = true
	}
	return false
}

// onConflict translates ON CONFLICT (cols) DO NOTHING / DO UPDATE SET.
// DO UPDATE on several VALUES rows is guarded (guardedValues); on a
// SELECT it is refused: PostgreSQL refuses to update a row twice in one
// statement (21000), SQLite would.
func (t *translator) onConflict(oc *pg_query.OnConflictClause, tg target, rows int) (string, error) {
	if oc == nil {
		return "", nil
	}
	inf := oc.GetInfer()
	if inf.GetConname() != "" || inf.GetWhereClause() != nil {
		return "", refuse("ON CONFLICT ON CONSTRAINT and ON CONFLICT (...) WHERE")
	}
	conflictTarget, err := inferColumns(inf, tg)
	if err != nil {
		return "", err
	}
	if oc.GetAction() == pg_query.OnConflictAction_ONCONFLICT_NOTHING {
		return " ON CONFLICT" + conflictTarget + " DO NOTHING", nil
	}
	if conflictTarget == "" {
		return "", pgError("42601", "ON CONFLICT DO UPDATE requires inference specification or constraint name")
	}
	if rows < 0 {
		return "", refuse("ON CONFLICT DO UPDATE on a SELECT")
	}
	excluded := rel{alias: "excluded", cols: tg.cols}
	sc := &scope{rels: []rel{{alias: tg.alias, cols: tg.cols}, excluded}}
	sets, err := t.setList(oc.GetTargetList(), tg, sc)
	if err != nil {
		return "", err
	}
	if oc.GetWhereClause() != nil {
		w, err := t.condition(oc.GetWhereClause(), sc, "WHERE")
		if err != nil {
			return "", err
		}
		sets += " WHERE " + w
	}
	return " ON CONFLICT" + conflictTarget + " DO UPDATE SET " + sets, nil
}

func inferColumns(inf *pg_query.InferClause, tg target) (string, error) {
	if inf == nil {
		return "", nil
	}
	var names []string
	for _, n := range inf.GetIndexElems() {
		e := n.GetIndexElem()
		if e.GetExpr() != nil || len(e.GetCollation()) > 0 || len(e.GetOpclass()) > 0 {
			return "", refuse("ON CONFLICT on expressions, collations or operator classes")
		}
		c, _, err := tg.column(e.GetName())
		if err != nil {
			return "", err
		}
		names = append(names, quoteIdent(c.Name))
	}
	return " (" + join(names, ", ") + ")", nil
}
