package pgdialect

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// assign converts a value stored into a column of type to, as
// PostgreSQL's assignment casts do (42804 where it has none). MariaDB's
// strict mode fails an out-of-range integer or numeric (22003) and a too
// long varchar (22001), and truncates trailing spaces past varchar(n)
// silently, as PostgreSQL does.
func (t *translator) assign(v val, to Type, col string) (val, error) {
	if err := settled(v, to); err != nil {
		return val{}, err
	}
	v.pendingDiv = false
	if v.untyped() {
		return t.coerce(v, to)
	}
	from := v.typ
	ok := false
	switch {
	case intRank(to) > 0:
		ok = intRank(from) > 0 || from.Name == "numeric"
	case to.Name == "numeric":
		ok = intRank(from) > 0 || from.Name == "numeric"
	case to.Name == "float8":
		ok = isNumber(from)
	case isDateTime(to) && isDateTime(from) && from.Name != to.Name:
		return dateTimeAssigned(v, to), nil
	case isText(to):
		// PostgreSQL's assignment casts to text types write the value's
		// text (its output function).
		if !isText(from) {
			tv, err := t.asText(v)
			if err != nil {
				return val{}, err
			}
			return tv, nil
		}
		ok = true
	default:
		ok = from.Name == to.Name
	}
	if ok && v.ival != nil && intRank(to) > 0 && t.noFold == 0 {
		// the planner folds the assignment cast of a constant: out of
		// range, it fails before any row is written
		if lo, hi := intRange(to.Name); *v.ival < lo || *v.ival > hi {
			return t.planError(pgError("22003", "%s out of range", map[string]string{"int2": "smallint", "int4": "integer", "int8": "bigint"}[to.Name]), to), nil
		}
	}
	if !ok {
		if isNumber(to) && from.Name == "float8" {
			return val{}, refuse("storing float8 into %s", to.Name)
		}
		return val{}, pgError("42804", "column %q is of type %s but expression is of type %s", col, typeString(to), typeString(from))
	}
	return v, nil
}

// dateTimeAssigned is v, a date or timestamp, stored into a column of
// another of those types, as PostgreSQL's assignment casts convert it in
// the session's time zone, UTC (the dialect's timestamps are UTC):
// midnight of a date, the date of a timestamp.
func dateTimeAssigned(v val, to Type) val {
	mariaType := "DATETIME(6)"
	if to.Name == "date" {
		mariaType = "DATE"
	}
	out := typed("CAST("+v.sql+" AS "+mariaType+")", to)
	out.nullConst, out.notNull = v.nullConst, v.notNull
	return out
}

// target resolves an INSERT, UPDATE or DELETE's table, in a new scope.
func (t *translator) target(rv *pg_query.RangeVar) (string, []Column, error) {
	cols, err := t.tableColumns(rv)
	if err != nil {
		return "", nil, err
	}
	name := rv.GetRelname()
	if a := rv.GetAlias(); a != nil {
		return "", nil, refuse("an alias of the table an INSERT, UPDATE or DELETE writes")
	}
	t.push()
	return name, cols, t.add(rel{name: name, cols: cols})
}

// insert translates INSERT ... VALUES / SELECT [RETURNING].
func (t *translator) insert(s *pg_query.InsertStmt) error {
	if s.GetOnConflictClause() != nil || s.GetWithClause() != nil || s.GetOverride() != pg_query.OverridingKind_OVERRIDING_NOT_SET {
		return refuse("ON CONFLICT, WITH and OVERRIDING")
	}
	name, cols, err := t.target(s.GetRelation())
	if err != nil {
		return err
	}
	defer t.pop()
	var targets []Column
	for _, c := range s.GetCols() {
		rt := c.GetResTarget()
		if len(rt.GetIndirection()) > 0 {
			return refuse("INSERT into subscripts or fields")
		}
		col, ok := findColumn(cols, rt.GetName())
		if !ok {
			return pgError("42703", "column %q of relation %q does not exist", rt.GetName(), name)
		}
		targets = append(targets, col)
	}
	if len(s.GetCols()) == 0 {
		targets = cols
	}
	// A column left out without a DEFAULT gets an explicit NULL: MariaDB
	// fails a NOT NULL one with class 23 (1048), as PostgreSQL (23502).
	var missing []Column
	for _, c := range cols {
		if _, listed := findColumn(targets, c.Name); !listed && !c.Default {
			missing = append(missing, c)
		}
	}
	sel := s.GetSelectStmt().GetSelectStmt()
	if sel == nil {
		return refuse("INSERT ... DEFAULT VALUES")
	}
	var body string
	var order []int // the targets' order in the translation
	if len(sel.GetValuesLists()) > 0 {
		body, order, err = t.insertValues(sel.GetValuesLists(), targets, len(missing))
	} else {
		var sorted []Column
		sel, sorted, order = notNullLast(sel, targets)
		body, err = t.insertSelect(sel, sorted, len(missing))
	}
	if err != nil {
		return err
	}
	var names []string
	for _, i := range order {
		names = append(names, quoteIdent(targets[i].Name))
	}
	for _, c := range missing {
		names = append(names, quoteIdent(c.Name))
	}
	sql := "INSERT INTO " + quoteIdent(name) + " (" + join(names, ", ") + ") " + body
	ret, err := t.returning(s.GetReturningList())
	if err != nil {
		return err
	}
	t.out.Statements = []string{sql + ret}
	t.out.CheckWarnings = true
	return nil
}

// findColumn finds a column by name.
func findColumn(cols []Column, name string) (Column, bool) {
	for _, c := range cols {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// insertValues translates VALUES rows; order is the order the targets'
// values take in them (insertOrder).
func (t *translator) insertValues(rows []*pg_query.Node, targets []Column, nulls int) (body string, order []int, err error) {
	var parts [][]string
	nullish := make([]bool, len(targets))
	for _, r := range rows {
		row, err := t.valuesRow(r.GetList().GetItems(), targets, nullish)
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, row)
	}
	order = insertOrder(nullish)
	var out []string
	for _, row := range parts {
		items := make([]string, 0, len(row)+nulls)
		for _, i := range order {
			items = append(items, row[i])
		}
		for range nulls {
			items = append(items, "NULL")
		}
		out = append(out, "("+join(items, ", ")+")")
	}
	return "VALUES " + join(out, ", "), order, nil
}

// insertOrder puts the targets given a NULL constant in some row, and
// the NOT NULL ones given a value that may be NULL at run time (a
// parameter, an expression over one), last: PostgreSQL computes a row's
// values before it checks NOT NULL, MariaDB checks each column as it
// stores it, in the order of the column list, so a value out of range
// elsewhere in the row fails first on both. (Two such NOT NULL columns,
// the first NULL and the second failing, still fail 23 on MariaDB where
// PostgreSQL fails 22.)
func insertOrder(nullish []bool) []int {
	var order, last []int
	for i, n := range nullish {
		if n {
			last = append(last, i)
		} else {
			order = append(order, i)
		}
	}
	return append(order, last...)
}

// valuesRow translates one VALUES row, marking in nullish the targets it
// gives a NULL constant. PostgreSQL analyses a row's expressions, then
// converts each to its column's type (transformInsertRow): an error of
// the analysis comes before a conversion's.
func (t *translator) valuesRow(items []*pg_query.Node, targets []Column, nullish []bool) ([]string, error) {
	if len(items) > len(targets) {
		return nil, pgError("42601", "INSERT has more expressions than target columns")
	}
	if len(items) < len(targets) {
		return nil, pgError("42601", "INSERT has more target columns than expressions")
	}
	vals := make([]val, len(items))
	for i, it := range items {
		if it.GetSetToDefault() != nil {
			continue
		}
		v, err := t.exprAny(it)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	parts := make([]string, len(items))
	for i, it := range items {
		if it.GetSetToDefault() != nil {
			parts[i] = "DEFAULT"
			continue
		}
		v, err := t.assign(vals[i], targets[i].Type, targets[i].Name)
		if err != nil {
			return nil, err
		}
		nullish[i] = nullish[i] || v.null || v.nullConst || (targets[i].NotNull && mayBeNull(v))
		parts[i] = v.sql
	}
	return parts, nil
}

// notNullLast is INSERT ... SELECT sel into targets with the NOT NULL
// targets, and their items of the select list, last (order: the targets'
// new order), as insertOrder does for VALUES: MariaDB computes and stores
// each column of a row in turn and checks NOT NULL as it stores it, where
// PostgreSQL computes the row first, so a NULL stored early failed 23
// before a later column's failure (22). A select list PostgreSQL's
// positions refer to (ORDER BY or GROUP BY 2), or with *, keeps its order.
func notNullLast(sel *pg_query.SelectStmt, targets []Column) (*pg_query.SelectStmt, []Column, []int) {
	list := sel.GetTargetList()
	order := make([]int, 0, len(targets))
	for _, late := range []bool{false, true} {
		for i, c := range targets {
			if c.NotNull == late {
				order = append(order, i)
			}
		}
	}
	if len(list) != len(targets) || !permutable(sel) || slices.IsSorted(order) {
		return sel, targets, insertOrder(make([]bool, len(targets)))
	}
	out := proto.Clone(sel).(*pg_query.SelectStmt)
	sorted := make([]Column, len(order))
	for k, i := range order {
		out.TargetList[k] = list[i]
		sorted[k] = targets[i]
	}
	return out, sorted, order
}

// permutable: sel's select list can be reordered without changing what it
// means (no position refers to it, no * expands in it).
func permutable(sel *pg_query.SelectStmt) bool {
	positional := func(n *pg_query.Node) bool {
		if sb := n.GetSortBy(); sb != nil {
			n = sb.GetNode()
		}
		return n.GetAConst() != nil
	}
	for _, n := range append(slices.Clone(sel.GetSortClause()), sel.GetGroupClause()...) {
		if positional(n) {
			return false
		}
	}
	for _, n := range sel.GetTargetList() {
		if ref := n.GetResTarget().GetVal().GetColumnRef(); ref != nil && slices.ContainsFunc(ref.GetFields(), func(f *pg_query.Node) bool { return f.GetAStar() != nil }) {
			return false
		}
	}
	return len(sel.GetDistinctClause()) == 0
}

// insertSelect translates INSERT ... SELECT, checking each column's
// assignment.
func (t *translator) insertSelect(sel *pg_query.SelectStmt, targets []Column, nulls int) (string, error) {
	var extra []string
	for range nulls {
		extra = append(extra, "NULL")
	}
	// The SELECT does not see the target table.
	outer := t.scope
	t.scope = &scope{parent: outer.parent}
	for _, c := range targets {
		t.insertTypes = append(t.insertTypes, c.Type)
	}
	sql, cols, err := t.selectSQL(sel, extra)
	t.scope = outer
	if err != nil {
		return "", err
	}
	if len(cols) != len(targets) {
		return "", pgError("42601", "INSERT has %d target columns and %d expressions", len(targets), len(cols))
	}
	for i, c := range cols {
		if isText(targets[i].Type) && !isText(c.Type) {
			return "", refuse("INSERT ... SELECT of a %s into the text column %s", c.Type.Name, targets[i].Name)
		}
		if _, err := t.assign(typed("", c.Type), targets[i].Type, targets[i].Name); err != nil {
			return "", err
		}
	}
	return sql, nil
}

// returning translates RETURNING over the target table in scope.
func (t *translator) returning(list []*pg_query.Node) (string, error) {
	if len(list) == 0 {
		return "", nil
	}
	vs, cols, err := t.targets(list, nil)
	if err != nil {
		return "", err
	}
	var items []string
	for i, v := range vs {
		items = append(items, v.sql+" AS "+quoteIdent(cols[i].Name))
	}
	t.out.Columns = cols
	return " RETURNING " + join(items, ", "), nil
}

// update translates UPDATE ... SET ... [FROM ...] [WHERE ...]; RETURNING
// (which MariaDB lacks) as the UPDATE then a SELECT of the same rows, when
// the SET changes no column the WHERE reads.
func (t *translator) update(s *pg_query.UpdateStmt) error {
	if s.GetWithClause() != nil {
		return refuse("WITH")
	}
	name, cols, err := t.target(s.GetRelation())
	if err != nil {
		return err
	}
	defer t.pop()
	from, err := t.fromList(s.GetFromClause())
	if err != nil {
		return err
	}
	sets, assigned, err := t.setList(s.GetTargetList(), name, cols)
	if err != nil {
		return err
	}
	t.reads = map[string]bool{}
	where, err := t.condition(s.GetWhereClause(), "WHERE")
	reads := t.reads
	t.reads = nil
	if err != nil {
		return err
	}
	tables := quoteIdent(name)
	if from != "" {
		tables += ", " + from
	}
	t.out.Statements = []string{"UPDATE " + tables + " SET " + join(sets, ", ") + where}
	t.out.CheckWarnings = true
	if len(s.GetReturningList()) == 0 {
		return nil
	}
	if from != "" {
		return refuse("UPDATE ... FROM ... RETURNING")
	}
	for c := range reads {
		if assigned[c] {
			return refuse("UPDATE ... RETURNING whose SET changes a column its WHERE reads (%s): MariaDB has no UPDATE ... RETURNING, and the rows are read again by the WHERE", c)
		}
	}
	ret, err := t.returning(s.GetReturningList())
	if err != nil {
		return err
	}
	t.out.Statements = append(t.out.Statements, "SELECT"+ret[len(" RETURNING"):]+" FROM "+quoteIdent(name)+where)
	return nil
}

// setList translates SET's assignments in PostgreSQL's order of errors:
// every SET expression is analysed first, then each target column and
// its assignment, then (its rewriter) a column set twice. MariaDB
// assigns left to right (a later item sees an earlier one's new value),
// PostgreSQL from the old row: an item reading a column an earlier item
// assigns is refused.
func (t *translator) setList(list []*pg_query.Node, table string, cols []Column) ([]string, map[string]bool, error) {
	vals := make([]val, len(list))
	reads := make([]map[string]bool, len(list))
	for i, n := range list {
		rt := n.GetResTarget()
		if len(rt.GetIndirection()) > 0 || rt.GetVal().GetMultiAssignRef() != nil {
			return nil, nil, refuse("SET of subscripts, fields or (a, b) = ...")
		}
		if rt.GetVal().GetSetToDefault() != nil {
			continue
		}
		t.reads = map[string]bool{}
		v, err := t.exprAny(rt.GetVal())
		vals[i], reads[i], t.reads = v, t.reads, nil
		if err != nil {
			return nil, nil, err
		}
	}
	targets := make([]Column, len(list))
	for i, n := range list {
		rt := n.GetResTarget()
		col, ok := findColumn(cols, rt.GetName())
		if !ok {
			return nil, nil, pgError("42703", "column %q of relation %q does not exist", rt.GetName(), table)
		}
		targets[i] = col
		if rt.GetVal().GetSetToDefault() != nil {
			vals[i] = typed("DEFAULT", col.Type)
			continue
		}
		var err error
		if vals[i], err = t.assign(vals[i], col.Type, col.Name); err != nil {
			return nil, nil, err
		}
	}
	return t.setItems(table, targets, vals, reads)
}

// setItems is SET's MariaDB text once every item is analysed: a column
// set twice is PostgreSQL's rewriter's error; an item reading a column an
// earlier one assigns is refused.
func (t *translator) setItems(table string, targets []Column, vals []val, reads []map[string]bool) ([]string, map[string]bool, error) {
	var sets []string
	assigned := map[string]bool{}
	for i, col := range targets {
		if assigned[col.Name] {
			return nil, nil, pgError("42601", "multiple assignments to same column %q", col.Name)
		}
		for c := range reads[i] {
			if assigned[c] {
				return nil, nil, refuse("a SET item reading %s, which an earlier SET item assigns (MariaDB assigns left to right)", c)
			}
		}
		assigned[col.Name] = true
		sets = append(sets, quoteIdent(table)+"."+quoteIdent(col.Name)+" = "+vals[i].sql)
	}
	return sets, assigned, nil
}

// delete translates DELETE [WHERE ...] [RETURNING ...].
func (t *translator) delete(s *pg_query.DeleteStmt) error {
	if s.GetWithClause() != nil || len(s.GetUsingClause()) > 0 {
		return refuse("DELETE with WITH or USING")
	}
	name, _, err := t.target(s.GetRelation())
	if err != nil {
		return err
	}
	defer t.pop()
	where, err := t.condition(s.GetWhereClause(), "WHERE")
	if err != nil {
		return err
	}
	ret, err := t.returning(s.GetReturningList())
	if err != nil {
		return err
	}
	t.out.Statements = []string{"DELETE FROM " + quoteIdent(name) + where + ret}
	t.out.CheckWarnings = true
	return nil
}
