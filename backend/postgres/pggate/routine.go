package pggate

import (
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Functions, procedures and triggers. Only the routines' owners (admins:
// CREATE FUNCTION is DDL) decide what a body does, but every statement and
// expression of a body passes the same gate as a statement text, without
// clock and random functions (a body runs outside any rewritten statement).

// checkRoutine checks CREATE [OR REPLACE] FUNCTION/PROCEDURE: its name,
// options and body. Parameter types, defaults and the return type are
// checked by the walker (the return type may be a pseudo-type, see
// checkReturnType).
func (w *walker) checkRoutine(c *pg_query.CreateFunctionStmt) error {
	what := "CREATE FUNCTION"
	if c.GetIsProcedure() {
		what = "CREATE PROCEDURE"
	}
	if err := checkRoutineName(stringsOf(c.GetFuncname()), what); err != nil {
		return err
	}
	opts, err := routineOptions(c, what)
	if err != nil {
		return err
	}
	lang, body, bodyNode, hasBody := opts.lang, opts.body, opts.bodyNode, opts.bodyNode != nil
	sqlBody := c.GetSqlBody()
	if sqlBody != nil {
		if lang != "" && lang != "sql" {
			return fmt.Errorf("%s: a BEGIN ATOMIC or RETURN body is SQL", what)
		}
		lang = "sql"
	}
	switch lang {
	case "sql", "plpgsql":
	case "":
		return fmt.Errorf("%s needs LANGUAGE sql or LANGUAGE plpgsql", what)
	default:
		return fmt.Errorf("%s ... LANGUAGE %s is not allowed: only sql and plpgsql are (other languages reach the node's files, network or native code, or escape the gate)", what, lang)
	}
	if sqlBody == nil && !hasBody {
		return fmt.Errorf("%s needs a body", what)
	}
	if hasBody {
		if err := bounded(body); err != nil {
			return fmt.Errorf("%s: the body: %w", what, err)
		}
	}
	var b bodyFacts
	switch {
	case sqlBody != nil:
		err = b.checkSQLBody(sqlBody)
	case lang == "sql":
		err = b.checkSQLText(body)
	default:
		err = b.checkPLpgSQL(w.sql)
	}
	if err != nil {
		return err
	}
	w.rewritten = w.rewritten || b.rewriteInto(bodyNode)
	if lang == "sql" && returnsOneRow(c) && !singleRowOrOrdered(b.last) {
		return fmt.Errorf("%s: the last statement of a SQL routine that returns one row must return at most one row or have ORDER BY: PostgreSQL returns the first of several rows, which differs between nodes (use an aggregate, ORDER BY ... LIMIT 1, a scalar subquery or RETURNS SETOF)", what)
	}
	if opts.volatility == "immutable" && (b.readsRel || b.callsUser) {
		return fmt.Errorf("%s ... IMMUTABLE is not allowed for a body that reads tables or calls user-defined functions: PostgreSQL may evaluate an immutable call once at plan time and keep the result in a cached plan, which differs between nodes; declare it STABLE or VOLATILE", what)
	}
	return nil
}

// routineFacts is what the options of CREATE FUNCTION/PROCEDURE say:
// language, body (the AS string; bodyNode nil without one) and volatility.
type routineFacts struct {
	lang, body, volatility string
	bodyNode               *pg_query.String
}

// routineOptions reads and checks the options of c (what names the
// statement in errors): each at most once, and none that loads native
// code, changes the role or the session, or depends on a node's settings.
func routineOptions(c *pg_query.CreateFunctionStmt, what string) (routineFacts, error) {
	var f routineFacts
	seen := map[string]bool{}
	for _, o := range c.GetOptions() {
		d := o.GetDefElem()
		if d == nil {
			return f, fmt.Errorf("%s: unknown option", what)
		}
		if seen[d.GetDefname()] {
			return f, fmt.Errorf("%s: conflicting or redundant options (%s given twice)", what, strings.ToUpper(d.GetDefname()))
		}
		seen[d.GetDefname()] = true
		if err := f.option(d, what); err != nil {
			return f, err
		}
	}
	return f, nil
}

// option reads or refuses one option of CREATE FUNCTION/PROCEDURE.
func (f *routineFacts) option(d *pg_query.DefElem, what string) error {
	arg := d.GetArg()
	switch d.GetDefname() {
	case "language":
		f.lang = strings.ToLower(arg.GetString_().GetSval())
	case "as":
		items := arg.GetList().GetItems()
		if len(items) != 1 || items[0].GetString_() == nil {
			return fmt.Errorf("%s ... AS 'object file', 'symbol' is not allowed: it loads C code", what)
		}
		f.bodyNode = items[0].GetString_()
		f.body = f.bodyNode.GetSval()
	case "volatility":
		f.volatility = arg.GetString_().GetSval()
	case "strict", "cost", "rows":
	case "security":
		if arg.GetBoolean().GetBoolval() {
			return fmt.Errorf("%s ... SECURITY DEFINER is not allowed: the routine would run with the node's (superuser) role", what)
		}
	case "leakproof":
		if arg.GetBoolean().GetBoolval() {
			return fmt.Errorf("%s ... LEAKPROOF is not allowed: it is a superuser's promise about the code", what)
		}
	case "set":
		return fmt.Errorf("%s ... SET is not allowed: session settings are pinned by relchain", what)
	case "parallel":
		if arg.GetString_().GetSval() != "unsafe" {
			return fmt.Errorf("%s ... PARALLEL SAFE/RESTRICTED is not allowed: whether a parallel plan is chosen depends on each node's configuration", what)
		}
	default:
		return fmt.Errorf("%s option %s is not allowed", what, strings.ToUpper(d.GetDefname()))
	}
	return nil
}

// rewriteInto reports whether the gate changed the body; a body given as
// a string (body, nil for BEGIN ATOMIC and RETURN, which are part of the
// statement's tree) gets its new text.
func (b *bodyFacts) rewriteInto(body *pg_query.String) bool {
	if b.rewritten && body != nil {
		body.Sval = b.text
	}
	return b.rewritten
}

// checkRoutineName allows a routine name unqualified or qualified with
// public, and not in the system's name space.
func checkRoutineName(names []string, what string) error {
	var name string
	switch {
	case len(names) == 1:
		name = names[0]
	case len(names) == 2 && names[0] == "public":
		name = names[1]
	default:
		return fmt.Errorf("%s %s is not allowed: functions and procedures live in schema public (unqualified or public.name)", what, strings.Join(names, "."))
	}
	if strings.HasPrefix(name, "pg_") {
		return fmt.Errorf("%s %s is not allowed: names starting with pg_ belong to the system", what, name)
	}
	return nil
}

// bodyFacts gathers what the IMMUTABLE and result checks need from a
// routine body.
type bodyFacts struct {
	readsRel, callsUser bool
	// rewritten: the gate changed the body (see canonicalOrder); text is
	// the new text of a body given as a string.
	rewritten bool
	text      string
	last      *pg_query.Node // a SQL body's last statement
}

func (b *bodyFacts) add(w *walker) {
	b.readsRel = b.readsRel || w.readsRel
	b.rewritten = b.rewritten || w.rewritten
	b.callsUser = b.callsUser || w.callsUser
}

// checkSQLText checks a SQL function body given as a string: every
// statement passes the gate (without clock and random functions).
func (b *bodyFacts) checkSQLText(body string) (err error) {
	if err := bounded(body); err != nil {
		return fmt.Errorf("the function body: %w", err)
	}
	tree, err := pg_query.Parse(body)
	if err != nil {
		return unparseable("the function body", err)
	}
	defer func() {
		if err == nil && b.rewritten {
			b.text, err = deparseBody(tree)
		}
	}()
	for _, raw := range tree.GetStmts() {
		text := body
		if loc, n := int(raw.GetStmtLocation()), int(raw.GetStmtLen()); loc >= 0 && loc <= len(body) {
			text = body[loc:]
			if n > 0 && n <= len(text) {
				text = text[:n]
			}
		}
		w, werr := checkStatement(raw.GetStmt(), text, stmtBody)
		if werr != nil {
			return fmt.Errorf("in the function body: %w", werr)
		}
		b.add(w)
		b.last = raw.GetStmt()
	}
	return nil
}

// checkSQLBody checks a SQL-standard body: RETURN expr, or BEGIN ATOMIC
// with a list of statements.
func (b *bodyFacts) checkSQLBody(body *pg_query.Node) error {
	if r := body.GetReturnStmt(); r != nil {
		return b.checkReturn(r)
	}
	items := body.GetList().GetItems()
	if len(items) != 1 || items[0].GetList() == nil {
		return errors.New("this function body form is not known to the gate")
	}
	for _, s := range items[0].GetList().GetItems() {
		b.last = s
		if r := s.GetReturnStmt(); r != nil {
			if err := b.checkReturn(r); err != nil {
				return err
			}
			continue
		}
		if s.GetCreateFunctionStmt() != nil {
			return errors.New("in the function body: CREATE FUNCTION is not allowed inside BEGIN ATOMIC")
		}
		w, err := checkStatement(s, "", stmtBody)
		if err != nil {
			return fmt.Errorf("in the function body: %w", err)
		}
		b.add(w)
	}
	return nil
}

// checkReturn checks RETURN expr as the gate checks SELECT expr.
func (b *bodyFacts) checkReturn(r *pg_query.ReturnStmt) error {
	sel := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
		TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: r.GetReturnval()}}}},
	}}}
	w, err := checkStatement(sel, "", stmtBody)
	if err != nil {
		return fmt.Errorf("in the function body: %w", err)
	}
	b.add(w)
	return nil
}

// checkTrigger checks CREATE [OR REPLACE] TRIGGER: row or statement
// triggers, BEFORE/AFTER/INSTEAD OF, on INSERT/UPDATE/DELETE/TRUNCATE,
// executing a function of schema public named public.name. The WHEN
// condition passes the walker (no clock or random functions).
func checkTrigger(t *pg_query.CreateTrigStmt) error {
	if t.GetIsconstraint() {
		return errors.New("CREATE CONSTRAINT TRIGGER is not allowed: a deferred trigger fires at the block's commit, outside the tx that caused it")
	}
	if err := checkTriggerName(t.GetTrigname()); err != nil {
		return err
	}
	names := stringsOf(t.GetFuncname())
	if len(names) != 2 || names[0] != "public" {
		return fmt.Errorf("CREATE TRIGGER ... EXECUTE FUNCTION %s is not allowed: name the trigger function schema-qualified, as public.name()", strings.Join(names, "."))
	}
	if strings.HasPrefix(names[1], "pg_") {
		return fmt.Errorf("trigger function public.%s is not allowed: names starting with pg_ belong to the system", names[1])
	}
	const (
		before  = 1 << 1
		instead = 1 << 6
		events  = 1<<2 | 1<<3 | 1<<4 | 1<<5 // INSERT, DELETE, UPDATE, TRUNCATE
	)
	switch t.GetTiming() {
	case 0, before, instead:
	default:
		return errors.New("this trigger timing is not allowed")
	}
	if e := t.GetEvents(); e == 0 || e&^events != 0 {
		return errors.New("triggers are allowed only on INSERT, UPDATE, DELETE and TRUNCATE")
	}
	return nil
}

// checkTriggerName keeps relchain's change-capture triggers out of reach.
func checkTriggerName(name string) error {
	if strings.HasPrefix(strings.ToLower(name), "relchain") {
		return fmt.Errorf("trigger %s is not allowed: names starting with relchain belong to relchain's change capture", name)
	}
	return nil
}

// checkCall allows CALL only of user-defined procedures, as
// CALL public.name(...).
func checkCall(c *pg_query.CallStmt) error {
	names := stringsOf(c.GetFunccall().GetFuncname())
	if len(names) != 2 || names[0] != "public" {
		return fmt.Errorf("CALL %s is not allowed: call user-defined procedures schema-qualified, as CALL public.name(...)", strings.Join(names, "."))
	}
	return nil
}

// returnsOneRow reports whether a routine returns the first row of its
// last statement: a function not returning SETOF, TABLE or void, or a
// procedure with OUT or INOUT parameters.
func returnsOneRow(c *pg_query.CreateFunctionStmt) bool {
	if c.GetIsProcedure() {
		for _, p := range c.GetParameters() {
			switch p.GetFunctionParameter().GetMode() {
			case pg_query.FunctionParameterMode_FUNC_PARAM_OUT, pg_query.FunctionParameterMode_FUNC_PARAM_INOUT:
				return true
			}
		}
		return false
	}
	rt := c.GetReturnType()
	return rt == nil || !(rt.GetSetof() || typeName(rt) == "void")
}

// singleRowOrOrdered reports whether a statement returns at most one row,
// or its rows in an order the text fixes (ORDER BY; ties are a residual
// risk, as for LIMIT).
func singleRowOrOrdered(n *pg_query.Node) bool {
	switch v := n.GetNode().(type) {
	case nil, *pg_query.Node_ReturnStmt:
		return true
	case *pg_query.Node_InsertStmt:
		return len(v.InsertStmt.GetReturningList()) == 0
	case *pg_query.Node_UpdateStmt:
		return len(v.UpdateStmt.GetReturningList()) == 0
	case *pg_query.Node_DeleteStmt:
		return len(v.DeleteStmt.GetReturningList()) == 0
	case *pg_query.Node_MergeStmt:
		return len(v.MergeStmt.GetReturningList()) == 0
	case *pg_query.Node_SelectStmt:
		s := v.SelectStmt
		switch {
		case len(s.GetSortClause()) > 0:
			return true
		case s.GetOp() != pg_query.SetOperation_SETOP_NONE, len(s.GetValuesLists()) > 1, len(s.GetGroupClause()) > 0:
			return false
		case len(s.GetValuesLists()) == 1:
			return true
		}
		targets := s.GetTargetList()
		if anyCall(targets, func(name string, user bool) bool { return user || setReturning[name] }) {
			return false
		}
		return len(s.GetFromClause()) == 0 || s.GetHavingClause() != nil ||
			anyCall(targets, func(name string, user bool) bool { return !user && aggregates[name] })
	}
	return true
}

// setReturning and aggregates are the set-returning and aggregate
// functions of the allowlist.
var (
	setReturning = setOf("generate_series", "unnest")
	aggregates   = setOf("count", "sum", "min", "max", "avg", "bool_and", "bool_or", "every", "bit_and", "bit_or",
		"string_agg", "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg")
)

// anyCall reports whether an expression list calls a function for which
// match (given its unqualified name and whether it is user-defined, i.e.
// public.) holds, outside subqueries.
func anyCall(nodes []*pg_query.Node, match func(name string, user bool) bool) bool {
	var found func(m protoreflect.Message) bool
	found = func(m protoreflect.Message) bool {
		switch v := m.Interface().(type) {
		case *pg_query.SubLink:
			return false
		case *pg_query.FuncCall:
			names := stringsOf(v.GetFuncname())
			if len(names) > 0 && match(names[len(names)-1], len(names) == 2 && names[0] == "public") {
				return true
			}
		}
		hit := false
		m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
			switch {
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				for i := 0; i < val.List().Len() && !hit; i++ {
					hit = found(val.List().Get(i).Message())
				}
			default:
				hit = found(val.Message())
			}
			return !hit
		})
		return hit
	}
	for _, n := range nodes {
		if found(n.ProtoReflect()) {
			return true
		}
	}
	return false
}
