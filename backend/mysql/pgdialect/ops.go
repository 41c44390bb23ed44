package pgdialect

import (
	"math/big"
	"slices"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// aExpr translates an operator expression.
func (t *translator) aExpr(a *pg_query.A_Expr) (val, error) {
	op := ""
	if names := a.GetName(); len(names) > 0 {
		op = strNode(names[len(names)-1])
	}
	switch a.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return t.inList(a, op)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		return t.between(a)
	case pg_query.A_Expr_Kind_AEXPR_LIKE:
		return t.like(a, op)
	default:
		return val{}, refuse("the operator kind %s", a.GetKind().String())
	}
	if a.GetLexpr() == nil { // prefix operator
		r, err := t.expr(a.GetRexpr())
		if err != nil {
			return val{}, err
		}
		return t.unary(op, r)
	}
	l, err := t.expr(a.GetLexpr())
	if err != nil {
		return val{}, err
	}
	r, err := t.expr(a.GetRexpr())
	if err != nil {
		return val{}, err
	}
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		return t.compare(op, l, r)
	case "+", "-", "*", "/", "%":
		return t.arith(op, l, r)
	case "||":
		return t.concat(l, r)
	case "|", "&", "#":
		return t.bitwise(op, l, r)
	}
	return val{}, refuse("the operator %s", op)
}

// unary translates prefix - and +.
func (t *translator) unary(op string, r val) (val, error) {
	if r.untyped() || !isNumber(r.typ) || (op != "-" && op != "+") {
		return val{}, refuse("the prefix operator %s on %s", op, r.typ.Name)
	}
	if r.typ.Name == "numeric" {
		// numeric_uplus and numeric_uminus return numeric without its
		// typmod (the value's scale stays)
		r.typ = tNumeric
	}
	if op == "+" {
		return r, nil
	}
	if isNullConst(r) {
		return nullOf(r.typ), nil
	}
	if r.typ.Name == "float8" {
		return val{}, refuse("float8 negation (PostgreSQL's negative zero, which MariaDB does not return)")
	}
	if intRank(r.typ) > 0 {
		zero := intConst(0, r.typ)
		if v, ok, err := t.foldInt("-", zero, r, r.typ); ok || err != nil {
			return v, err
		}
	}
	t.canFail() // -(-2^63)
	out := r
	out.ival = nil
	if out.nval != nil {
		out.nval = new(big.Rat).Neg(r.nval)
	}
	out.sql = "(-" + r.sql + ")"
	return t.checkRange(out)
}

// pair types two operands against each other: an untyped one takes the
// other's type (both untyped: text).
func (t *translator) pair(l, r val) (val, val, error) {
	var err error
	switch {
	case l.untyped() && r.untyped():
		if l, err = t.coerce(l, tText); err != nil {
			return l, r, err
		}
		r, err = t.coerce(r, tText)
	case l.untyped():
		l, err = t.coerce(l, r.typ)
	case r.untyped():
		r, err = t.coerce(r, l.typ)
	}
	return l, r, err
}

// isDateTime: date, timestamp or timestamptz.
func isDateTime(t Type) bool {
	return t.Name == "date" || t.Name == "timestamp" || t.Name == "timestamptz"
}

// comparable reports whether PostgreSQL compares values of a and b.
func comparable(a, b Type) bool {
	switch {
	case isNumber(a) && isNumber(b), isText(a) && isText(b):
		return true
	case a.Name == "date" || a.Name == "timestamp" || a.Name == "timestamptz":
		return b.Name == "date" || b.Name == "timestamp" || b.Name == "timestamptz"
	}
	return a.Name == b.Name
}

// compare translates a comparison.
func (t *translator) compare(op string, l, r val) (val, error) {
	l, r, err := t.pair(l, r)
	if err != nil {
		return val{}, err
	}
	if !comparable(l.typ, r.typ) {
		return val{}, pgError("42883", "operator does not exist: %s %s %s", l.typ.Name, op, r.typ.Name)
	}
	if anyNull(l, r) {
		return nullOf(tBool), nil
	}
	if v, ok := t.foldCompare(op, l, r); ok {
		return v, nil
	}
	if op == "!=" {
		op = "<>"
	}
	return typed(evalAll("("+l.sql+" "+op+" "+r.sql+")", l, r), tBool), nil
}

// evalAll is sql, a strict operator or function over operands vs, made
// to compute every operand as PostgreSQL does (a strict function's
// arguments are all computed before it looks for a NULL). MariaDB stops
// at the first NULL operand of a comparison, IN, BETWEEN, CONCAT or a
// bitwise operator, so an operand that would fail there (an overflow, a
// division by zero) goes unnoticed. When an operand after one that can
// be NULL can fail, every operand is computed first, in order, by a sum
// of null-safe comparisons (MariaDB's + and <=> compute both sides; IS
// NULL of a NOT NULL expression is folded uncomputed), then sql.
func evalAll(sql string, vs ...val) string {
	for i := 1; i < len(vs); i++ {
		if vs[i].mayFail && slices.ContainsFunc(vs[:i], mayBeNull) {
			return computeFirst(sql, vs)
		}
	}
	return sql
}

// computeFirst is sql after every one of vs is computed, in order.
func computeFirst(sql string, vs []val) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = "((" + v.sql + ") <=> NULL)"
	}
	return "(CASE WHEN " + join(parts, " + ") + " < 0 THEN NULL ELSE " + sql + " END)"
}

// mayBeNull: v is not a NOT NULL column nor a non-NULL constant.
func mayBeNull(v val) bool {
	return !v.notNull && v.ival == nil && v.nval == nil && v.str == nil
}

// arith translates + - * / %.
func (t *translator) arith(op string, l, r val) (val, error) {
	if l.untyped() && r.untyped() {
		return val{}, refuse("arithmetic between two untyped values")
	}
	if op == "%" && (l.typ.Name == "float8" || r.typ.Name == "float8") {
		// Resolution fails before an untyped operand is read.
		return val{}, pgError("42883", "operator does not exist: %s %% %s", l.typ.Name, r.typ.Name)
	}
	for _, v := range []val{l, r} {
		switch {
		case v.untyped() || isNumber(v.typ):
		case isDateTime(v.typ):
			return val{}, refuse("date/time arithmetic")
		case l.untyped() || r.untyped():
			// PostgreSQL's resolution may pick another type's operator
			// for the untyped operand (jsonb - text).
			return val{}, refuse("the operator %s between an untyped literal and %s", op, v.typ.Name)
		default:
			return val{}, pgError("42883", "operator does not exist: %s %s %s", l.typ.Name, op, r.typ.Name)
		}
	}
	t.canFail() // overflow, division by zero
	l, r, err := t.pair(l, r)
	if err != nil {
		return val{}, err
	}
	typ := widerNumber(l.typ, r.typ)
	if typ.Name == "float8" && op == "%" {
		return val{}, pgError("42883", "operator does not exist: double precision %% double precision")
	}
	if anyNull(l, r) {
		return nullOf(typ), nil
	}
	if v, ok, err := t.foldInt(op, l, r, typ); ok || err != nil {
		return v, err
	}
	switch typ.Name {
	case "float8":
		if op == "*" || op == "/" {
			return val{}, refuse("float8 multiplication and division (PostgreSQL's negative zero, which MariaDB does not return)")
		}
		return typed("("+l.sql+" "+op+" "+r.sql+")", tFloat8), nil
	case "numeric":
		if op == "/" {
			return pendingDivision(l, r)
		}
		return numericArith(op, l, r)
	}
	var sql string
	switch {
	case op == "-" && typ.Name == "int8" && (r.ival == nil || *r.ival == -9223372036854775808):
		// MariaDB's BIGINT subtraction misses the overflow of x - (-2^63)
		// (0 - (-2^63) is -2^63 there): that subtrahend is x + 2^63,
		// computed as (x + (2^63 - 1)) + 1, which overflows when
		// PostgreSQL's does (x >= 0).
		sql = "(CASE WHEN " + r.sql + " = -9223372036854775808 THEN (" + l.sql + " + 9223372036854775807) + 1 ELSE " + l.sql + " - " + r.sql + " END)"
	case op == "/":
		sql = "(" + l.sql + " DIV " + r.sql + ")"
	case op == "%":
		sql = "MOD(" + l.sql + ", " + r.sql + ")"
	default:
		sql = "(" + l.sql + " " + op + " " + r.sql + ")"
	}
	out := typed(sql, typ)
	return t.checkRange(out)
}

// numericArith is + - * on numeric (division is only supported cast to
// numeric(p, s) at once: typeCast).
func numericArith(op string, l, r val) (val, error) {
	scale := -1
	if ls, rs := lscale(l), lscale(r); ls >= 0 && rs >= 0 {
		switch op {
		case "+", "-":
			scale = max(ls, rs)
		case "*":
			scale = ls + rs
		}
	}
	switch op {
	case "/":
		return val{}, refuse("numeric division other than by a power of ten up to 10000 cast at once to numeric(p, s) (PostgreSQL's result scale differs from MariaDB's)")
	case "%":
		return val{}, refuse("numeric %%")
	}
	if scale > 30 {
		return val{}, refuse("numeric results of more than 30 digits after the point")
	}
	out := typed("("+l.sql+" "+op+" "+r.sql+")", tNumeric)
	out.scale = scale
	return foldNumeric(op, l, r, out)
}

// pendingDivision is numeric l / 10^k (k <= 4), pending until cast or
// stored as numeric(p, s).
func pendingDivision(l, r val) (val, error) {
	if !map[string]bool{"1": true, "10": true, "100": true, "1000": true, "10000": true}[r.sql] || r.typ.Name != "int4" {
		return numericArith("/", l, r)
	}
	out := typed("("+l.sql+" / "+r.sql+")", tNumeric)
	out.pendingDiv = true
	if a := ratOf(l); a != nil && lscale(l) >= 0 {
		q := new(big.Rat).Quo(a, new(big.Rat).SetInt64(*r.ival))
		out.nval = roundRat(q, divScale(a, lscale(l), *r.ival))
	}
	return out, nil
}

// lscale is the display scale of a numeric operand (0 for an integer).
func lscale(v val) int {
	if v.typ.Name == "numeric" {
		return v.scale
	}
	return 0
}

// checkRange gives an int2/int4 result PostgreSQL's overflow check.
// MariaDB computes integers in BIGINT, so the result is multiplied by
// 2^32 (2^48 for int2) and divided back: the product overflows BIGINT
// (1690, SQLSTATE 22003, as PostgreSQL's error) exactly when the value is
// outside the type's range (-2^31 * 2^32 is -2^63, the smallest BIGINT),
// and the operand is evaluated once.
func (t *translator) checkRange(v val) (val, error) {
	mul := ""
	switch v.typ.Name {
	case "int4":
		mul = "4294967296"
	case "int2":
		mul = "281474976710656"
	default:
		return v, nil
	}
	t.canFail()
	out := v
	out.sql, out.ival = "(("+v.sql+") * "+mul+" DIV "+mul+")", nil
	return out, nil
}

// concat translates ||: text with any operand PostgreSQL shows as text;
// NULL in, NULL out (MariaDB's CONCAT too).
func (t *translator) concat(l, r val) (val, error) {
	if !l.untyped() && !isText(l.typ) && !r.untyped() && !isText(r.typ) {
		return val{}, pgError("42883", "operator does not exist: %s || %s", l.typ.Name, r.typ.Name)
	}
	if anyNull(l, r) {
		return nullOf(tText), nil
	}
	ls, err := t.asText(l)
	if err != nil {
		return val{}, err
	}
	rs, err := t.asText(r)
	if err != nil {
		return val{}, err
	}
	ls.mayFail, rs.mayFail = l.mayFail, r.mayFail
	out := typed(evalAll("CONCAT("+ls.sql+", "+rs.sql+")", ls, rs), tText)
	if ls.maxLen > 0 && rs.maxLen > 0 {
		out.maxLen = ls.maxLen + rs.maxLen
	}
	return out, nil
}

// asText is v as text, as PostgreSQL's output function writes it.
func (t *translator) asText(v val) (val, error) {
	v, err := t.coerce(v, tText)
	if err != nil {
		return val{}, err
	}
	conv := "CAST(" + v.sql + " AS CHAR CHARACTER SET utf8mb4) COLLATE " + textCollation
	out := typed(conv, tText)
	switch {
	case isText(v.typ):
		return v, nil
	case intRank(v.typ) > 0:
		out.maxLen = 20
	case v.typ.Name == "date":
		out.maxLen = 10
	case v.typ.Name == "numeric" && v.scale >= 0:
		out.maxLen = 67
	case v.typ.Name == "bool":
		out.sql = "(CASE WHEN " + v.sql + " THEN " + textLiteral("true", t.stored) + " WHEN NOT " + v.sql + " THEN " + textLiteral("false", t.stored) + " END)"
		out.maxLen = 5
	default:
		return val{}, refuse("the text form of %s values", v.typ.Name)
	}
	return out, nil
}

// like translates LIKE / NOT LIKE with a literal pattern (PostgreSQL's
// escape character \ is MariaDB's too).
func (t *translator) like(a *pg_query.A_Expr, op string) (val, error) {
	if op != "~~" && op != "!~~" {
		return val{}, refuse("ILIKE")
	}
	l, err := t.expr(a.GetLexpr())
	if err != nil {
		return val{}, err
	}
	if l, err = t.coerce(l, tText); err != nil {
		return val{}, err
	}
	if !isText(l.typ) {
		return val{}, pgError("42883", "operator does not exist: %s ~~ unknown", l.typ.Name)
	}
	c := a.GetRexpr().GetAConst()
	if c == nil || c.GetSval() == nil {
		return val{}, refuse("LIKE with a pattern other than a string literal")
	}
	pat := c.GetSval().GetSval()
	if strings.HasSuffix(pat, `\`) && (len(pat)-len(strings.TrimRight(pat, `\`)))%2 == 1 {
		// PostgreSQL fails (22025) only when a row's match reaches the
		// end of the pattern; MariaDB matches a literal backslash.
		return val{}, refuse("a LIKE pattern ending with the escape character")
	}
	not := ""
	if op == "!~~" {
		not = "NOT "
	}
	return typed("("+l.sql+" "+not+"LIKE "+textLiteral(pat, t.stored)+")", tBool), nil
}

// inList translates x [NOT] IN (list).
func (t *translator) inList(a *pg_query.A_Expr, op string) (val, error) {
	l, err := t.expr(a.GetLexpr())
	if err != nil {
		return val{}, err
	}
	items := a.GetRexpr().GetList().GetItems()
	if len(items) == 0 {
		return val{}, refuse("IN with this right operand")
	}
	vs := []val{l}
	for _, it := range items {
		v, err := t.expr(it)
		if err != nil {
			return val{}, err
		}
		vs = append(vs, v)
	}
	if l.untyped() {
		// PostgreSQL compares an untyped left with each item apart when
		// the items have no common type.
		if _, typ, err := t.common(vs[1:], "IN"); err != nil {
			return val{}, refuse("IN of an untyped value over items of different types")
		} else if vs[0], err = t.coerce(vs[0], typ); err != nil {
			return val{}, err
		}
	}
	if err := t.inArrayItems(items, vs); err != nil {
		return val{}, err
	}
	for i := 1; i < len(vs); i++ {
		if vs[0], vs[i], err = t.pair(vs[0], vs[i]); err != nil {
			return val{}, err
		}
		if !comparable(vs[0].typ, vs[i].typ) {
			return val{}, pgError("42883", "operator does not exist: %s = %s", vs[0].typ.Name, vs[i].typ.Name)
		}
	}
	return t.inChain(a.GetLexpr(), items, vs, op == "<>")
}

// inArrayItems types the untyped items of x IN (items), vs being x and
// the items translated, as PostgreSQL does when more than one item has no
// column (they become an array): by the common type of x and those items
// (c IN (1, '1.5') compares c with 1.5, not with the integer '1.5'
// fails to be). Otherwise each is typed against x alone (pair).
func (t *translator) inArrayItems(items []*pg_query.Node, vs []val) error {
	if vs[0].untyped() {
		return nil
	}
	array := []val{vs[0]}
	var untyped []int
	for i, it := range items {
		if varFree(it) {
			array = append(array, vs[i+1])
			if vs[i+1].untyped() {
				untyped = append(untyped, i+1)
			}
		}
	}
	if len(array) < 3 || len(untyped) == 0 {
		return nil
	}
	typ, err := commonType(array, "IN")
	if err != nil {
		return nil // the items are paired one by one, which reports it
	}
	for _, i := range untyped {
		if vs[i], err = t.coerce(vs[i], typ); err != nil {
			return err
		}
	}
	return nil
}

// inChain is x [NOT] IN (items) as PostgreSQL's parser builds it
// (transformAExprIn) and its planner folds it: the items without columns,
// when there are several, become one x = ANY(ARRAY[...]) (x <> ALL for
// NOT IN); every other item a comparison of its own (with x again),
// OR-ed after it (AND-ed for NOT IN). A comparison with a NULL constant
// is NULL, the chain folded as simplify_or_arguments does: a TRUE
// constant decides an OR, FALSE and NULL constants are dropped (NULL kept
// last), so x is not evaluated when nothing is left.
func (t *translator) inChain(left *pg_query.Node, items []*pg_query.Node, vs []val, not bool) (val, error) {
	lconst := constNode(left)
	var free, rest []int
	for i, it := range items {
		if it.GetSubLink() != nil {
			return val{}, refuse("IN with a subquery in its list")
		}
		if varFree(it) {
			free = append(free, i)
		} else {
			rest = append(rest, i)
		}
	}
	var parts []val
	if len(free) > 1 {
		allConst := lconst
		for _, i := range free {
			allConst = allConst && constNode(items[i])
		}
		if allConst {
			return val{}, refuse("IN over constants only (PostgreSQL's planner folds it)")
		}
		var in []string
		operands := []val{vs[0]}
		for _, i := range free {
			in = append(in, vs[i+1].sql)
			operands = append(operands, vs[i+1])
		}
		kw := " IN ("
		if not {
			kw = " NOT IN ("
		}
		sql := "(" + vs[0].sql + kw + join(in, ", ") + "))"
		if slices.ContainsFunc(operands[1:], func(v val) bool { return v.mayFail }) {
			// PostgreSQL computes the whole array; MariaDB's IN stops at
			// a NULL left operand and at the first match.
			sql = computeFirst(sql, operands)
		}
		parts = append(parts, typed(sql, tBool))
	} else {
		rest = append(free, rest...)
		sort.Ints(rest)
	}
	cmp := "="
	if not {
		cmp = "<>"
	}
	for _, i := range rest {
		c, err := t.compare(cmp, vs[0], vs[i+1])
		if err != nil {
			return val{}, err
		}
		if err := knownCond(lconst && constNode(items[i]), c, "IN"); err != nil {
			return val{}, err
		}
		parts = append(parts, c)
	}
	return foldChain(parts, !not), nil
}

// foldChain is the OR (or AND) of parts as PostgreSQL's planner folds it
// (simplify_or_arguments, simplify_and_arguments).
func foldChain(parts []val, or bool) val {
	decide, neutral, sep := "TRUE", "FALSE", " OR "
	if !or {
		decide, neutral, sep = "FALSE", "TRUE", " AND "
	}
	var keep []string
	haveNull := false
	for _, p := range parts {
		switch {
		case p.sql == decide:
			return typed(decide, tBool)
		case p.sql == neutral:
		case isNullConst(p):
			haveNull = true
		default:
			keep = append(keep, p.sql)
		}
	}
	if haveNull {
		if len(keep) == 0 {
			return nullOf(tBool)
		}
		keep = append(keep, "NULL")
	}
	switch len(keep) {
	case 0:
		return typed(neutral, tBool)
	case 1:
		return typed(keep[0], tBool)
	}
	return typed("("+join(keep, sep)+")", tBool)
}

// between translates [NOT] BETWEEN.
func (t *translator) between(a *pg_query.A_Expr) (val, error) {
	l, err := t.expr(a.GetLexpr())
	if err != nil {
		return val{}, err
	}
	bounds := a.GetRexpr().GetList().GetItems()
	if len(bounds) != 2 {
		return val{}, refuse("BETWEEN with this right operand")
	}
	var bs [2]val
	for i, b := range bounds {
		v, err := t.expr(b)
		if err != nil {
			return val{}, err
		}
		if l, v, err = t.pair(l, v); err != nil {
			return val{}, err
		}
		if !comparable(l.typ, v.typ) {
			return val{}, pgError("42883", "operator does not exist: %s >= %s", l.typ.Name, v.typ.Name)
		}
		bs[i] = v
	}
	notBetween := a.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN
	if bs[0].mayFail || bs[1].mayFail {
		// MariaDB's BETWEEN computes no bound when x is NULL and both
		// otherwise: PostgreSQL's parser makes it x >= a AND x <= b (x < a
		// OR x > b), which computes b only when the first is not decided.
		return t.betweenAsComparisons(l, bs, notBetween)
	}
	not := ""
	if notBetween {
		not = "NOT "
	}
	return typed("("+l.sql+" "+not+"BETWEEN "+bs[0].sql+" AND "+bs[1].sql+")", tBool), nil
}

// betweenAsComparisons is x [NOT] BETWEEN a AND b as PostgreSQL's parser
// writes it: x >= a AND x <= b, or x < a OR x > b.
func (t *translator) betweenAsComparisons(x val, bs [2]val, not bool) (val, error) {
	ops, sep := [2]string{">=", "<="}, " AND "
	if not {
		ops, sep = [2]string{"<", ">"}, " OR "
	}
	var parts [2]string
	for i, b := range bs {
		c, err := t.compare(ops[i], x, b)
		if err != nil {
			return val{}, err
		}
		parts[i] = c.sql
	}
	return typed("("+parts[0]+sep+parts[1]+")", tBool), nil
}

// bitwise translates | & # on integers. MariaDB computes them on BIGINT
// UNSIGNED (a negative operand sign-extended): the result cast back to
// SIGNED is PostgreSQL's two's complement result.
func (t *translator) bitwise(op string, l, r val) (val, error) {
	l, r, err := t.pair(l, r)
	if err != nil {
		return val{}, err
	}
	if intRank(l.typ) == 0 || intRank(r.typ) == 0 {
		return val{}, pgError("42883", "operator does not exist: %s %s %s", l.typ.Name, op, r.typ.Name)
	}
	if anyNull(l, r) {
		return nullOf(widerNumber(l.typ, r.typ)), nil
	}
	if op == "#" {
		op = "^"
	}
	out := typed(evalAll("CAST(("+l.sql+" "+op+" "+r.sql+") AS SIGNED)", l, r), widerNumber(l.typ, r.typ))
	return out, nil
}
