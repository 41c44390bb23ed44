package pggate

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// PL/pgSQL bodies are parsed by PostgreSQL's own PL/pgSQL compiler front
// end (pg_query.ParsePlPgSqlToJSON) and walked fail-closed: every node type
// and every field of a node must be known (plNodes), and every embedded SQL
// statement or expression passes the gate as a statement text (expressions
// as SELECT expr, which is how PL/pgSQL itself runs them), without clock
// and random functions.

// plNodes are the PL/pgSQL node types the gate allows, with their fields.
var plNodes = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	add := func(node, fields string) {
		m[node] = setOf(strings.Fields(fields)...)
	}
	add("PLpgSQL_function", "new_varno old_varno datums action")
	add("PLpgSQL_var", "refname lineno datatype isconst notnull default_val cursor_explicit_argrow cursor_options")
	add("PLpgSQL_type", "typname")
	add("PLpgSQL_row", "refname lineno fields")
	add("PLpgSQL_rec", "refname dno lineno")
	add("PLpgSQL_recfield", "fieldname recparentno")
	add("PLpgSQL_expr", "query parseMode")
	add("PLpgSQL_stmt_block", "lineno label body exceptions")
	add("PLpgSQL_exception_block", "exc_list")
	add("PLpgSQL_exception", "conditions action")
	add("PLpgSQL_condition", "condname")
	add("PLpgSQL_stmt_assign", "lineno varno expr")
	add("PLpgSQL_stmt_if", "lineno cond then_body elsif_list else_body")
	add("PLpgSQL_if_elsif", "lineno cond stmts")
	add("PLpgSQL_stmt_case", "lineno t_expr t_varno case_when_list have_else else_stmts")
	add("PLpgSQL_case_when", "lineno expr stmts")
	add("PLpgSQL_stmt_loop", "lineno label body")
	add("PLpgSQL_stmt_while", "lineno label cond body")
	add("PLpgSQL_stmt_fori", "lineno label var lower upper step reverse body")
	add("PLpgSQL_stmt_fors", "lineno label var body query")
	add("PLpgSQL_stmt_foreach_a", "lineno label varno slice expr body")
	add("PLpgSQL_stmt_exit", "lineno is_exit label cond")
	add("PLpgSQL_stmt_return", "lineno expr")
	add("PLpgSQL_stmt_return_next", "lineno expr")
	add("PLpgSQL_stmt_return_query", "lineno query")
	add("PLpgSQL_stmt_raise", "lineno elog_level condname message params options")
	add("PLpgSQL_raise_option", "opt_type expr")
	add("PLpgSQL_stmt_execsql", "lineno sqlstmt into strict target")
	add("PLpgSQL_stmt_perform", "lineno expr")
	add("PLpgSQL_stmt_call", "lineno expr is_call target")
	add("PLpgSQL_stmt_getdiag", "lineno is_stacked diag_items")
	add("PLpgSQL_diag_item", "kind target")
	return m
}()

// plReasons explain the rejection of known PL/pgSQL constructs.
var plReasons = map[string]string{
	"PLpgSQL_stmt_dynexecute": "EXECUTE (dynamic SQL) is not allowed in PL/pgSQL: the gate cannot check a statement built at run time",
	"PLpgSQL_stmt_dynfors":    "FOR ... IN EXECUTE (dynamic SQL) is not allowed in PL/pgSQL: the gate cannot check a statement built at run time",
	"PLpgSQL_stmt_commit":     "COMMIT in a procedure is not allowed: relchain runs every tx in the block's own transaction",
	"PLpgSQL_stmt_rollback":   "ROLLBACK in a procedure is not allowed: relchain runs every tx in the block's own transaction",
	"PLpgSQL_stmt_open":       "cursors (OPEN, FETCH, MOVE, CLOSE, FOR over a cursor) are not allowed in PL/pgSQL: a cursor delivers rows in an order that differs between nodes",
	"PLpgSQL_stmt_fetch":      "cursors (OPEN, FETCH, MOVE, CLOSE, FOR over a cursor) are not allowed in PL/pgSQL: a cursor delivers rows in an order that differs between nodes",
	"PLpgSQL_stmt_close":      "cursors (OPEN, FETCH, MOVE, CLOSE, FOR over a cursor) are not allowed in PL/pgSQL: a cursor delivers rows in an order that differs between nodes",
	"PLpgSQL_stmt_forc":       "cursors (OPEN, FETCH, MOVE, CLOSE, FOR over a cursor) are not allowed in PL/pgSQL: a cursor delivers rows in an order that differs between nodes",
	"PLpgSQL_stmt_assert":     "ASSERT is not allowed: whether it is checked is each node's plpgsql.check_asserts setting; use IF ... THEN RAISE EXCEPTION",
}

// plDiagItems are the GET [STACKED] DIAGNOSTICS items allowed: all but
// PG_ROUTINE_OID, an object identifier that differs between nodes.
var plDiagItems = setOf("ROW_COUNT", "PG_CONTEXT", "RETURNED_SQLSTATE", "COLUMN_NAME", "CONSTRAINT_NAME",
	"PG_DATATYPE_NAME", "MESSAGE_TEXT", "TABLE_NAME", "SCHEMA_NAME", "PG_EXCEPTION_DETAIL",
	"PG_EXCEPTION_HINT", "PG_EXCEPTION_CONTEXT")

// plConditions are the condition names an exception handler may catch:
// errors every node raises alike for the same data (classes 22 data
// exception and 23 integrity constraint violation, and PL/pgSQL's own P0).
// OTHERS and the other classes are rejected: they also catch failures of
// one node (out of memory, disk full, stack depth, cancellation, I/O and
// internal errors), and a handler would turn that node's failure into a
// different, committed outcome on that node only.
var plConditions = setOf(
	// Class 22.
	"data_exception", "array_subscript_error", "character_not_in_repertoire", "datetime_field_overflow",
	"division_by_zero", "error_in_assignment", "escape_character_conflict", "indicator_overflow",
	"interval_field_overflow", "invalid_argument_for_logarithm", "invalid_argument_for_ntile_function",
	"invalid_argument_for_nth_value_function", "invalid_argument_for_power_function",
	"invalid_argument_for_width_bucket_function", "invalid_character_value_for_cast",
	"invalid_datetime_format", "invalid_escape_character", "invalid_escape_octet", "invalid_escape_sequence",
	"nonstandard_use_of_escape_character", "invalid_indicator_parameter_value", "invalid_parameter_value",
	"invalid_preceding_or_following_size", "invalid_regular_expression", "invalid_row_count_in_limit_clause",
	"invalid_row_count_in_result_offset_clause", "invalid_time_zone_displacement_value",
	"invalid_use_of_escape_character", "most_specific_type_mismatch", "null_value_not_allowed",
	"null_value_no_indicator_parameter", "numeric_value_out_of_range", "string_data_length_mismatch",
	"string_data_right_truncation", "substring_error", "trim_error", "unterminated_c_string",
	"zero_length_character_string", "floating_point_exception", "invalid_text_representation",
	"invalid_binary_representation", "untranslatable_character", "invalid_json_text",
	"duplicate_json_object_key_value", "non_unique_keys_in_a_json_object",
	// Class 23.
	"integrity_constraint_violation", "restrict_violation", "not_null_violation", "foreign_key_violation",
	"unique_violation", "check_violation", "exclusion_violation",
	// Class P0.
	"plpgsql_error", "raise_exception", "no_data_found", "too_many_rows",
)

// checkPLpgSQL checks the PL/pgSQL body of the CREATE FUNCTION/PROCEDURE
// statement text sql.
func (b *bodyFacts) checkPLpgSQL(sql string) error {
	if sql == "" {
		return errors.New("a PL/pgSQL body cannot be checked here")
	}
	js, err := pg_query.ParsePlPgSqlToJSON(sql)
	if err != nil {
		return unparseable("the PL/pgSQL body", err)
	}
	var fns []any
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&fns); err != nil || len(fns) != 1 {
		return errors.New("the PL/pgSQL body cannot be read by the gate")
	}
	if m, ok := fns[0].(map[string]any); !ok || len(m) != 1 || m["PLpgSQL_function"] == nil {
		return errors.New("the PL/pgSQL body cannot be read by the gate")
	}
	if err := b.plNode(fns[0]); err != nil {
		return fmt.Errorf("in the PL/pgSQL body: %w", err)
	}
	return nil
}

// plNode checks one node ({"PLpgSQL_x": {fields}}) and everything below
// it, fields in name order.
func (b *bodyFacts) plNode(v any) error {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return errors.New("a construct of the PL/pgSQL body cannot be read by the gate")
	}
	for kind, fv := range m {
		fields, known := plNodes[kind]
		if !known {
			if why, ok := plReasons[kind]; ok {
				return errors.New(why)
			}
			return fmt.Errorf("PL/pgSQL construct %s is not allowed: the gate does not know it to be deterministic and harmless", strings.TrimPrefix(kind, "PLpgSQL_"))
		}
		node, ok := fv.(map[string]any)
		if !ok {
			return errors.New("a construct of the PL/pgSQL body cannot be read by the gate")
		}
		if err := b.plCheck(kind, node); err != nil {
			return err
		}
		keys := make([]string, 0, len(node))
		for k := range node {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !fields[k] {
				return plFieldError(kind, k)
			}
			if kind == "PLpgSQL_row" && k == "fields" {
				continue // names and numbers of variables
			}
			if err := b.plValue(node[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func plFieldError(kind, field string) error {
	switch {
	case kind == "PLpgSQL_var" && field == "cursor_explicit_expr":
		return errors.New(plReasons["PLpgSQL_stmt_open"])
	case kind == "PLpgSQL_stmt_return_query":
		return errors.New("RETURN QUERY EXECUTE (dynamic SQL) is not allowed in PL/pgSQL: the gate cannot check a statement built at run time")
	}
	return fmt.Errorf("PL/pgSQL %s with %s is not allowed: the gate does not know it", strings.TrimPrefix(kind, "PLpgSQL_"), field)
}

// plValue checks a field value: a node, a list of nodes, or a scalar.
func (b *bodyFacts) plValue(v any) error {
	switch v := v.(type) {
	case map[string]any:
		return b.plNode(v)
	case []any:
		for _, e := range v {
			if err := b.plValue(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// plCheck applies the checks specific to one node type.
func (b *bodyFacts) plCheck(kind string, n map[string]any) error {
	switch kind {
	case "PLpgSQL_var":
		if n["cursor_explicit_expr"] != nil {
			return errors.New(plReasons["PLpgSQL_stmt_open"])
		}
		dt, _ := n["datatype"].(map[string]any)
		t, _ := dt["PLpgSQL_type"].(map[string]any)
		name, ok := t["typname"].(string)
		if !ok {
			return fmt.Errorf("the type of PL/pgSQL variable %v cannot be read by the gate", n["refname"])
		}
		return b.plType(name)
	case "PLpgSQL_expr":
		q, _ := n["query"].(string)
		mode, _ := n["parseMode"].(json.Number)
		return b.plExpr(q, string(mode))
	case "PLpgSQL_stmt_execsql":
		if into, _ := n["into"].(bool); !into {
			return nil
		}
		if strict, _ := n["strict"].(bool); strict {
			return nil
		}
		top, err := plQuery(n["sqlstmt"])
		if err != nil {
			return err
		}
		switch {
		case top.GetInsertStmt() != nil, top.GetUpdateStmt() != nil, top.GetDeleteStmt() != nil, top.GetMergeStmt() != nil:
			return nil // PL/pgSQL fails if such a statement returns more than one row INTO
		case len(top.GetSelectStmt().GetSortClause()) > 0:
			return nil
		}
		return errors.New("SELECT ... INTO without STRICT is not allowed: of several rows it keeps the first, which differs between nodes; write INTO STRICT, or add ORDER BY")
	case "PLpgSQL_stmt_fors":
		top, err := plQuery(n["query"])
		if err != nil {
			return err
		}
		if len(top.GetSelectStmt().GetSortClause()) == 0 {
			return errors.New("FOR ... IN query LOOP without ORDER BY in the query is not allowed: the loop would see the rows in an order that differs between nodes")
		}
	case "PLpgSQL_diag_item":
		if k, _ := n["kind"].(string); !plDiagItems[k] {
			return fmt.Errorf("GET DIAGNOSTICS %s is not allowed: it is a node-local value", k)
		}
	case "PLpgSQL_condition":
		c, _ := n["condname"].(string)
		if !allowedCondition(c) {
			return fmt.Errorf("EXCEPTION WHEN %s is not allowed: only errors every node raises alike may be caught (data exceptions, class 22; integrity violations, class 23; PL/pgSQL's RAISE and INTO errors, class P0), never OTHERS, which also catches one node's own failures (out of memory, disk full, cancellation) and would give that node a different outcome", c)
		}
	}
	return nil
}

// allowedCondition reports whether an exception handler may catch c, a
// condition name or an SQLSTATE code.
func allowedCondition(c string) bool {
	if plConditions[c] {
		return true
	}
	if len(c) == 5 && strings.IndexFunc(c, func(r rune) bool { return !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') }) < 0 {
		switch c[:2] {
		case "22", "23", "P0":
			return c != "P0004" // assert_failure
		}
	}
	return false
}

// plQuery parses the statement of a PLpgSQL_expr node (already checked by
// plExpr when the walk reaches it; here the statement's shape matters).
func plQuery(v any) (*pg_query.Node, error) {
	e, _ := v.(map[string]any)
	x, _ := e["PLpgSQL_expr"].(map[string]any)
	q, ok := x["query"].(string)
	if !ok {
		return nil, errors.New("a query of the PL/pgSQL body cannot be read by the gate")
	}
	tree, err := parse(q)
	if err != nil {
		return nil, err
	}
	return tree.GetStmts()[0].GetStmt(), nil
}

// plExpr checks one embedded query or expression. Modes are PostgreSQL's
// RawParseMode: 0 a whole statement, 2 an expression (run as SELECT expr),
// 3 to 5 an assignment target := expr.
func (b *bodyFacts) plExpr(q, mode string) error {
	switch mode {
	case "", "0":
		return b.plSQL(q)
	case "2":
		return b.plSQL("SELECT " + q)
	case "3", "4", "5":
		target, expr, err := splitAssignment(q)
		if err != nil {
			return err
		}
		if err := b.plSQL("SELECT " + target); err != nil {
			return err
		}
		return b.plSQL("SELECT " + expr)
	}
	return fmt.Errorf("a PL/pgSQL expression of parse mode %s is not known to the gate", mode)
}

// plSQL checks one statement text of a PL/pgSQL body.
func (b *bodyFacts) plSQL(text string) error {
	tree, err := parse(text)
	if err != nil {
		return err
	}
	w, err := checkStatement(tree.GetStmts()[0].GetStmt(), text, stmtPL)
	if err != nil {
		return err
	}
	b.add(w)
	return nil
}

// splitAssignment splits "target := expr" (or "target = expr") at the
// first := or = outside parentheses and brackets.
func splitAssignment(q string) (target, expr string, err error) {
	if err := bounded(q); err != nil {
		return "", "", err
	}
	sc, err := pg_query.Scan(q)
	if err != nil {
		return "", "", unparseable("a PL/pgSQL assignment", err)
	}
	depth := 0
	for _, t := range sc.GetTokens() {
		switch t.GetToken() {
		case pg_query.Token_ASCII_40, pg_query.Token_ASCII_91:
			depth++
		case pg_query.Token_ASCII_41, pg_query.Token_ASCII_93:
			depth--
		case pg_query.Token_COLON_EQUALS, pg_query.Token_ASCII_61:
			s, e := int(t.GetStart()), int(t.GetEnd())
			if depth == 0 && 0 <= s && s <= e && e <= len(q) {
				return q[:s], q[e:], nil
			}
		}
	}
	return "", "", errors.New("a PL/pgSQL assignment cannot be read by the gate")
}

// plType checks the declared type of a PL/pgSQL variable: a type of the
// allowlist, record, a table's row type (t%ROWTYPE, public.t) or the type
// of a column or variable (x%TYPE).
func (b *bodyFacts) plType(typname string) error {
	t := strings.TrimSpace(typname)
	lower := strings.ToLower(t)
	switch {
	case lower == "record":
		return nil
	case strings.HasSuffix(lower, "%rowtype"):
		names, err := plNames(t[:len(t)-len("%rowtype")])
		if err != nil {
			return err
		}
		return checkQualifiedRel(names)
	case strings.HasSuffix(lower, "%type"):
		names, err := plNames(t[:len(t)-len("%type")])
		if err != nil {
			return err
		}
		switch len(names) {
		case 1:
			return nil // a variable's type
		case 2, 3:
			return checkQualifiedRel(names[:len(names)-1])
		}
		return fmt.Errorf("type %s is not allowed", t)
	}
	text := "SELECT NULL::" + t
	tree, err := parse(text)
	if err != nil {
		return fmt.Errorf("type %s cannot be read by the gate", t)
	}
	top := tree.GetStmts()[0].GetStmt()
	sel := top.GetSelectStmt()
	if len(sel.GetTargetList()) != 1 || sel.GetTargetList()[0].GetResTarget().GetVal().GetTypeCast() == nil ||
		len(sel.GetFromClause()) > 0 || sel.GetWhereClause() != nil {
		return fmt.Errorf("type %s cannot be read by the gate", t)
	}
	w, err := checkStatement(top, text, stmtPL)
	if err != nil {
		return err
	}
	b.add(w)
	return nil
}

// plNames reads a dotted name (a.b.c) of a %TYPE or %ROWTYPE declaration.
func plNames(s string) ([]string, error) {
	tree, err := parse("SELECT " + s)
	if err == nil {
		sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
		if len(sel.GetTargetList()) == 1 && len(sel.GetFromClause()) == 0 {
			if c := sel.GetTargetList()[0].GetResTarget().GetVal().GetColumnRef(); c != nil {
				names := stringsOf(c.GetFields())
				if len(names) == len(c.GetFields()) && len(names) > 0 {
					return names, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("type %s%%TYPE/%%ROWTYPE cannot be read by the gate", strings.TrimSpace(s))
}
