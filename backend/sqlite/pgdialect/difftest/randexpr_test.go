package difftest

import "strings"

// The random generator's wider expressions (random_test.go's intExpr,
// floatExpr, textExpr and boolExpr call these now and then): untyped
// operands (string literals, NULL, an all-NULL CASE) beside every kind,
// where PostgreSQL's operator and function resolution decides the type
// and which error comes first; CASE/COALESCE/NULLIF/GREATEST/LEAST type
// unification; casts between the kinds; string functions; LIKE/ILIKE
// with operands for patterns; IN lists of mixed types; overflow and
// division by zero; float, numeric and integer mixed.

// untypedLits are string literals for each kind: some its type reads,
// some it does not (22P02 and the like), some another kind's.
var untypedLits = map[kind][]string{
	kInt:   {"'7'", "' 2 '", "'-1'", "'1.5'", "'x'", "'99999999999'", "'0'"},
	kFloat: {"'1.5'", "'-0.25'", "'1e3'", "'x'", "'2'", "'0.1'"},
	kText:  {"'a'", "'1'", "''", "'ab%'"},
	kBool:  {"'t'", "'no'", "'x'", "'1'"},
	kTime:  {"'2024-01-01'", "'2024-02-29 12:00:00+00'", "'x'"},
	kUUID:  {"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'x'"},
}

// untyped is an operand without a type of its own, near an expression of
// kind k: a string literal, NULL, or CASE ... END of NULLs (which
// PostgreSQL types text).
func (g *gen) untyped(k kind) string {
	switch g.pick(6) {
	case 0:
		return "NULL"
	case 1:
		return "CASE WHEN " + []string{"true", "false"}[g.pick(2)] + " THEN NULL END"
	}
	lits := untypedLits[k]
	if g.chance(0.2) {
		lits = untypedLits[kind(g.pick(int(nKinds)))]
	}
	return lits[g.pick(len(lits))]
}

// operand is an expression of kind k or, now and then, an untyped one.
func (g *gen) operand(k kind, sc scope, d int) string {
	if g.chance(0.3) {
		return g.untyped(k)
	}
	return g.expr(k, sc, d)
}

// unified is CASE, COALESCE, NULLIF, GREATEST or LEAST over a and b (of
// one kind) and now and then an untyped operand.
func (g *gen) unified(k kind, a, b string, sc scope, d int) string {
	if g.chance(0.4) {
		b = g.untyped(k)
	}
	if g.chance(0.5) {
		a, b = b, a
	}
	switch g.pick(6) {
	case 0:
		return "COALESCE(" + a + ", " + b + ")"
	case 1:
		return "NULLIF(" + a + ", " + b + ")"
	case 2:
		return "GREATEST(" + a + ", " + b + ")"
	case 3:
		return "LEAST(" + a + ", " + b + ", " + g.operand(k, sc, d) + ")"
	case 4:
		return "CASE WHEN " + g.expr(kBool, sc, d) + " THEN " + a + " END"
	}
	return "CASE WHEN " + g.expr(kBool, sc, d) + " THEN " + a + " WHEN " + g.expr(kBool, sc, d) + " THEN " + b + " ELSE " + g.operand(k, sc, d) + " END"
}

// wider is the chance that intExpr, floatExpr, textExpr and boolExpr
// take one of the wider expressions below.
const wider = 0.35

// intMore are the wider integer expressions.
func (g *gen) intMore(sc scope, d int) string {
	a, b := g.expr(kInt, sc, d), g.expr(kInt, sc, d)
	switch g.pick(7) {
	case 0:
		return "(" + g.operand(kInt, sc, d) + " " + []string{"+", "-", "*", "/", "%"}[g.pick(5)] + " " + g.operand(kInt, sc, d) + ")"
	case 1:
		return g.unified(kInt, a, b, sc, d)
	case 2:
		return "mod(" + a + ", " + g.operand(kInt, sc, d) + ")"
	case 3:
		return "CAST(" + []string{a, g.expr(kText, sc, d), g.untyped(kInt), g.expr(kFloat, sc, d)}[g.pick(4)] + " AS " + []string{"int2", "int4", "int8"}[g.pick(3)] + ")"
	case 4:
		return "strpos(" + g.expr(kText, sc, d) + ", " + g.operand(kText, sc, d) + ")"
	case 5:
		return []string{"length", "char_length", "octet_length"}[g.pick(3)] + "(" + g.operand(kText, sc, d) + ")"
	}
	return "(" + a + " * " + []string{"2", "65536", "2147483647", "-1", "100000"}[g.pick(5)] + ")"
}

// floatMore are the wider float and numeric expressions.
func (g *gen) floatMore(sc scope, d int) string {
	a, b := g.expr(kFloat, sc, d), g.expr(kFloat, sc, d)
	switch g.pick(8) {
	case 0:
		return "(" + g.operand(kFloat, sc, d) + " " + []string{"+", "-", "*", "/", "%"}[g.pick(5)] + " " + g.operand(kFloat, sc, d) + ")"
	case 1, 2:
		return g.unified(kFloat, a, b, sc, d)
	case 3:
		return []string{"round", "ceil", "floor", "trunc", "abs"}[g.pick(5)] + "(" + g.operand(kFloat, sc, d) + ")"
	case 4:
		return []string{"round", "trunc"}[g.pick(2)] + "(" + a + ", " + []string{"0", "1", "2", "-1"}[g.pick(4)] + ")"
	case 5:
		return "CAST(" + []string{a, g.expr(kInt, sc, d), g.untyped(kFloat)}[g.pick(3)] + " AS " + []string{"numeric", "numeric(6,2)", "numeric(3,1)", "float8", "float4", "real", "decimal(10,3)"}[g.pick(7)] + ")"
	case 6:
		return "(" + g.expr(kInt, sc, d) + " " + []string{"+", "-", "*", "/", "%"}[g.pick(5)] + " " + a + ")"
	}
	return "(" + a + " " + []string{"*", "/", "+"}[g.pick(3)] + " " + []string{"1e300", "1e-300", "0", "0.0", "3", "1.5", "CAST('1e308' AS float8)"}[g.pick(7)] + ")"
}

// textMore are the wider text expressions.
func (g *gen) textMore(sc scope, d int) string {
	a, b := g.expr(kText, sc, d), g.expr(kText, sc, d)
	switch g.pick(8) {
	case 0:
		return "(" + g.operand(kText, sc, d) + " || " + g.operand(kind(g.pick(int(nKinds))), sc, d) + ")"
	case 1, 2:
		return g.unified(kText, a, b, sc, d)
	case 3:
		return "replace(" + a + ", " + g.operand(kText, sc, d) + ", " + g.operand(kText, sc, d) + ")"
	case 4:
		return []string{"left", "right"}[g.pick(2)] + "(" + a + ", " + []string{"0", "1", "2", "-1", "'2'"}[g.pick(5)] + ")"
	case 5:
		return "concat(" + a + ", " + g.expr(kind(g.pick(int(nKinds))), sc, d) + ", " + g.untyped(kText) + ")"
	case 6:
		return "CAST(" + g.expr([]kind{kFloat, kBool, kTime, kUUID, kInt}[g.pick(5)], sc, d) + " AS " + []string{"text", "varchar(3)", "varchar"}[g.pick(3)] + ")"
	}
	return []string{"ltrim", "rtrim", "btrim", "lower", "upper"}[g.pick(5)] + "(" + g.operand(kText, sc, d) + ")"
}

// boolMore are the wider predicates.
func (g *gen) boolMore(sc scope, d int) string {
	k := kind(g.pick(int(nKinds)))
	switch g.pick(6) {
	case 0, 1:
		op := []string{"=", "<>", "<", ">=", "IS DISTINCT FROM"}[g.pick(5)]
		l, r := g.expr(k, sc, d), g.untyped(k)
		if g.chance(0.5) {
			l, r = r, l
		}
		return "(" + l + " " + op + " " + r + ")"
	case 2:
		// An IN list mixing kinds that meet (integers, floats,
		// numerics and untyped literals).
		l, items := g.expr(kInt, sc, d), []string{g.literal(kInt), g.literal(kFloat), g.untyped(kInt), g.literalOrNull(kInt)}
		if g.chance(0.5) {
			l = g.expr(kFloat, sc, d)
		}
		g.r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		return "(" + l + []string{" IN (", " NOT IN ("}[g.pick(2)] + strings.Join(items[:1+g.pick(4)], ", ") + "))"
	case 3:
		return "(" + g.expr(k, sc, d) + []string{" IN (", " NOT IN ("}[g.pick(2)] + g.untyped(k) + ", " + g.operand(k, sc, d) + "))"
	case 4:
		return "(" + g.operand(kText, sc, d) + []string{" LIKE ", " NOT LIKE ", " ILIKE ", " NOT ILIKE "}[g.pick(4)] + g.operand(kText, sc, d) + ")"
	}
	return "(" + g.operand(kBool, sc, d) + []string{" AND ", " OR "}[g.pick(2)] + g.operand(kBool, sc, d) + ")"
}
