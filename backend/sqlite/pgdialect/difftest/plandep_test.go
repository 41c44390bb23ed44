package difftest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgreSQL leaves some outcomes to its plan, and says so: "the order of
// evaluation of subexpressions is not defined" (the manual, 4.2.14), so
// an error in one WHERE or ON condition is raised or not depending on
// which condition its planner tests first (it orders them by cost), and
// whether a set operation's arm is read at all, or which of equal
// numerics of different scales represents them, is its executor's
// choice. The translator answers each deterministically, with the choice
// SQLite's plan makes (pgdialect/DESIGN.md, "Known differences"). The
// harness does not ignore such differences: it counts one as
// plan-dependent only when both engines, asked the part of the statement
// in question alone, agree on an answer that accounts for it (prober):
//
//   - one engine failed with a data exception (class 22), the other
//     succeeded, and one of the statement's conditions (a conjunct of its
//     WHERE or of a join's ON, BETWEEN being two; an INSERT's SELECT
//     included) raises that very SQLSTATE
//     on both engines when evaluated alone over the rows of the FROM
//     items: the engine that succeeded tested another condition first,
//     which rejected those rows;
//   - PostgreSQL failed with a data exception in INTERSECT or EXCEPT,
//     SQLite succeeded, the left arm has no rows and the right arm alone
//     raises that SQLSTATE on both engines: SQLite does not read the right
//     arm of an INTERSECT or EXCEPT whose left arm is empty; or, in an
//     INTERSECT, the right arm has no rows and the left arm raises: SQLite
//     merges arms under an ORDER BY and stops at the right arm's end;
//   - one engine failed with a data exception, the other succeeded, one
//     of the inner-joined tables is empty and a condition over the others
//     raises it on both engines: the join order decides whether it runs;
//   - one engine failed with a data exception, the other succeeded, and a
//     subquery of the statement alone raises it on both engines: the one
//     that succeeded did not run the subquery to its failing row (SQLite
//     skips the subquery of NULL IN (SELECT …));
//   - x IN (SELECT c …) as the WHERE, whose subquery has no non-NULL c,
//     and x alone raises the error on both engines: PostgreSQL's
//     semi-join, its inner side empty, never reads the outer rows;
//   - INSERT … SELECT failed on both, one with an integrity violation
//     (class 23), the other with an error the SELECT alone raises on both:
//     which comes first depends on whether the SELECT is read whole first;
//   - an UPDATE failed with 23505 on one engine and succeeded on the
//     other: both check a unique index as each row is written, so a key
//     moved onto one a later row vacates fails by the order rows are met
//     in. PostgreSQL failed: SQLite's success is an order that works, and
//     PostgreSQL, the table's unique constraints made DEFERRABLE INITIALLY
//     DEFERRED and checked at the statement's end (rolled back), succeeds
//     with SQLite's RETURNING rows and table (uniqueOrder). SQLite failed:
//     one row alone raises 23505 on both engines, and PostgreSQL meeting
//     it first fails too;
//   - a LIMIT cuts through rows tied on equal numerics of different
//     scales: the results are one sequence with scales read away, and
//     SQLite's rows are rows of the statement without its LIMIT;
//   - a window of row_number, ntile, lag or lead orders peers: PostgreSQL
//     with the translation's tie-break added to the window's ORDER BY
//     gives SQLite's answer on both engines (windowPeers);
//   - the rows of a set operation without ALL differ only in the display
//     scale of equal numerics (or the trailing spaces of equal bpchars
//     without a length), and each such value SQLite shows is one of the
//     values PostgreSQL had to choose from (its arms' rows); the same for
//     DISTINCT, GROUP BY, min and max over the rows read (numericChoice).
//
// Anything else is a discrepancy.

// planDependent reports why the difference between pgO and liteO is one
// PostgreSQL's plan decides, confirmed on both engines ("kind: detail");
// "" when it is not.
func (e *prober) planDependent(st translated, pgO, liteO outcome) string {
	res, err := pg_query.Parse(st.sql)
	if err != nil || len(res.Stmts) != 1 {
		return ""
	}
	stmt := res.Stmts[0].Stmt
	failed, code := pgO, pgO.Code
	if liteO.failed() {
		failed, code = liteO, liteO.Code
	}
	if pgO.failed() != liteO.failed() && sqlstateClass(failed.Code) == "22" {
		if why := e.conditionRaises(stmt, code); why != "" {
			return why
		}
		if why := e.subqueryRaises(stmt, code); why != "" {
			return why
		}
		if why := e.semiJoinSkipped(readOf(stmt), code); why != "" {
			return why
		}
		if pgO.failed() {
			return e.skippedArmWithin(stmt.GetSelectStmt(), code)
		}
		return e.stoppedAtLimit(stmt.GetSelectStmt(), code)
	}
	if why := e.uniqueOrder(stmt, st, pgO, liteO); why != "" {
		return why
	}
	if pgO.failed() && liteO.failed() {
		if why := e.insertedFirst(stmt, pgO.Code, liteO.Code); why != "" {
			return why
		}
		return e.updatedFirst(stmt, pgO.Code, liteO.Code)
	}
	if !pgO.failed() && !liteO.failed() {
		ordered := totalOrder(st.sql, len(pgO.Columns), pgO.Columns)
		if why := e.numericRepresentative(stmt.GetSelectStmt(), pgO, liteO, ordered); why != "" {
			return why
		}
		if why := e.numericChoice(stmt.GetSelectStmt(), pgO, liteO, ordered); why != "" {
			return why
		}
		if why := e.limitedTies(stmt.GetSelectStmt(), pgO, liteO); why != "" {
			return why
		}
		return e.windowPeers(stmt.GetSelectStmt(), liteO, ordered)
	}
	return ""
}

// conditionRaises: a condition of stmt raises code on PostgreSQL when
// evaluated alone over the rows of its FROM items (there must be two
// conditions at least, or there is no order to choose).
func (e *prober) conditionRaises(stmt *pg_query.Node, code string) string {
	if q := stmt.GetInsertStmt().GetSelectStmt(); q.GetSelectStmt() != nil && len(q.GetSelectStmt().GetValuesLists()) == 0 {
		// INSERT … SELECT: its query's conditions (random 7101/8144)
		return e.conditionRaises(q, code)
	}
	if s := stmt.GetSelectStmt(); s != nil {
		// the statement's query, and those of its WITH and of its FROM
		// (one level down: the generator's CTEs and derived tables)
		queries := []*pg_query.SelectStmt{s}
		for _, c := range s.GetWithClause().GetCtes() {
			queries = append(queries, c.GetCommonTableExpr().GetCtequery().GetSelectStmt())
		}
		for _, f := range s.GetFromClause() {
			queries = append(queries, f.GetRangeSubselect().GetSubquery().GetSelectStmt())
		}
		for _, q := range queries {
			if why := e.queryConditionRaises(q, code); why != "" {
				return why
			}
		}
		return ""
	}
	var from []*pg_query.Node
	var conds []*pg_query.Node
	switch {
	case stmt.GetUpdateStmt() != nil && len(stmt.GetUpdateStmt().GetFromClause()) == 0:
		from = []*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: stmt.GetUpdateStmt().GetRelation()}}}
		conds = conjuncts(stmt.GetUpdateStmt().GetWhereClause(), nil)
	case stmt.GetDeleteStmt() != nil && len(stmt.GetDeleteStmt().GetUsingClause()) == 0:
		from = []*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: stmt.GetDeleteStmt().GetRelation()}}}
		conds = conjuncts(stmt.GetDeleteStmt().GetWhereClause(), nil)
	}
	return e.conditionsRaise(from, conds, code)
}

// queryConditionRaises is conditionRaises for a query without set
// operations.
func (e *prober) queryConditionRaises(s *pg_query.SelectStmt, code string) string {
	if s == nil || s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return ""
	}
	var from, conds []*pg_query.Node
	for _, f := range s.GetFromClause() {
		if !fromItems(f, &from, &conds) {
			return ""
		}
	}
	conds = conjuncts(s.GetWhereClause(), conds)
	if why := e.conditionsRaise(from, conds, code); why != "" {
		return why
	}
	if innerOnly(s.GetFromClause()) {
		return e.emptyJoinSide(from, conds, code)
	}
	return ""
}

// innerOnly: the FROM items are tables joined by commas, CROSS JOIN or
// inner JOIN … ON (an empty one makes the result empty).
func innerOnly(from []*pg_query.Node) bool {
	for _, f := range from {
		if j := f.GetJoinExpr(); j != nil && (j.GetJointype() != pg_query.JoinType_JOIN_INNER || !innerOnly([]*pg_query.Node{j.GetLarg(), j.GetRarg()})) {
			return false
		}
	}
	return true
}

// emptyJoinSide: one of the inner-joined tables has no rows on both
// engines, and a condition that does not name it raises code on both over
// the tables it names: whether it is evaluated at all is the join order's
// choice (SQLite's loop over the empty table first never reaches it;
// PostgreSQL filters the other table's scan first, or skips it when a
// hash join's inner side is empty).
func (e *prober) emptyJoinSide(from, conds []*pg_query.Node, code string) string {
	if len(from) < 2 {
		return ""
	}
	for _, f := range from {
		q := &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(pg_query.MakeAConstIntNode(1, -1), -1)}, FromClause: []*pg_query.Node{f}, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
		sql, err := deparse(q)
		if err != nil {
			return ""
		}
		if o := e.probe(sql); o.failed() || len(o.Rows) != 0 {
			continue
		}
		for _, c := range conds {
			items := named(from, c)
			if len(items) == len(from) || slices.Contains(items, f) {
				continue
			}
			q := &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(c, -1)}, FromClause: items, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
			sql, err := deparse(q)
			if err != nil {
				continue
			}
			if got := e.probe(sql); got.Code == code {
				return fmt.Sprintf("empty join side: %s has no rows and %s raises %s on both engines (%s); whether the condition is evaluated is the join order's choice", firstLine(deparseOr(f)), firstLine(sql), code, got.Message)
			}
		}
	}
	return ""
}

// deparseOr is a FROM item's text, for a message.
func deparseOr(f *pg_query.Node) string {
	sql, err := deparse(&pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(pg_query.MakeAConstIntNode(1, -1), -1)}, FromClause: []*pg_query.Node{f}, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT})
	if err != nil {
		return "a FROM item"
	}
	return strings.TrimPrefix(sql, "SELECT 1 FROM ")
}

// conditionsRaise: one of conds raises code on both engines over the rows
// of the FROM items it names (all of them when it names none by alias).
func (e *prober) conditionsRaise(from, conds []*pg_query.Node, code string) string {
	if len(conds) < 2 || len(from) == 0 {
		return ""
	}
	for _, c := range conds {
		items := named(from, c)
		// over the tables' rows, and over the first one's rows with the
		// others null-extended, as an outer join evaluates a condition
		// (or not, once its planner has made the join an inner one)
		for _, f := range [][]*pg_query.Node{items, {nullExtended(items)}} {
			q := &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(c, -1)}, FromClause: f, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
			sql, err := deparse(q)
			if err != nil {
				continue
			}
			if got := e.probe(sql); got.Code == code {
				return fmt.Sprintf("order of conditions: %s raises %s on both engines over the FROM items' rows (%s); the engine that succeeded tested another condition first, or not on those rows", firstLine(sql), code, got.Message)
			}
		}
	}
	return ""
}

// nullExtended is items[0] LEFT JOIN items[1] ON false LEFT JOIN …: the
// first item's rows, the others' columns NULL.
func nullExtended(items []*pg_query.Node) *pg_query.Node {
	out := items[0]
	for _, it := range items[1:] {
		out = &pg_query.Node{Node: &pg_query.Node_JoinExpr{JoinExpr: &pg_query.JoinExpr{
			Jointype: pg_query.JoinType_JOIN_LEFT, Larg: out, Rarg: it, Quals: &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: false}}, Location: -1}}}}}}
	}
	return out
}

// named is the FROM items the expression c names by alias (or table
// name); all of them when it names none of them.
func named(from []*pg_query.Node, c *pg_query.Node) []*pg_query.Node {
	refs := map[string]bool{}
	var walk func(m proto.Message)
	walk = func(m proto.Message) {
		if cr, ok := m.(*pg_query.ColumnRef); ok {
			if f := cr.GetFields(); len(f) > 1 {
				refs[f[0].GetString_().GetSval()] = true
			}
			return
		}
		m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message().Interface())
				}
			default:
				walk(v.Message().Interface())
			}
			return true
		})
	}
	walk(c)
	var out []*pg_query.Node
	for _, f := range from {
		rv := f.GetRangeVar()
		name := rv.GetRelname()
		if rv.GetAlias() != nil {
			name = rv.GetAlias().GetAliasname()
		}
		if refs[name] {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return from
	}
	return out
}

// subqueryRaises: a subquery in a condition of stmt (x IN (SELECT …),
// EXISTS, a scalar subquery) raises code on both engines run alone: the
// engine that succeeded did not run it to the failing row (SQLite does
// not run the subquery of NULL IN (SELECT …), nor a WHERE over no rows;
// PostgreSQL runs a condition without columns once, before any row).
func (e *prober) subqueryRaises(stmt *pg_query.Node, code string) string {
	var subs []*pg_query.SelectStmt
	var walk func(m proto.Message)
	walk = func(m proto.Message) {
		if sl, ok := m.(*pg_query.SubLink); ok {
			if q := sl.GetSubselect().GetSelectStmt(); q != nil {
				subs = append(subs, q)
			}
		}
		m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message().Interface())
				}
			default:
				walk(v.Message().Interface())
			}
			return true
		})
	}
	walk(stmt)
	for _, q := range subs {
		sql, err := deparse(q)
		if err != nil {
			continue
		}
		if got := e.probe(sql); got.Code == code {
			return fmt.Sprintf("unread subquery: %s raises %s on both engines run alone (%s); the engine that succeeded did not run it to that row", firstLine(sql), code, got.Message)
		}
	}
	return ""
}

// semiJoinSkipped: s's WHERE is x IN (SELECT c …) whose subquery has no
// row with c not NULL on both engines, and x alone raises code on both
// over the FROM's rows: PostgreSQL runs the IN as a semi-join and, its
// inner side (hashed on c, NULLs left out) empty, never reads the outer
// rows; SQLite evaluates x on each.
func (e *prober) semiJoinSkipped(s *pg_query.SelectStmt, code string) string {
	if s == nil || s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return ""
	}
	sl := s.GetWhereClause().GetSubLink()
	sub := sl.GetSubselect().GetSelectStmt()
	if sl == nil || sl.GetSubLinkType() != pg_query.SubLinkType_ANY_SUBLINK || sub == nil || len(sub.GetTargetList()) != 1 {
		return ""
	}
	var from, conds []*pg_query.Node
	for _, f := range s.GetFromClause() {
		if !fromItems(f, &from, &conds) {
			return ""
		}
	}
	inner, err := deparse(sub)
	if err != nil {
		return ""
	}
	if o := e.probe("SELECT count(*) FROM (" + inner + ") AS s (c) WHERE s.c IS NOT NULL"); o.failed() || len(o.Rows) != 1 || o.Rows[0][0] != int64(0) {
		return ""
	}
	lhs, err := deparse(&pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(sl.GetTestexpr(), -1)}, FromClause: from, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT})
	if err != nil {
		return ""
	}
	if got := e.probe(lhs); got.Code == code {
		return fmt.Sprintf("semi-join: the subquery of x IN (SELECT …) has no non-NULL row and x raises %s on both engines alone (%s); PostgreSQL's semi-join never reads the outer rows", code, got.Message)
	}
	return ""
}

// readOf is stmt's query, or for an UPDATE or DELETE of one table the
// query of the rows it reads (SELECT FROM the table WHERE its WHERE).
func readOf(stmt *pg_query.Node) *pg_query.SelectStmt {
	var rel *pg_query.RangeVar
	var where *pg_query.Node
	switch {
	case stmt.GetSelectStmt() != nil:
		return stmt.GetSelectStmt()
	case stmt.GetUpdateStmt() != nil && len(stmt.GetUpdateStmt().GetFromClause()) == 0:
		rel, where = stmt.GetUpdateStmt().GetRelation(), stmt.GetUpdateStmt().GetWhereClause()
	case stmt.GetDeleteStmt() != nil && len(stmt.GetDeleteStmt().GetUsingClause()) == 0:
		rel, where = stmt.GetDeleteStmt().GetRelation(), stmt.GetDeleteStmt().GetWhereClause()
	default:
		return nil
	}
	return &pg_query.SelectStmt{FromClause: []*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: rel}}}, WhereClause: where, Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
}

// insertedFirst: stmt is INSERT … SELECT, one engine failed with an
// integrity violation (class 23) and the other with an error its SELECT
// alone raises on both engines: which comes first, a row inserted that
// violates a key or the SELECT's failing row, depends on whether the
// SELECT is read whole before the insert (SQLite, reading the table it
// inserts into) or row by row (PostgreSQL).
func (e *prober) insertedFirst(stmt *pg_query.Node, pgCode, liteCode string) string {
	ins := stmt.GetInsertStmt()
	if ins == nil || ins.GetSelectStmt().GetSelectStmt() == nil || len(ins.GetSelectStmt().GetSelectStmt().GetValuesLists()) > 0 {
		return ""
	}
	code := liteCode
	switch {
	case sqlstateClass(pgCode) == "23" && sqlstateClass(liteCode) != "23":
	case sqlstateClass(liteCode) == "23" && sqlstateClass(pgCode) != "23":
		code = pgCode
	default:
		return ""
	}
	sql, err := deparse(ins.GetSelectStmt().GetSelectStmt())
	if err != nil {
		return ""
	}
	if got := e.probe(sql); got.Code == code {
		return fmt.Sprintf("insert or select first: the SELECT raises %s on both engines alone (%s); the other engine inserted a violating row first", code, got.Message)
	}
	return ""
}

// updatedFirst: stmt is an UPDATE that failed on both engines with
// different SQLSTATEs, and each of the two is what the UPDATE raises on
// both engines when it reaches one row of the table alone (rowAlone):
// two rows fail for different reasons, and which fails first is the
// order the engine visits them in, PostgreSQL's heap order (an updated
// row moves to its end) or SQLite's rowid or index order.
func (e *prober) updatedFirst(stmt *pg_query.Node, pgCode, liteCode string) string {
	u := stmt.GetUpdateStmt()
	if u == nil || len(u.GetFromClause()) > 0 || u.GetWithClause() != nil || pgCode == liteCode {
		return ""
	}
	codes := e.rowAlone(u)
	if codes[pgCode] && codes[liteCode] {
		return fmt.Sprintf("row order: one row alone raises %s, another %s, on both engines; each engine met another first", pgCode, liteCode)
	}
	return ""
}

// rowAlone is the SQLSTATEs u raises on both engines when restricted to
// one row of its table (CASE WHEN its columns IS NOT DISTINCT FROM the
// row's values, sent as text, THEN u's WHERE ELSE false END: the WHERE is
// evaluated on that row alone, so a WHERE that raises on one row and an
// assignment that fails on another are told apart, random 7601/11812),
// each probe rolled back on both engines.
func (e *prober) rowAlone(u *pg_query.UpdateStmt) map[string]bool {
	out := map[string]bool{}
	sel := &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(&pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{{Node: &pg_query.Node_AStar{AStar: &pg_query.A_Star{}}}}}}}, -1)},
		FromClause: []*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: u.GetRelation()}}}, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
	sql, err := deparse(sel)
	if err != nil {
		return out
	}
	rows := e.probe(sql)
	if rows.failed() || len(rows.Rows) > 20 {
		return out
	}
	for _, r := range rows.Rows {
		one := proto.Clone(u).(*pg_query.UpdateStmt)
		var this *pg_query.Node
		args := append([]any(nil), e.args...) // the row's values follow the statement's own
		for i, v := range r {
			col := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(rows.Columns[i])}, -1)
			var c *pg_query.Node
			if v == nil {
				c = &pg_query.Node{Node: &pg_query.Node_NullTest{NullTest: &pg_query.NullTest{Arg: col, Nulltesttype: pg_query.NullTestType_IS_NULL, Location: -1}}}
			} else {
				text, ok := v.(string)
				if !ok {
					text = render(v)
				}
				args = append(args, text)
				c = pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT, []*pg_query.Node{pg_query.MakeStrNode("=")}, col, &pg_query.Node{Node: &pg_query.Node_ParamRef{ParamRef: &pg_query.ParamRef{Number: int32(len(args)), Location: -1}}}, -1)
			}
			this = and(this, c)
		}
		one.WhereClause = onRowOnly(this, one.GetWhereClause())
		text, err := pg_query.Deparse(&pg_query.ParseResult{Version: parseVersion, Stmts: []*pg_query.RawStmt{{Stmt: &pg_query.Node{Node: &pg_query.Node_UpdateStmt{UpdateStmt: one}}}}})
		if err != nil {
			return out
		}
		if code := e.probeWrite(text, args); code != "" {
			out[code] = true
		}
	}
	return out
}

// onRowOnly is CASE WHEN row THEN where ELSE false END (row alone when
// where is nil): where is evaluated on the row row selects and no other.
func onRowOnly(row, where *pg_query.Node) *pg_query.Node {
	if where == nil {
		return row
	}
	no := &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: false}}, Location: -1}}}
	c := pg_query.MakeCaseExprNode(nil, []*pg_query.Node{pg_query.MakeCaseWhenNode(row, where, -1)}, -1)
	c.GetCaseExpr().Defresult = no
	return c
}

// and is a AND b (a may be nil).
func and(a, b *pg_query.Node) *pg_query.Node {
	if a == nil {
		return b
	}
	return pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, []*pg_query.Node{a, b}, -1)
}

// probeWrite runs a writing statement on both engines and rolls it back
// on both; its SQLSTATE when both fail with the same one, else "".
func (e *prober) probeWrite(sql string, args []any) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.pg.conn.PgConn().Exec(ctx, "BEGIN; SET LOCAL relchain.tx = '0'").ReadAll(); err != nil {
		return ""
	}
	pgO := e.pg.runStatement(ctx, translated{sql: sql, args: args})
	_, _ = e.pg.conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll()
	if err := e.lite.conn.Exec("SAVEPOINT probe"); err != nil {
		return ""
	}
	st := translated{sql: sql, args: args}
	st.tr, st.err = e.h.translate(sql, e.lite.cat, args)
	liteO := e.lite.run(st)
	_ = e.lite.conn.Exec("ROLLBACK TO probe")
	_ = e.lite.conn.Exec("RELEASE probe")
	if !pgO.failed() || pgO.Code != liteO.Code {
		return ""
	}
	return pgO.Code
}

// numericChoice: s is a query without set operations that chooses
// (DISTINCT, GROUP BY, min/max, a set operation within it) whose results
// differ only in the display scale of equal numerics (a group's key, a
// DISTINCT row, a min or max of equal values), each numeric SQLite shows
// being a value of its column on PostgreSQL over the rows read: s without
// DISTINCT, GROUP BY, HAVING, ORDER BY and LIMIT, min(x) and max(x) read
// as x; a scalar subquery's min(x) or max(x) in the select list read as
// x over the subquery's rows. PostgreSQL shows the form of the row its
// plan meets first (last for min/max); the translation the smallest
// (largest) as stored.
func (e *prober) numericChoice(s *pg_query.SelectStmt, pgO, liteO outcome, ordered bool) string {
	if s == nil || s.GetOp() != pg_query.SetOperation_SETOP_NONE || len(s.GetValuesLists()) > 0 || len(pgO.Types) != len(liteO.Types) {
		return ""
	}
	numeric := equalForms(pgO.Types)
	if !chooses(s) || !scalesOnly(pgO, liteO, ordered) {
		return ""
	}
	rows := readRows(s)
	sql, err := deparse(rows)
	if err != nil {
		return ""
	}
	o := e.probe(sql)
	if o.failed() || len(o.Types) != len(numeric) {
		return ""
	}
	candidates := map[string]bool{}
	for _, r := range append(o.Rows, pgO.Rows...) {
		for i, v := range r {
			candidates[fmt.Sprint(i, render(v))] = true
		}
	}
	e.subqueryCandidates(s.GetTargetList(), candidates)
	for _, r := range liteO.Rows {
		for i, v := range r {
			if numeric[i] && v != nil && !candidates[fmt.Sprint(i, render(v))] {
				return ""
			}
		}
	}
	return "numeric choice: SQLite shows another of the equal numerics (of different display scales) or bpchars (trailing spaces) of the rows read"
}

// chooses: s, or a query within it, picks one of equal values: DISTINCT,
// GROUP BY, a set operation, min or max. A query that only reads rows
// shows each row's own form, and a scale of another row there is no
// choice of PostgreSQL's plan.
func chooses(m proto.Message) bool {
	switch n := m.(type) {
	case *pg_query.SelectStmt:
		if len(n.GetDistinctClause()) > 0 || len(n.GetGroupClause()) > 0 || n.GetOp() != pg_query.SetOperation_SETOP_NONE {
			return true
		}
	case *pg_query.FuncCall:
		if name := n.GetFuncname()[len(n.GetFuncname())-1].GetString_().GetSval(); name == "min" || name == "max" {
			return true
		}
	}
	found := false
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && !found; i++ {
				found = chooses(v.List().Get(i).Message().Interface())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = chooses(v.Message().Interface())
		}
		return !found
	})
	return found
}

// readRows is s without DISTINCT, GROUP BY, HAVING, ORDER BY and LIMIT,
// min(x) and max(x) read as x and other aggregates as NULL: the rows
// whose values s chooses from.
func readRows(s *pg_query.SelectStmt) *pg_query.SelectStmt {
	rows := proto.Clone(s).(*pg_query.SelectStmt)
	rows.DistinctClause, rows.GroupClause, rows.HavingClause, rows.SortClause = nil, nil, nil, nil
	rows.LimitCount, rows.LimitOffset, rows.LimitOption = nil, nil, pg_query.LimitOption_LIMIT_OPTION_DEFAULT
	for _, t := range rows.TargetList {
		rt := t.GetResTarget()
		f := rt.GetVal().GetFuncCall()
		if f == nil || f.GetOver() != nil {
			continue
		}
		switch name := f.GetFuncname()[len(f.GetFuncname())-1].GetString_().GetSval(); {
		case (name == "min" || name == "max") && len(f.GetArgs()) == 1:
			rt.Val = f.GetArgs()[0]
		case otherAggregates[name]:
			rt.Val = &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}} // a column compared as it is
		}
	}
	return rows
}

// subqueryCandidates adds to candidates, for each output column that is a
// scalar subquery of one min(x) or max(x) ((SELECT min(i.n) FROM t i)),
// the values of x over the subquery's own rows (readRows), read on both
// engines. A correlated subquery fails alone and adds nothing.
func (e *prober) subqueryCandidates(targets []*pg_query.Node, candidates map[string]bool) {
	for i, t := range targets {
		sl := t.GetResTarget().GetVal().GetSubLink()
		sub := sl.GetSubselect().GetSelectStmt()
		if sl == nil || sl.GetSubLinkType() != pg_query.SubLinkType_EXPR_SUBLINK || sub == nil ||
			sub.GetOp() != pg_query.SetOperation_SETOP_NONE || len(sub.GetTargetList()) != 1 {
			continue
		}
		f := sub.GetTargetList()[0].GetResTarget().GetVal().GetFuncCall()
		if f == nil || f.GetOver() != nil || len(f.GetArgs()) != 1 {
			continue
		}
		if name := f.GetFuncname()[len(f.GetFuncname())-1].GetString_().GetSval(); name != "min" && name != "max" {
			continue
		}
		sql, err := deparse(readRows(sub))
		if err != nil {
			continue
		}
		if o := e.probe(sql); !o.failed() {
			for _, r := range o.Rows {
				candidates[fmt.Sprint(i, render(r[0]))] = true
			}
		}
	}
}

// otherAggregates are aggregates other than min and max, whose value
// numericChoice does not read from a row.
var otherAggregates = map[string]bool{"count": true, "sum": true, "avg": true, "bool_and": true, "bool_or": true, "every": true, "string_agg": true, "array_agg": true}

// fromItems appends the tables of a FROM item (joins taken apart) and the
// conjuncts of its joins' ON; false for anything else (a subquery, a
// function, USING).
func fromItems(n *pg_query.Node, from, conds *[]*pg_query.Node) bool {
	if n.GetRangeVar() != nil {
		*from = append(*from, n)
		return true
	}
	j := n.GetJoinExpr()
	if j == nil || len(j.GetUsingClause()) > 0 || j.GetIsNatural() {
		return false
	}
	*conds = conjuncts(j.GetQuals(), *conds)
	return fromItems(j.GetLarg(), from, conds) && fromItems(j.GetRarg(), from, conds)
}

// conjuncts appends the conditions an AND of n is made of, a BETWEEN
// being two comparisons (as PostgreSQL's parse analysis makes it).
func conjuncts(n *pg_query.Node, out []*pg_query.Node) []*pg_query.Node {
	switch {
	case n == nil:
		return out
	case n.GetBoolExpr() != nil && n.GetBoolExpr().GetBoolop() == pg_query.BoolExprType_AND_EXPR:
		for _, a := range n.GetBoolExpr().GetArgs() {
			out = conjuncts(a, out)
		}
		return out
	case n.GetAExpr() != nil && n.GetAExpr().GetKind() == pg_query.A_Expr_Kind_AEXPR_BETWEEN:
		a := n.GetAExpr()
		if b := a.GetRexpr().GetList().GetItems(); len(b) == 2 {
			ge := pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode(">=")}, a.GetLexpr(), b[0], -1)
			le := pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("<=")}, a.GetLexpr(), b[1], -1)
			return append(out, ge, le)
		}
	}
	return append(out, n)
}

// skippedArm: s is an INTERSECT or EXCEPT whose left arm has no rows on
// PostgreSQL and whose right arm alone raises code there.
func (e *prober) skippedArm(s *pg_query.SelectStmt, code string) string {
	if s == nil || s.GetAll() || s.GetOp() != pg_query.SetOperation_SETOP_INTERSECT && s.GetOp() != pg_query.SetOperation_SETOP_EXCEPT {
		return ""
	}
	if why := e.unreadLeftArm(s, code); why != "" {
		return why
	}
	left, err := deparse(s.GetLarg())
	if err != nil {
		return ""
	}
	if l := e.probe(left); l.failed() || len(l.Rows) != 0 {
		return ""
	}
	// The right arm as the set operation reads it: its columns take the
	// operation's types (an implicit cast to the left arm's float8 can be
	// what fails), so it is probed after an empty copy of the left arm.
	empty := proto.Clone(s.GetLarg()).(*pg_query.SelectStmt)
	empty.LimitCount, empty.LimitOption = pg_query.MakeAConstIntNode(0, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT
	right, err := deparse(&pg_query.SelectStmt{Op: pg_query.SetOperation_SETOP_UNION, All: true, Larg: empty, Rarg: s.GetRarg(), LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT})
	if err != nil {
		return ""
	}
	if r := e.probe(right); r.Code == code {
		return fmt.Sprintf("unread set-operation arm: the left arm of the %s has no rows and its right arm raises %s on both engines (%s); SQLite does not read it", map[bool]string{true: "INTERSECT", false: "EXCEPT"}[s.GetOp() == pg_query.SetOperation_SETOP_INTERSECT], code, r.Message)
	}
	return ""
}

// unreadLeftArm: s is an INTERSECT whose right arm has no rows on both
// engines and whose left arm, as the operation reads it, raises code on
// both: SQLite merges the arms of a set operation with an ORDER BY in
// that order (an index can give the left arm's without a sort) and stops
// at the end of either, so the left arm's rows after it are not read.
func (e *prober) unreadLeftArm(s *pg_query.SelectStmt, code string) string {
	if s.GetOp() != pg_query.SetOperation_SETOP_INTERSECT {
		return ""
	}
	right, err := deparse(s.GetRarg())
	if err != nil {
		return ""
	}
	if r := e.probe(right); r.failed() || len(r.Rows) != 0 {
		return ""
	}
	empty := proto.Clone(s.GetRarg()).(*pg_query.SelectStmt)
	empty.LimitCount, empty.LimitOption = pg_query.MakeAConstIntNode(0, -1), pg_query.LimitOption_LIMIT_OPTION_COUNT
	left, err := deparse(&pg_query.SelectStmt{Op: pg_query.SetOperation_SETOP_UNION, All: true, Larg: s.GetLarg(), Rarg: empty, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT})
	if err != nil {
		return ""
	}
	if l := e.probe(left); l.Code == code {
		return fmt.Sprintf("unread set-operation arm: the right arm of the INTERSECT has no rows and its left arm raises %s on both engines (%s); SQLite's merge stops at the right arm's end", code, l.Message)
	}
	return ""
}

// stoppedAtLimit: PostgreSQL succeeded, SQLite raised code, and s
// without its LIMIT, OFFSET and ORDER BY raises code on both engines:
// PostgreSQL stopped reading rows at the LIMIT before the failing one (its
// plan needs no sort when the ORDER BY keys are constants, which it
// drops), SQLite read them all (DESIGN.md's Known differences).
func (e *prober) stoppedAtLimit(s *pg_query.SelectStmt, code string) string {
	if s == nil || s.GetLimitCount() == nil {
		return ""
	}
	all := proto.Clone(s).(*pg_query.SelectStmt)
	all.LimitCount, all.LimitOffset, all.SortClause, all.LimitOption = nil, nil, nil, pg_query.LimitOption_LIMIT_OPTION_DEFAULT
	sql, err := deparse(all)
	if err != nil {
		return ""
	}
	if got := e.probe(sql); got.Code == code {
		return fmt.Sprintf("stopped at the limit: without its LIMIT the query raises %s on both engines (%s); PostgreSQL stopped reading rows first", code, got.Message)
	}
	return ""
}

// skippedArmWithin is skippedArm for s or a set operation nested in its
// arms ((a INTERSECT b) UNION ALL c).
func (e *prober) skippedArmWithin(s *pg_query.SelectStmt, code string) string {
	if s == nil {
		return ""
	}
	if why := e.skippedArm(s, code); why != "" {
		return why
	}
	if s.GetOp() == pg_query.SetOperation_SETOP_NONE {
		return ""
	}
	if why := e.skippedArmWithin(s.GetLarg(), code); why != "" {
		return why
	}
	return e.skippedArmWithin(s.GetRarg(), code)
}

// numericRepresentative: s is a set operation without ALL whose results
// differ only in the display scale of equal numerics, each numeric SQLite
// shows being one of its arms' values on PostgreSQL.
func (e *prober) numericRepresentative(s *pg_query.SelectStmt, pgO, liteO outcome, ordered bool) string {
	if s == nil || !distinctSetOp(s) || len(pgO.Types) != len(liteO.Types) {
		return ""
	}
	numeric := equalForms(pgO.Types)
	if !scalesOnly(pgO, liteO, ordered) {
		return ""
	}
	// PostgreSQL's own values, and its arms' (an arm of another type
	// shows them converted: numeric -1.00 is float8 -1 in the result)
	candidates := map[string]bool{}
	for _, r := range pgO.Rows {
		for i, v := range r {
			if numeric[i] {
				candidates[fmt.Sprint(v)] = true
			}
		}
	}
	for _, leaf := range leafArms(s, nil) {
		arm, err := deparse(leaf)
		if err != nil {
			return ""
		}
		o := e.probe(arm)
		if o.failed() {
			return ""
		}
		for _, r := range o.Rows {
			for i, v := range r {
				if i < len(numeric) && numeric[i] {
					candidates[fmt.Sprint(v)] = true // an integer arm's 5 is numeric 5
				}
			}
		}
	}
	for _, r := range liteO.Rows {
		for i, v := range r {
			if numeric[i] && v != nil && !candidates[fmt.Sprint(v)] {
				return ""
			}
		}
	}
	return "numeric representative: SQLite shows another of the equal numerics (of different display scales, or floats' -0 and 0) or bpchars (trailing spaces) its arms give"
}

// equalForms marks the columns whose equal values can show differently:
// numerics (1.0 and 1.00) and floats (-0 and 0, equal under float8eq;
// an expression gives -0, PostgreSQL's float8 = hashes and sorts them as
// one value and shows the one its plan meets first: DESIGN.md, "Equal
// values of several stored forms"), and bpchar without a length ('a' and
// 'a ', equal under bpchareq, which ignores trailing spaces; DISTINCT
// keeps the first its hash or sort meets). A bpchar with a length pads
// every value to it, so its equal values are one form.
func equalForms(types []string) []bool {
	out := make([]bool, len(types))
	for i, t := range types {
		out[i] = t == "numeric" || strings.HasPrefix(t, "numeric/") || t == "float4" || t == "float8" || t == "bpchar"
	}
	return out
}

// formsRead is rows with each column of several stored forms read as its
// value: numerics without their display scale and floats' -0 as 0
// (numericValues), bpchar without its trailing spaces.
func formsRead(rows [][]any, types []string) [][]any {
	numeric := equalForms(types)
	for i, t := range types {
		numeric[i] = numeric[i] && t != "bpchar" // numericValues would read '1.50' as 1.5
	}
	out := numericValues(rows, numeric)
	for _, r := range out {
		for j, v := range r {
			if s, ok := v.(string); ok && j < len(types) && types[j] == "bpchar" {
				r[j] = strings.TrimRight(s, " ")
			}
		}
	}
	return out
}

// scalesOnly: the rows differ (not only in their order), and read with
// the numeric columns' display scales (bpchar's trailing spaces) taken
// away they are the same rows, in the same order when the statement's
// ORDER BY orders them totally.
func scalesOnly(pgO, liteO outcome, ordered bool) bool {
	if rowDifferences(pgO.Rows, liteO.Rows, false) == nil {
		return false // an order difference is not a choice of scale
	}
	return rowDifferences(formsRead(pgO.Rows, pgO.Types), formsRead(liteO.Rows, pgO.Types), ordered) == nil
}

// distinctSetOp: s is a set operation without ALL, or has one among its
// nested arms ((a UNION b) UNION ALL c).
func distinctSetOp(s *pg_query.SelectStmt) bool {
	if s == nil || s.GetOp() == pg_query.SetOperation_SETOP_NONE {
		return false
	}
	return !s.GetAll() || distinctSetOp(s.GetLarg()) || distinctSetOp(s.GetRarg())
}

// leafArms appends the queries of s's set operations that are not set
// operations themselves.
func leafArms(s *pg_query.SelectStmt, out []*pg_query.SelectStmt) []*pg_query.SelectStmt {
	if s.GetOp() == pg_query.SetOperation_SETOP_NONE {
		return append(out, s)
	}
	return leafArms(s.GetRarg(), leafArms(s.GetLarg(), out))
}

// parseVersion is the parse tree version pg_query's deparser expects.
var parseVersion = func() int32 {
	res, err := pg_query.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return res.GetVersion()
}()

// deparse is the SQL text of s.
// limitedTies: s has a LIMIT that cuts through rows its ORDER BY leaves
// tied (equal numerics of different scales): the results are the same
// sequence with scales read away, and every row SQLite returned is a row
// of the statement without its LIMIT and OFFSET on both engines.
func (e *prober) limitedTies(s *pg_query.SelectStmt, pgO, liteO outcome) string {
	if s == nil || s.GetLimitCount() == nil || len(pgO.Types) != len(liteO.Types) {
		return ""
	}
	if rowDifferences(formsRead(pgO.Rows, pgO.Types), formsRead(liteO.Rows, pgO.Types), true) != nil {
		return ""
	}
	all := proto.Clone(s).(*pg_query.SelectStmt)
	all.LimitCount, all.LimitOffset, all.LimitOption = nil, nil, pg_query.LimitOption_LIMIT_OPTION_DEFAULT
	sql, err := deparse(all)
	if err != nil {
		return ""
	}
	o := e.probe(sql)
	if o.failed() {
		return ""
	}
	rows := map[string]int{}
	for _, r := range o.Rows {
		rows[renderRow(r)]++
	}
	for _, r := range liteO.Rows {
		if rows[renderRow(r)] == 0 {
			return ""
		}
		rows[renderRow(r)]--
	}
	return "limited ties: the LIMIT cuts through rows tied on equal numerics; SQLite's are rows of the unlimited result"
}

func deparse(s *pg_query.SelectStmt) (string, error) {
	s = proto.Clone(s).(*pg_query.SelectStmt)
	delimitOperands(s)
	return pg_query.Deparse(&pg_query.ParseResult{Version: parseVersion, Stmts: []*pg_query.RawStmt{{Stmt: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: s}}}}})
}

// delimitOperands wraps each operand of an operator, BETWEEN, IN, LIKE,
// IS [NOT] DISTINCT FROM, IS [NOT] NULL or IS [NOT] TRUE that is itself
// such an expression (or AND/OR/NOT) in CASE WHEN true THEN … END, the
// same value: pg_query's deparser leaves many of them without the
// parentheses their precedence needs ((a IS DISTINCT FROM b) BETWEEN x
// AND y comes out as a IS DISTINCT FROM b BETWEEN x AND y, which
// PostgreSQL reads as a IS DISTINCT FROM (b BETWEEN x AND y); (a = b) IS
// NOT DISTINCT FROM (c IS NULL) as a syntax error), so a probe built from
// such a statement asked another question (random 8101/5686, 7003/576).
func delimitOperands(m proto.Message) {
	switch x := m.(type) {
	case *pg_query.A_Expr:
		delimit(&x.Lexpr)
		if l := x.GetRexpr().GetList(); l != nil {
			for i := range l.Items {
				delimit(&l.Items[i])
			}
		} else {
			delimit(&x.Rexpr)
		}
	case *pg_query.NullTest:
		delimit(&x.Arg)
	case *pg_query.BooleanTest:
		delimit(&x.Arg)
	}
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				delimitOperands(v.List().Get(i).Message().Interface())
			}
		case fd.Message() != nil && !fd.IsMap():
			delimitOperands(v.Message().Interface())
		}
		return true
	})
}

// delimit wraps *side in CASE WHEN true THEN … END when it is an
// expression the deparser may leave undelimited.
func delimit(side **pg_query.Node) {
	n := *side
	if n.GetAExpr() == nil && n.GetNullTest() == nil && n.GetBooleanTest() == nil && n.GetBoolExpr() == nil {
		return
	}
	yes := &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: true}}, Location: -1}}}
	*side = pg_query.MakeCaseExprNode(nil, []*pg_query.Node{pg_query.MakeCaseWhenNode(yes, n, -1)}, -1)
}

// prober asks both engines of a case a part of a statement.
type prober struct {
	pg   *pgEngine
	lite *liteEngine
	h    *harness
	// args are the statement's arguments: a probe is a part of the
	// statement and keeps its placeholders (probeArgs).
	args []any
}

// probeArgs is the arguments a probe's text takes: the statement's first
// n when the text references exactly $1 … $n (a part of the statement
// keeps its placeholders), none when it references none or another set
// (PostgreSQL cannot type an unreferenced placeholder: the probe fails,
// and proves nothing, as without arguments).
func (e *prober) probeArgs(sql string) []any {
	if len(e.args) == 0 {
		return nil
	}
	res, err := pg_query.Parse(sql)
	if err != nil {
		return nil
	}
	seen := map[int32]bool{}
	var top int32
	for _, st := range res.Stmts {
		paramRefs(st, func(n int32) {
			seen[n] = true
			top = max(top, n)
		})
	}
	if top == 0 || int(top) > len(e.args) || len(seen) != int(top) {
		return nil
	}
	return e.args[:top]
}

// paramRefs calls f with the number of every placeholder in m.
func paramRefs(m proto.Message, f func(int32)) {
	if p, ok := m.(*pg_query.ParamRef); ok {
		f(p.GetNumber())
		return
	}
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				paramRefs(v.List().Get(i).Message().Interface(), f)
			}
		case fd.Message() != nil && !fd.IsMap():
			paramRefs(v.Message().Interface(), f)
		}
		return true
	})
}

// probe runs sql on PostgreSQL (in a transaction it rolls back) and,
// translated, on SQLite; the outcome is PostgreSQL's when both engines
// agree on the SQLSTATE (or both succeed), else a "probe" failure that
// confirms nothing.
func (e *prober) probe(sql string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.pg.conn.PgConn().Exec(ctx, "BEGIN; SET LOCAL relchain.tx = '0'").ReadAll(); err != nil {
		return errorOutcome(err)
	}
	args := e.probeArgs(sql)
	pgO := e.pg.runStatement(ctx, translated{sql: sql, args: args})
	_, _ = e.pg.conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll()
	st := translated{sql: sql, args: args}
	st.tr, st.err = e.h.translate(sql, e.lite.cat, args)
	liteO := e.lite.run(st)
	if liteO.Code != pgO.Code {
		return outcome{Code: "probe", Message: fmt.Sprintf("the engines differ on %s: postgres %q, sqlite %q", sql, pgO.Code, liteO.Code)}
	}
	return pgO
}

// probePG runs sql on PostgreSQL alone, in a transaction rolled back.
func (e *prober) probePG(sql string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.pg.conn.PgConn().Exec(ctx, "BEGIN; SET LOCAL relchain.tx = '0'").ReadAll(); err != nil {
		return errorOutcome(err)
	}
	defer func() { _, _ = e.pg.conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll() }()
	return e.pg.runStatement(ctx, translated{sql: sql, args: e.probeArgs(sql)})
}

// TestPlanDependentNeedsBothEngines: a difference counts as
// plan-dependent only when both engines confirm its cause; planted
// outcomes whose cause the engines do not confirm stay discrepancies.
func TestPlanDependentNeedsBothEngines(t *testing.T) {
	h := newHarness(t)
	h.schemas++
	pgE, err := newPGEngine(h.pg, fmt.Sprintf("difftest_plandep_%d", h.schemas), h.types)
	if err != nil {
		t.Fatal(err)
	}
	defer pgE.close()
	lite, err := newLiteEngine()
	if err != nil {
		t.Fatal(err)
	}
	defer lite.close()
	for _, sql := range []string{
		"CREATE TABLE t (a int4, b int4)", "INSERT INTO t VALUES (1, 0), (2, 1)",
		"CREATE TABLE e (a int4)", "CREATE TABLE n (x numeric)", "INSERT INTO n VALUES (1.0), (2), (1.00)",
		"CREATE TABLE u (k int4 PRIMARY KEY, d int4)", "INSERT INTO u VALUES (1, 0), (2, 1), (3, 1)",
		"CREATE TABLE bp (c bpchar)", "INSERT INTO bp VALUES ('a '), ('a'), ('1.50')",
	} {
		st := translated{sql: sql}
		st.tr, st.err = h.translate(sql, lite.cat, nil)
		if o, l := pgE.run(st), lite.run(st); o.failed() || l.failed() {
			t.Fatalf("%s: postgres %s, sqlite %s", sql, o, l)
		}
	}
	p := &prober{pg: pgE, lite: lite, h: h}
	ok := outcome{Columns: []string{"a"}, Types: []string{"int4"}, Rows: [][]any{{int64(2)}}}
	div0 := outcome{Code: "22012", Message: "division by zero"}
	for _, c := range []struct {
		sql        string
		pg, lite   outcome
		plan       bool
		whyPlanted string
	}{
		{"SELECT a FROM t WHERE b <> 0 AND a / b > 0", ok, div0, true, "a / b raises 22012 on a row b <> 0 rejects"},
		{"SELECT a FROM t WHERE a / b > 0 AND b <> 0", div0, ok, true, "the same, the other way"},
		{"SELECT a FROM t WHERE b <> 0 AND a / b > 0", ok, outcome{Code: "22003", Message: "integer out of range"}, false, "no condition raises 22003"},
		{"SELECT a FROM t WHERE a / b > 0", ok, div0, false, "one condition: no order to choose"},
		{"SELECT a FROM t WHERE b <> 0 AND a > 0", ok, div0, false, "no condition raises"},
		{"SELECT a FROM e EXCEPT SELECT 1 / (a - a) FROM t", div0, outcome{Columns: []string{"a"}, Types: []string{"int4"}}, true, "empty left arm, right arm raises"},
		{"SELECT a FROM t EXCEPT SELECT 1 / (a - a) FROM t", div0, outcome{Columns: []string{"a"}, Types: []string{"int4"}}, false, "the left arm has rows"},
		{"SELECT 1 / (a - a) FROM t INTERSECT SELECT a FROM e ORDER BY 1", div0, outcome{Columns: []string{"?column?"}, Types: []string{"int4"}}, true, "empty right arm of an INTERSECT, left arm raises"},
		{"SELECT 1 / (a - a) FROM t INTERSECT SELECT a FROM t ORDER BY 1", div0, outcome{Columns: []string{"?column?"}, Types: []string{"int4"}}, false, "the right arm has rows"},
		{"SELECT a FROM t INTERSECT SELECT a FROM e ORDER BY 1", div0, outcome{Columns: []string{"a"}, Types: []string{"int4"}}, false, "the left arm does not raise"},
		{"SELECT x.a FROM e CROSS JOIN t x WHERE 1 / (x.a - x.a) > 0", div0, outcome{Columns: []string{"a"}, Types: []string{"int4"}}, true, "e is empty, the condition on x raises"},
		{"SELECT x.a FROM t y CROSS JOIN t x WHERE 1 / (x.a - x.a) > 0", div0, outcome{Columns: []string{"a"}, Types: []string{"int4"}}, false, "no side is empty"},
		{"SELECT x.a FROM e CROSS JOIN t x WHERE 1 / (x.a - e.a) > 0", div0, outcome{Columns: []string{"a"}, Types: []string{"int4"}}, false, "the condition names the empty table"},
		{"SELECT 1 FROM e WHERE NULL IN (SELECT 1 / (a - a) FROM t)", div0, outcome{Columns: []string{"?column?"}, Types: []string{"int4"}}, true, "the subquery raises alone"},
		{"SELECT 1 FROM e WHERE NULL IN (SELECT a FROM t)", div0, outcome{Columns: []string{"?column?"}, Types: []string{"int4"}}, false, "the subquery does not raise"},
		{"INSERT INTO t SELECT a, 1 / (a - a) FROM t", outcome{Code: "23505"}, div0, true, "the SELECT raises alone, the other a key violation"},
		{"INSERT INTO t SELECT a, b FROM t", outcome{Code: "23505"}, div0, false, "the SELECT does not raise"},
		{"SELECT x FROM n UNION ALL SELECT 2.00 ORDER BY 1 LIMIT 2", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2.00"}}}, true, "2.00 ties with 2 at the limit"},
		{"SELECT x FROM n UNION ALL SELECT 2.00 ORDER BY 1 LIMIT 2", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2.000"}}}, false, "2.000 is no row"},
		{"SELECT a FROM t WHERE (1 / (a - a)) IN (SELECT a FROM e)", ok, div0, true, "the semi-join's inner side is empty"},
		{"SELECT a FROM t WHERE (1 / (a - a)) IN (SELECT a FROM t)", ok, div0, false, "the inner side has rows"},
		{"DELETE FROM t WHERE (1 / (a - a)) IN (SELECT a FROM e)", outcome{}, div0, true, "a DELETE's semi-join, its inner side empty"},
		{"DELETE FROM t WHERE (1 / (a - a)) IN (SELECT a FROM t)", outcome{}, div0, false, "a DELETE's semi-join, its inner side has rows"},
		{"SELECT x FROM n UNION SELECT 1.00", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.00"}, {"2"}}}, true, "1.00 is one of the equal values"},
		{"SELECT x FROM n UNION SELECT 1.00", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.000"}, {"2"}}}, false, "1.000 is no arm's value"},
		{"SELECT x FROM n UNION ALL SELECT 1.00", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.00"}, {"2"}}}, false, "UNION ALL chooses nothing"},
		{"(SELECT x FROM n UNION SELECT 1.00) UNION ALL SELECT 5", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2"}, {"5"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.00"}, {"2"}, {"5"}}}, true, "a nested UNION chooses"},
		{"SELECT x, count(*) FROM n GROUP BY x", outcome{Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.0", int64(2)}, {"2", int64(1)}}}, outcome{Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.00", int64(2)}, {"2", int64(1)}}}, true, "1.00 is a value of the group's rows"},
		{"SELECT x, count(*) FROM n GROUP BY x", outcome{Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.0", int64(2)}, {"2", int64(1)}}}, outcome{Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.000", int64(2)}, {"2", int64(1)}}}, false, "1.000 is no row's value"},
		{"SELECT DISTINCT x FROM n", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.00"}, {"2"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"2"}}}, true, "1.0 is a row's value"},
		{"SELECT max(x) FROM n WHERE x < 2", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.00"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}}}, true, "max of equal values"},
		{"SELECT max(x) FROM n WHERE x < 2", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.00"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"2"}}}, false, "2 is not equal to 1.00"},
		{"SELECT (SELECT min(x) FROM n WHERE x < 2) AS s, a FROM t", outcome{Types: []string{"numeric", "int4"}, Rows: [][]any{{"1.00", int64(1)}, {"1.00", int64(2)}}}, outcome{Types: []string{"numeric", "int4"}, Rows: [][]any{{"1.0", int64(1)}, {"1.0", int64(2)}}}, true, "a scalar subquery's min of equal values"},
		{"SELECT (SELECT min(x) FROM n WHERE x < 2) AS s, a FROM t", outcome{Types: []string{"numeric", "int4"}, Rows: [][]any{{"1.00", int64(1)}, {"1.00", int64(2)}}}, outcome{Types: []string{"numeric", "int4"}, Rows: [][]any{{"1.000", int64(1)}, {"1.000", int64(2)}}}, false, "1.000 is no row's value"},
		{"SELECT (SELECT sum(x) FROM n WHERE x < 2) AS s, a FROM t", outcome{Types: []string{"numeric", "int4"}, Rows: [][]any{{"2.00", int64(1)}, {"2.00", int64(2)}}}, outcome{Types: []string{"numeric", "int4"}, Rows: [][]any{{"2.0", int64(1)}, {"2.0", int64(2)}}}, false, "sum chooses no row's value"},
		{"SELECT CAST(0 AS float8) AS v UNION SELECT ceil(CAST(-0.25 AS float8))", outcome{Types: []string{"float8"}, Rows: [][]any{{0.0}}}, outcome{Types: []string{"float8"}, Rows: [][]any{{math.Copysign(0, -1)}}}, true, "-0 is the right arm's value"},
		{"SELECT CAST(0 AS float8) AS v UNION SELECT CAST(0 AS float8)", outcome{Types: []string{"float8"}, Rows: [][]any{{0.0}}}, outcome{Types: []string{"float8"}, Rows: [][]any{{math.Copysign(0, -1)}}}, false, "no arm gives -0"},
		{"SELECT x, row_number() OVER (ORDER BY x) FROM n ORDER BY 2", outcome{Columns: []string{"x", "row_number"}, Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.00", int64(1)}, {"1.0", int64(2)}, {"2", int64(3)}}}, outcome{Columns: []string{"x", "row_number"}, Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.0", int64(1)}, {"1.00", int64(2)}, {"2", int64(3)}}}, true, "the tie-break orders the peers 1.0, 1.00"},
		{"SELECT x, row_number() OVER (ORDER BY x) FROM n ORDER BY 2", outcome{Columns: []string{"x", "row_number"}, Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.0", int64(1)}, {"1.00", int64(2)}, {"2", int64(3)}}}, outcome{Columns: []string{"x", "row_number"}, Types: []string{"numeric", "int8"}, Rows: [][]any{{"1.000", int64(1)}, {"1.0", int64(2)}, {"2", int64(3)}}}, false, "1.000 is no row's value"},
		{"SELECT x FROM n WHERE x < 2", outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"1.00"}}}, outcome{Types: []string{"numeric"}, Rows: [][]any{{"1.0"}, {"1.0"}}}, false, "a plain read chooses nothing: 1.0 twice is a wrong row"},
		{"SELECT 1 AS a FROM t WHERE a / b >= 0 ORDER BY 1 LIMIT 1", ok, div0, true, "without the LIMIT the row b = 0 is read"},
		{"SELECT 1 AS a FROM t WHERE b >= 0 ORDER BY 1 LIMIT 1", ok, div0, false, "no row raises"},
		{"UPDATE u SET k = 3 / d", outcome{Code: "23505"}, div0, true, "3 / d raises on the row d = 0, 2 -> 3 violates the key"},
		{"UPDATE u SET k = k + 10", outcome{Code: "23505"}, div0, false, "the new values raise nothing"},
		{"SELECT DISTINCT c FROM bp", outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a "}, {"1.50"}}}, outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a"}, {"1.50"}}}, true, "'a' is a row's value, equal to 'a '"},
		{"SELECT DISTINCT c FROM bp", outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a "}, {"1.50"}}}, outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a  "}, {"1.50"}}}, false, "'a  ' is no row's value"},
		{"SELECT DISTINCT c FROM bp", outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a "}, {"1.50"}}}, outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a "}, {"1.5"}}}, false, "a bpchar '1.50' is no numeric: '1.5' is another value"},
		{"SELECT c FROM bp UNION SELECT 'a'", outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a "}, {"1.50"}}}, outcome{Types: []string{"bpchar"}, Rows: [][]any{{"a"}, {"1.50"}}}, true, "'a' is an arm's value"},
		{"UPDATE u SET k = k + 1", outcome{Affected: 3}, outcome{Code: "23505"}, true, "the row k = 1 alone moves onto 2: met first, it fails on PostgreSQL too"},
		{"UPDATE u SET k = k + 10", outcome{Affected: 3}, outcome{Code: "23505"}, false, "no row alone takes a key that exists"},
	} {
		why := p.planDependent(translated{sql: c.sql}, c.pg, c.lite)
		if (why != "") != c.plan {
			t.Errorf("%s (%s): plan-dependent %q, want %v", c.sql, c.whyPlanted, why, c.plan)
		}
	}
}

// peerOrdered are the window functions whose translation totals the
// window's order with the FROM columns as stored (pgdialect's tieBreak)
// and whose result depends on nothing but that order (no frame, no
// peers).
var peerOrdered = map[string]bool{"row_number": true, "ntile": true, "lag": true, "lead": true}

// windowPeers: s, a query without GROUP BY whose windows are written in
// place, run on PostgreSQL with the ORDER BY of each window of
// row_number, ntile, lag or lead extended by the translation's
// tie-break (every column of the FROM tables as stored: a numeric by value
// and then by display scale, NULLs first), gives SQLite's answer.
// PostgreSQL leaves the order of a window's peers to its sort (1.0 and
// 1.00 are peers under ORDER BY n), and that is one of the orders it may
// use.
func (e *prober) windowPeers(s *pg_query.SelectStmt, liteO outcome, ordered bool) string {
	if s == nil || s.GetOp() != pg_query.SetOperation_SETOP_NONE || len(s.GetGroupClause()) > 0 || len(s.GetWindowClause()) > 0 {
		return ""
	}
	var from, conds []*pg_query.Node
	for _, f := range s.GetFromClause() {
		if !fromItems(f, &from, &conds) {
			return ""
		}
	}
	tie := e.tieKeys(from)
	if tie == nil {
		return ""
	}
	q := proto.Clone(s).(*pg_query.SelectStmt)
	extended := false
	for _, t := range q.GetTargetList() {
		f := t.GetResTarget().GetVal().GetFuncCall()
		name := ""
		if f != nil && len(f.GetFuncname()) > 0 {
			name = f.GetFuncname()[len(f.GetFuncname())-1].GetString_().GetSval()
		}
		if f.GetOver() == nil || !peerOrdered[name] || f.GetOver().GetRefname() != "" {
			continue
		}
		f.Over.OrderClause = append(f.Over.OrderClause, tie...)
		extended = true
	}
	sql, err := deparse(q)
	if !extended || err != nil {
		return ""
	}
	// on PostgreSQL alone: the translator has no scale(), and SQLite's
	// own answer already follows the tie-break
	if o := e.probePG(sql); o.failed() || len(differences(o, liteO, ordered)) > 0 {
		return ""
	}
	return "window peers: PostgreSQL with the translation's tie-break among a window's peers (" + firstLine(sql) + ") gives SQLite's answer"
}

// tieKeys are the sort keys of pgdialect's tieBreak over the tables
// from, as PostgreSQL writes them (NULLs first, as SQLite sorts them; a
// numeric by value, then by scale, as its stored form sorts), or nil when
// a column's stored order is not one PostgreSQL can write here.
func (e *prober) tieKeys(from []*pg_query.Node) []*pg_query.Node {
	var out []*pg_query.Node
	for _, f := range from {
		rv := f.GetRangeVar()
		q := rv.GetRelname()
		if a := rv.GetAlias().GetAliasname(); a != "" {
			q = a
		}
		rows, err := e.pg.conn.Query(context.Background(), "SELECT column_name, udt_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position", rv.GetRelname())
		if err != nil {
			return nil
		}
		for rows.Next() {
			var col, typ string
			if rows.Scan(&col, &typ) != nil {
				rows.Close()
				return nil
			}
			ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(q), pg_query.MakeStrNode(col)}, -1)
			keys := []*pg_query.Node{ref}
			switch typ {
			case "numeric":
				keys = append(keys, pg_query.MakeFuncCallNode([]*pg_query.Node{pg_query.MakeStrNode("scale")}, []*pg_query.Node{ref}, -1))
			case "int2", "int4", "int8", "float4", "float8", "bool", "text", "varchar", "date", "timestamp", "timestamptz", "uuid":
			default:
				rows.Close()
				return nil
			}
			for _, k := range keys {
				out = append(out, pg_query.MakeSortByNode(k, pg_query.SortByDir_SORTBY_ASC, pg_query.SortByNulls_SORTBY_NULLS_FIRST, -1))
			}
		}
		rows.Close()
		if rows.Err() != nil {
			return nil
		}
	}
	return out
}

// insertSelect is the table an INSERT … SELECT or an UPDATE with a
// scalar subquery writes and the query whose values it stores
// (sourceSelect), run on both engines before the write (why: planDependent's reason when the two
// differ, probed then, before the INSERT changes the tables it reads).
type insertSelect struct {
	table    string
	sel      translated
	pg, lite outcome
	why      string
}

// insertSelectBefore reads the SELECT of st, an INSERT … SELECT (without
// arguments, WITH, ON CONFLICT or RETURNING), on both engines; nil for
// any other statement or when the SELECT alone is not translated.
func (h *harness) insertSelectBefore(st translated, pgE engine, lite *liteEngine) *insertSelect {
	res, err := pg_query.Parse(st.sql)
	if err != nil || len(res.Stmts) != 1 || len(st.args) > 0 {
		return nil
	}
	table, sel := sourceSelect(res.Stmts[0].Stmt)
	if sel == nil {
		return nil
	}
	sql, err := deparse(sel)
	if err != nil {
		return nil
	}
	p := &insertSelect{table: table, sel: translated{sql: sql, orig: sql}}
	if p.sel.tr, p.sel.err = h.translate(sql, lite.cat, nil); p.sel.err != nil {
		return nil
	}
	if p.pg, p.lite = pgE.run(p.sel), lite.run(p.sel); p.pg.failed() {
		return nil // a correlated subquery alone: nothing to compare with
	}
	if pe, ok := pgE.(*pgEngine); ok && len(differences(p.pg, p.lite, false)) > 0 {
		p.why = (&prober{pg: pe, lite: lite, h: h}).planDependent(p.sel, p.pg, p.lite) // no arguments (above)
	}
	return p
}

// sourceSelect is the table a write stores into and the query whose
// values it stores: an INSERT … SELECT's SELECT (without WITH, ON
// CONFLICT or RETURNING), or the first scalar subquery in an UPDATE's SET
// (UPDATE t SET c = (SELECT min(n) FROM u) stores min's choice).
func sourceSelect(stmt *pg_query.Node) (string, *pg_query.SelectStmt) {
	if ins := stmt.GetInsertStmt(); ins != nil {
		sel := ins.GetSelectStmt().GetSelectStmt()
		if sel == nil || len(sel.GetValuesLists()) > 0 || ins.GetWithClause() != nil || ins.GetOnConflictClause() != nil || len(ins.GetReturningList()) > 0 {
			return "", nil
		}
		return ins.GetRelation().GetRelname(), sel
	}
	up := stmt.GetUpdateStmt()
	if up == nil || up.GetWithClause() != nil {
		return "", nil
	}
	var sub *pg_query.SelectStmt
	for _, t := range up.GetTargetList() {
		if sub = firstScalarSubquery(t); sub != nil {
			return up.GetRelation().GetRelname(), sub
		}
	}
	return "", nil
}

// firstScalarSubquery is the query of the first (SELECT …) in m.
func firstScalarSubquery(m proto.Message) *pg_query.SelectStmt {
	if sl, ok := m.(*pg_query.SubLink); ok && sl.GetSubLinkType() == pg_query.SubLinkType_EXPR_SUBLINK {
		return sl.GetSubselect().GetSelectStmt()
	}
	var out *pg_query.SelectStmt
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && out == nil; i++ {
				out = firstScalarSubquery(v.List().Get(i).Message().Interface())
			}
		case fd.Message() != nil && !fd.IsMap():
			out = firstScalarSubquery(v.Message().Interface())
		}
		return out == nil
	})
	return out
}

// written compares the table such a write wrote, read whole on both
// engines as a multiset. The same rows: ok. Different rows from a SELECT
// whose difference is plan-dependent (a DISTINCT row's or a group's
// numeric representative): counted so, and the engines' states are apart
// from there on. Otherwise a discrepancy: the INSERT stored other values.
func (h *harness) written(c diffCase, i int, st translated, p *insertSelect, pgE engine, lite *liteEngine, context string) (ok, diff bool) {
	read := translated{sql: "SELECT * FROM " + pgx.Identifier{p.table}.Sanitize()}
	read.orig = read.sql
	read.tr, read.err = h.translate(read.sql, lite.cat, nil)
	pgT, liteT := pgE.run(read), lite.run(read)
	d := differences(pgT, liteT, false)
	if len(d) == 0 {
		return true, false
	}
	if p.why != "" {
		kind, _, _ := strings.Cut(p.why, ":")
		h.tally.planDependent++
		h.tally.planReasons[kind]++
		h.tally.example(kind, c.stmts[i].sql)
		h.apart = true
		return false, false
	}
	h.tally.discrepancies++
	h.discrepancy(c, i, st, pgT, liteT, append([]string{"the rows it wrote differ (" + read.sql + ")"}, d...), context)
	return true, true
}
