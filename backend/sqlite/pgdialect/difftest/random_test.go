package difftest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/internal/racetest"
)

// kind is the family of a column or expression type, which decides the
// operators the generator applies to it.
type kind int

const (
	kInt kind = iota
	kText
	kBool
	kFloat
	kTime // timestamptz, date
	kUUID
	nKinds
)

// columnType is a declared type of generated columns.
type columnType struct {
	decl string
	kind kind
}

// columnTypes are the declared types of generated columns.
var columnTypes = []columnType{
	{"int4", kInt}, {"int8", kInt}, {"int2", kInt}, {"integer", kInt}, {"bigint", kInt},
	{"text", kText}, {"varchar(5)", kText}, {"text", kText},
	{"bool", kBool}, {"float8", kFloat}, {"float4", kFloat}, {"numeric", kFloat}, {"numeric(8,2)", kFloat},
	{"timestamptz", kTime}, {"date", kTime}, {"uuid", kUUID},
}

type column struct {
	name string // qualified when in a scope ("t0.c1")
	decl string
	kind kind
}

type table struct {
	name string
	cols []column
	pk   bool // cols[0] is the primary key
}

// gen generates one random case: SQLancer-style, a schema, rows, and
// queries over them whose results both engines must agree on.
type gen struct {
	r     *rand.Rand
	types []columnType
	// args collects the arguments of the statement being generated when
	// it takes parameters (params): integer and text literals become $n,
	// their text sent untyped, as a client's string arguments are.
	params bool
	args   []any
	tables []table
	stmts  []spec
	origin string
}

// randomCase is case number k of seed, with columns of types.
func randomCase(seed, k uint64, types []columnType) diffCase {
	g := &gen{r: rand.New(rand.NewPCG(seed, k)), types: types, origin: fmt.Sprintf("%s=%d %s=%d", envSeed, seed, envCase, k)}
	g.schema()
	g.rows()
	for n := 4 + g.r.IntN(12); n > 0; n-- {
		g.statement()
	}
	return diffCase{name: fmt.Sprintf("random %d/%d", seed, k), stmts: g.stmts}
}

func (g *gen) add(sql string, setup bool) {
	g.stmts = append(g.stmts, spec{sql: sql, setup: setup, where: g.origin, args: g.args})
	g.args = nil
}

// renumber keeps the arguments of the placeholders sql uses (an
// expression generator may drop an operand it generated) and numbers
// them $1, $2 ... in order of appearance.
func (g *gen) renumber(sql string) string {
	var args []any
	seen := map[string]string{}
	out := placeholder.ReplaceAllStringFunc(sql, func(p string) string {
		if n, ok := seen[p]; ok {
			return n
		}
		k, _ := strconv.Atoi(p[1:])
		args = append(args, g.args[k-1])
		seen[p] = "$" + strconv.Itoa(len(args))
		return seen[p]
	})
	g.args = args
	return out
}

// param turns a literal into the next placeholder when the statement
// takes parameters: its argument is the literal's text, a string.
func (g *gen) param(lit string) string {
	if !g.params || !g.chance(0.5) {
		return lit
	}
	if len(lit) >= 2 && lit[0] == '\'' {
		lit = strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	}
	g.args = append(g.args, lit)
	return "$" + strconv.Itoa(len(g.args))
}

func (g *gen) pick(n int) int { return g.r.IntN(n) }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) schema() {
	for i := range 1 + g.pick(3) {
		t := table{name: fmt.Sprintf("t%d", i)}
		var defs []string
		for j := range 1 + g.pick(4) {
			ct := g.types[g.pick(len(g.types))]
			c := column{name: fmt.Sprintf("c%d", j), decl: ct.decl, kind: ct.kind}
			def := c.name + " " + c.decl
			switch {
			case j == 0 && c.kind == kInt && g.chance(0.4):
				def += " PRIMARY KEY"
				t.pk = true
			case g.chance(0.15):
				def += " NOT NULL"
			case g.chance(0.1):
				def += " UNIQUE"
			}
			t.cols = append(t.cols, c)
			defs = append(defs, def)
		}
		g.tables = append(g.tables, t)
		g.add(fmt.Sprintf("CREATE TABLE %s (%s)", t.name, strings.Join(defs, ", ")), true)
	}
}

func (g *gen) rows() {
	for _, t := range g.tables {
		for range g.pick(9) {
			vals := make([]string, len(t.cols))
			for i, c := range t.cols {
				vals[i] = g.literalOrNull(c.kind)
			}
			g.add(fmt.Sprintf("INSERT INTO %s VALUES (%s)", t.name, strings.Join(vals, ", ")), false)
		}
	}
}

var (
	intLiterals  = []string{"0", "1", "-1", "2", "3", "7", "10", "-5", "100", "32767", "-32768", "2147483647", "-2147483648", "9223372036854775807", "4000000000"}
	textLiterals = []string{"''", "'a'", "'A'", "'b'", "'ab'", "'aB'", "'abc'", "'a%b'", "'a_c'", "' a'", "'a '", "'Z'", "'é'", "'ß'", "'10'", "'9'", "'NULL'", "'abcdefg'"}
	timeLits     = []string{"TIMESTAMPTZ '2024-02-29 12:34:56+00'", "DATE '2024-01-01'", "TIMESTAMPTZ '2023-12-31 23:59:59.5+00'", "DATE '2024-03-01'", "TIMESTAMPTZ '2024-01-01 00:00:00+05'", "DATE '1999-12-31'"}
	// No '-0': SQLite stores -0.0 as 0 (a known difference, in
	// traps.case), which would flood every random float column.
	// uuidLits are uuids in the input forms PostgreSQL accepts (case,
	// braces, hyphens), whose text order is not their byte order.
	uuidLits  = []string{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", "'{00000000-0000-0000-0000-000000000001}'", "'ffffffffffffffffffffffffffffffff'", "'0a0e-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11'", "'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"}
	floatLits = []string{"0.5", "-1.25", "3.0", "1e10", "1e-5", "CAST('0.1' AS float8)", "CAST('1e300' AS float8)", "2.5"}
)

func (g *gen) literal(k kind) string {
	switch k {
	case kInt:
		return g.param(intLiterals[g.pick(len(intLiterals))])
	case kText:
		return g.param(textLiterals[g.pick(len(textLiterals))])
	case kBool:
		return []string{"true", "false", "TRUE", "'t'"}[g.pick(4)]
	case kTime:
		return timeLits[g.pick(len(timeLits))]
	case kUUID:
		lit := g.param(uuidLits[g.pick(len(uuidLits))])
		if lit[0] == '$' || g.chance(0.5) {
			return lit
		}
		return "CAST(" + lit + " AS uuid)"
	}
	return floatLits[g.pick(len(floatLits))]
}

func (g *gen) literalOrNull(k kind) string {
	switch {
	case !g.chance(0.15):
	case k == kTime:
		return "CAST(NULL AS timestamptz)"
	default:
		return "NULL"
	}
	return g.literal(k)
}

// scope is the columns an expression may name.
type scope []column

func (s scope) of(k kind) []column {
	var out []column
	for _, c := range s {
		if c.kind == k {
			out = append(out, c)
		}
	}
	return out
}

// expr is a random expression of kind k over sc, at most depth deep.
func (g *gen) expr(k kind, sc scope, depth int) string {
	if cols := sc.of(k); len(cols) > 0 && (depth <= 0 || g.chance(0.35)) {
		return cols[g.pick(len(cols))].name
	}
	if depth <= 0 || g.chance(0.2) {
		return g.literalOrNull(k)
	}
	switch k {
	case kInt:
		return g.intExpr(sc, depth-1)
	case kText:
		return g.textExpr(sc, depth-1)
	case kBool:
		return g.boolExpr(sc, depth-1)
	case kTime:
		return g.timeExpr(sc, depth-1)
	case kUUID:
		return g.uuidExpr(sc, depth-1)
	}
	return g.floatExpr(sc, depth-1)
}

func (g *gen) intExpr(sc scope, d int) string {
	if g.chance(wider) {
		return g.intMore(sc, d)
	}
	a, b := g.expr(kInt, sc, d), g.expr(kInt, sc, d)
	switch g.pick(9) {
	case 0, 1:
		return "(" + a + " " + []string{"+", "-", "*", "/", "%"}[g.pick(5)] + " " + b + ")"
	case 2:
		return "abs(" + a + ")"
	case 3:
		return "(- " + a + ")"
	case 4:
		return "length(" + g.expr(kText, sc, d) + ")"
	case 5:
		return "COALESCE(" + a + ", " + b + ")"
	case 6:
		return "CASE WHEN " + g.expr(kBool, sc, d) + " THEN " + a + " ELSE " + b + " END"
	case 7:
		return "CAST(" + g.expr(kFloat, sc, d) + " AS int4)"
	}
	return "NULLIF(" + a + ", " + b + ")"
}

func (g *gen) textExpr(sc scope, d int) string {
	if g.chance(wider) {
		return g.textMore(sc, d)
	}
	a, b := g.expr(kText, sc, d), g.expr(kText, sc, d)
	switch g.pick(8) {
	case 0, 1:
		return "(" + a + " || " + b + ")"
	case 2:
		return []string{"lower", "upper", "trim", "btrim"}[g.pick(4)] + "(" + a + ")"
	case 3:
		return "substr(" + a + ", " + []string{"0", "1", "2", "-1", "3"}[g.pick(5)] + ", 2)"
	case 4:
		return "COALESCE(" + a + ", " + b + ")"
	case 5:
		return "CAST(" + g.expr(kInt, sc, d) + " AS text)"
	case 6:
		return "CASE WHEN " + g.expr(kBool, sc, d) + " THEN " + a + " ELSE " + b + " END"
	}
	return "(" + g.expr(kInt, sc, d) + " || " + a + ")"
}

func (g *gen) floatExpr(sc scope, d int) string {
	if g.chance(wider) {
		return g.floatMore(sc, d)
	}
	a, b := g.expr(kFloat, sc, d), g.expr(kFloat, sc, d)
	switch g.pick(5) {
	case 0, 1:
		return "(" + a + " " + []string{"+", "-", "*", "/"}[g.pick(4)] + " " + b + ")"
	case 2:
		return "abs(" + a + ")"
	case 3:
		return "CAST(" + g.expr(kInt, sc, d) + " AS float8)"
	}
	return "(" + g.expr(kInt, sc, d) + " + " + a + ")"
}

func (g *gen) timeExpr(sc scope, d int) string {
	a := g.expr(kTime, sc, d)
	switch g.pick(5) {
	case 4:
		// date ± integer is a date; on a timestamptz it fails (42883).
		return "(CAST(" + a + " AS date) " + []string{"+", "-"}[g.pick(2)] + " " + []string{"1", "31", "-2"}[g.pick(3)] + ")"
	case 0:
		return "(" + a + " + interval '" + []string{"1 day", "-2 hours", "1 month", "90 minutes"}[g.pick(4)] + "')"
	case 1:
		return "date_trunc('" + []string{"day", "month", "hour"}[g.pick(3)] + "', " + a + ")"
	case 2:
		return "CAST(" + a + " AS date)"
	}
	return "COALESCE(" + a + ", " + g.expr(kTime, sc, d) + ")"
}

func (g *gen) uuidExpr(sc scope, d int) string {
	a, b := g.expr(kUUID, sc, d), g.expr(kUUID, sc, d)
	switch g.pick(4) {
	case 0:
		return "CAST(upper(CAST(" + a + " AS text)) AS uuid)"
	case 1:
		return "CASE WHEN " + g.expr(kBool, sc, d) + " THEN " + a + " ELSE " + b + " END"
	case 2:
		return "NULLIF(" + a + ", " + b + ")"
	}
	return "COALESCE(" + a + ", " + b + ")"
}

func (g *gen) boolExpr(sc scope, d int) string {
	if g.chance(wider) {
		return g.boolMore(sc, d)
	}
	switch g.pick(10) {
	case 0, 1, 2:
		k := kind(g.pick(int(nKinds)))
		op := []string{"=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"}[g.pick(8)]
		return "(" + g.expr(k, sc, d) + " " + op + " " + g.expr(k, sc, d) + ")"
	case 3:
		return "(" + g.expr(kBool, sc, d) + []string{" AND ", " OR "}[g.pick(2)] + g.expr(kBool, sc, d) + ")"
	case 4:
		return "(NOT " + g.expr(kBool, sc, d) + ")"
	case 5:
		return "(" + g.expr(kind(g.pick(int(nKinds))), sc, d) + []string{" IS NULL", " IS NOT NULL"}[g.pick(2)] + ")"
	case 6:
		pat := []string{"'a%'", "'%b'", "'_'", "'A%'", "'%'", "'a\\%b'", "'%a_c%'", "''"}[g.pick(8)]
		return "(" + g.expr(kText, sc, d) + []string{" LIKE ", " NOT LIKE ", " ILIKE "}[g.pick(3)] + pat + ")"
	case 7:
		k := kind(g.pick(int(nKinds)))
		return "(" + g.expr(k, sc, d) + " BETWEEN " + g.literal(k) + " AND " + g.literal(k) + ")"
	case 8:
		k := kind(g.pick(int(nKinds)))
		return "(" + g.expr(k, sc, d) + " IN (" + g.literal(k) + ", " + g.literalOrNull(k) + "))"
	}
	// A string literal against an integer: PostgreSQL reads it as an
	// integer, or fails (22P02).
	return "(" + g.expr(kInt, sc, d) + " = " + []string{"'7'", "'1'", "' 2 '", "'a'", "'1.5'"}[g.pick(5)] + ")"
}

// statement adds one random statement (mostly queries).
func (g *gen) statement() {
	t := g.tables[g.pick(len(g.tables))]
	switch g.pick(21) {
	case 15, 16, 17, 18, 19, 20:
		g.statementMore(t, g.tables[g.pick(len(g.tables))])
	case 14:
		g.add(g.selectWindow(t), false)
		g.stmts[len(g.stmts)-1].read = true // the block gate refuses window functions
	case 12:
		g.add(g.selectDerived(t), false)
	case 13:
		g.add(g.selectScalarSubquery(t, g.tables[g.pick(len(g.tables))]), false)
	case 0, 1, 2:
		g.add(g.selectPlain(t), false)
	case 3, 4:
		g.add(g.selectGrouped(t), false)
	case 5:
		g.add(g.selectAggregate(t), false)
	case 6, 7:
		g.add(g.selectJoin(t, g.tables[g.pick(len(g.tables))]), false)
	case 8:
		g.add(g.selectSetOp(t, g.tables[g.pick(len(g.tables))]), false)
	case 9:
		g.add(g.selectSubquery(t, g.tables[g.pick(len(g.tables))]), false)
	default:
		g.add(g.write(t), false)
		g.add(fmt.Sprintf("SELECT * FROM %s ORDER BY %s", t.name, positions(len(t.cols), g)), false)
	}
}

func (t table) scope(alias string) scope {
	sc := make(scope, len(t.cols))
	for i, c := range t.cols {
		c.name = alias + "." + c.name
		sc[i] = c
	}
	return sc
}

// positions is an ORDER BY of output columns 1..n, each ASC or DESC (and
// now and then an explicit NULLS placement): it orders the rows totally.
func positions(n int, g *gen) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = strconv.Itoa(i + 1)
		if g.chance(0.3) {
			ps[i] += " DESC"
		}
		if g.chance(0.1) {
			ps[i] += []string{" NULLS FIRST", " NULLS LAST"}[g.pick(2)]
		}
	}
	return strings.Join(ps, ", ")
}

func (g *gen) where(sc scope) string {
	if g.chance(0.2) {
		return ""
	}
	return " WHERE " + g.expr(kBool, sc, 2)
}

func (g *gen) outputs(sc scope, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.expr(kind(g.pick(int(nKinds))), sc, 2)
		if g.chance(0.5) {
			out[i] += " AS o" + strconv.Itoa(i)
		}
	}
	return out
}

func (g *gen) selectPlain(t table) string {
	sc := t.scope(t.name)
	outs := g.outputs(sc, 1+g.pick(3))
	distinct := ""
	if g.chance(0.2) {
		distinct = "DISTINCT "
	}
	g.params = g.chance(0.3)
	where := g.renumber(g.where(sc))
	g.params = false
	sql := "SELECT " + distinct + strings.Join(outs, ", ") + " FROM " + t.name + where
	if g.chance(0.85) {
		sql += " ORDER BY " + positions(len(outs), g)
		if g.chance(0.2) {
			sql += " LIMIT " + strconv.Itoa(1+g.pick(4))
		}
	}
	return sql
}

func (g *gen) aggregate(sc scope) string {
	c := sc[g.pick(len(sc))]
	switch {
	case g.chance(0.2):
		return "count(*)"
	case c.kind == kInt || c.kind == kFloat:
		return []string{"sum", "min", "max", "count", "avg"}[g.pick(5)] + "(" + c.name + ")"
	case c.kind == kBool:
		return []string{"bool_and", "bool_or", "count"}[g.pick(3)] + "(" + c.name + ")"
	}
	return []string{"min", "max", "count"}[g.pick(3)] + "(" + []string{"", "DISTINCT "}[g.pick(2)] + c.name + ")"
}

func (g *gen) selectGrouped(t table) string {
	sc := t.scope(t.name)
	key := sc[g.pick(len(sc))].name
	aggs := []string{g.aggregate(sc), g.aggregate(sc)}
	sql := "SELECT " + key + ", " + strings.Join(aggs, ", ") + " FROM " + t.name + g.where(sc) + " GROUP BY " + key
	if g.chance(0.3) {
		sql += " HAVING count(*) " + []string{">", ">=", "="}[g.pick(3)] + " " + strconv.Itoa(g.pick(3))
	}
	return sql + " ORDER BY " + positions(3, g)
}

func (g *gen) selectAggregate(t table) string {
	sc := t.scope(t.name)
	return "SELECT " + g.aggregate(sc) + ", " + g.aggregate(sc) + " FROM " + t.name + g.where(sc)
}

// selectWindow is a query with window functions whose results PostgreSQL
// defines: functions of the peer group (rank ..., aggregates over the
// default or a RANGE frame) over any ORDER BY, and order-sensitive ones
// (row_number, lag, lead, first_value, ntile, ROWS frames) over an ORDER
// BY of every column (peers are then equal rows). Every column is output,
// so the top-level ORDER BY of all outputs orders the rows totally.
func (g *gen) selectWindow(t table) string {
	sc := t.scope(t.name)
	var all []string
	for _, c := range sc {
		all = append(all, c.name)
	}
	partition := ""
	if g.chance(0.5) {
		partition = "PARTITION BY " + sc[g.pick(len(sc))].name + " "
	}
	outs := append([]string(nil), all...)
	for n := 1 + g.pick(3); n > 0; n-- {
		c := sc[g.pick(len(sc))]
		if g.chance(0.5) {
			order := sc[g.pick(len(sc))].name + []string{"", " DESC", " NULLS FIRST"}[g.pick(3)]
			fn := []string{"rank()", "dense_rank()", "percent_rank()", "cume_dist()", "count(*)", "count(" + c.name + ")", g.aggregate(sc)}[g.pick(7)]
			frame := []string{"", "", " RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING", " GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW"}[g.pick(4)]
			outs = append(outs, fn+" OVER ("+partition+"ORDER BY "+order+frame+")")
			continue
		}
		order := strings.Join(all, ", ")
		fn := []string{"row_number()", "lag(" + c.name + ")", "lead(" + c.name + ", 2)", "first_value(" + c.name + ")", "ntile(3)", "count(" + c.name + ")"}[g.pick(6)]
		frame := ""
		if strings.HasPrefix(fn, "count") {
			frame = " ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING"
		}
		outs = append(outs, fn+" OVER ("+partition+"ORDER BY "+order+frame+")")
	}
	return "SELECT " + strings.Join(outs, ", ") + " FROM " + t.name + g.where(sc) + " ORDER BY " + positions(len(outs), g)
}

func (g *gen) selectJoin(a, b table) string {
	sc := append(a.scope("l"), b.scope("r")...)
	join := []string{" JOIN ", " LEFT JOIN ", " CROSS JOIN "}[g.pick(3)]
	on := ""
	if join != " CROSS JOIN " {
		on = " ON " + g.expr(kBool, sc, 1)
	}
	outs := g.outputs(sc, 1+g.pick(3))
	return "SELECT " + strings.Join(outs, ", ") + " FROM " + a.name + " l" + join + b.name + " r" + on + g.where(sc) +
		" ORDER BY " + positions(len(outs), g)
}

func (g *gen) selectSetOp(a, b table) string {
	k := a.cols[g.pick(len(a.cols))].kind
	l := g.expr(k, a.scope(a.name), 1)
	r := g.expr(k, b.scope(b.name), 1)
	op := []string{" UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT "}[g.pick(4)]
	return "SELECT " + l + " AS v FROM " + a.name + op + "SELECT " + r + " FROM " + b.name + " ORDER BY 1"
}

func (g *gen) selectSubquery(a, b table) string {
	sc := a.scope("o")
	c := b.cols[g.pick(len(b.cols))]
	inner := "SELECT " + "i." + c.name + " FROM " + b.name + " i" + g.where(b.scope("i"))
	var cond string
	if g.chance(0.5) {
		cond = g.expr(c.kind, sc, 1) + []string{" IN ", " NOT IN "}[g.pick(2)] + "(" + inner + ")"
	} else {
		cond = []string{"EXISTS ", "NOT EXISTS "}[g.pick(2)] + "(" + inner + ")"
	}
	outs := g.outputs(sc, 1+g.pick(2))
	return "SELECT " + strings.Join(outs, ", ") + " FROM " + a.name + " o WHERE " + cond + " ORDER BY " + positions(len(outs), g)
}

// selectDerived reads t through a CTE or a derived table.
func (g *gen) selectDerived(t table) string {
	outs := g.outputsNamed(t.scope(t.name))
	inner := "SELECT " + strings.Join(outs, ", ") + " FROM " + t.name + g.where(t.scope(t.name))
	n := len(outs)
	if g.chance(0.5) {
		return "WITH d AS (" + inner + ") SELECT * FROM d ORDER BY " + positions(n, g)
	}
	return "SELECT * FROM (" + inner + ") AS d ORDER BY " + positions(n, g)
}

// outputsNamed are 1..3 expressions named d0, d1 ...
func (g *gen) outputsNamed(sc scope) []string {
	out := make([]string, 1+g.pick(3))
	for i := range out {
		out[i] = g.expr(kind(g.pick(int(nKinds))), sc, 2) + " AS d" + strconv.Itoa(i)
	}
	return out
}

// selectScalarSubquery uses an aggregate of b as a value in a query of a.
func (g *gen) selectScalarSubquery(a, b table) string {
	c := b.cols[g.pick(len(b.cols))]
	agg, k := []string{"max", "min", "count"}[g.pick(3)], c.kind
	if agg == "count" || k == kBool {
		agg, k = "count", kInt
	}
	sub := "(SELECT " + agg + "(i." + c.name + ") FROM " + b.name + " i)"
	sc := a.scope("o")
	if g.chance(0.5) {
		return "SELECT " + sub + " AS s, " + g.expr(kInt, sc, 1) + " FROM " + a.name + " o ORDER BY 1, 2"
	}
	return "SELECT o.* FROM " + a.name + " o WHERE " + g.expr(k, sc, 1) + " <= " + sub + " ORDER BY " + positions(len(a.cols), g)
}

func (g *gen) write(t table) string {
	sc := t.scope(t.name)
	switch {
	case g.chance(0.25):
		return "DELETE FROM " + t.name + g.where(sc)
	case g.chance(0.3):
		return g.insert(t)
	}
	c := t.cols[g.pick(len(t.cols))]
	sql := "UPDATE " + t.name + " SET " + c.name + " = " + stored(c.kind, g.expr(c.kind, sc, 2)) + g.where(sc)
	if g.chance(0.3) {
		sql += " RETURNING " + sc[g.pick(len(sc))].name
	}
	return sql
}

// stored is expr as the generator stores it in a column of kind k: a
// float expression plus 0, which is expr for every value but -0, made 0.
// SQLite stores a float -0 as 0 (the first of pgdialect/DESIGN.md's
// "Known differences", in traps.case; storage affinity, not the
// translation), so -0 arising from arithmetic (-1.25 * 0) would flood
// the rest of a case, as the literal would (floatLits has no -0 for the
// same reason); -0 in results not stored is still compared.
func stored(k kind, expr string) string {
	if k != kFloat {
		return expr
	}
	return "(" + expr + ") + 0"
}

// insert is an INSERT of literal values or of a SELECT from the table
// itself, with ON CONFLICT on the key now and then.
func (g *gen) insert(t table) string {
	sql := "INSERT INTO " + t.name
	if g.chance(0.4) {
		sql += " SELECT * FROM " + t.name + g.where(t.scope(t.name))
	} else {
		vals := make([]string, len(t.cols))
		for i, c := range t.cols {
			vals[i] = g.literalOrNull(c.kind)
		}
		sql += " VALUES (" + strings.Join(vals, ", ") + ")"
	}
	if t.pk && g.chance(0.6) {
		c := t.cols[g.pick(len(t.cols))]
		sql += []string{" ON CONFLICT DO NOTHING", " ON CONFLICT (c0) DO NOTHING",
			" ON CONFLICT (c0) DO UPDATE SET " + c.name + " = EXCLUDED." + c.name,
			" ON CONFLICT (c0) DO UPDATE SET " + c.name + " = " + stored(c.kind, g.expr(c.kind, t.scope(t.name), 1))}[g.pick(4)]
	}
	if g.chance(0.3) {
		sql += " RETURNING *"
	}
	return sql
}

// diffSeconds is the random test's time budget.
func diffSeconds(t *testing.T) time.Duration {
	s := os.Getenv(envSeconds)
	if s == "" {
		return defaultRun.seconds
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want whole seconds", envSeconds, s)
	}
	return time.Duration(n) * time.Second
}

// defaultRun is the random run without RELCHAIN_DIFF_SECONDS (make test,
// CI): 50 seconds of seed 62, at most its first 1,390 cases, which
// PostgreSQL 15 and the translator answer alike: a fixed, replayable set,
// so a failure is a regression, never a new seed's finding. A campaign
// (make test-dialect-diff sets the seconds) explores from the clock's
// seed, unbounded in cases.
var defaultRun = struct {
	seconds     time.Duration
	seed, cases uint64
}{50 * time.Second, 62, 1390}

// runSeedAndCases are the run's seed and its bound on cases (0: none).
func runSeedAndCases(t *testing.T) (seed, cases uint64) {
	if os.Getenv(envSeconds) == "" {
		return envUint(t, envSeed, defaultRun.seed), envUint(t, envCases, defaultRun.cases)
	}
	return envUint(t, envSeed, uint64(time.Now().UnixNano())), envUint(t, envCases, 0)
}

func envUint(t *testing.T, name string, def uint64) uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want an unsigned integer", name, s)
	}
	return n
}

// TestRandom runs random cases for RELCHAIN_DIFF_SECONDS from
// RELCHAIN_DIFF_SEED (RELCHAIN_DIFF_CASE=k replays case k alone), or
// defaultRun when the seconds are unset.
func TestRandom(t *testing.T) {
	racetest.Heavy(t) // one stream of cases on two engines, for a time budget
	h := newHarness(t)
	h.maria = newMariaColumn(h)
	seed, most := runSeedAndCases(t)
	t.Logf("random cases from %s=%d (replay one with %s=k)", envSeed, seed, envCase)
	types := translatableTypes(t)
	if k := os.Getenv(envCase); k != "" {
		h.runCase(randomCase(seed, envUint(t, envCase, 0), types), fmt.Sprintf("%s=%d %s=%s", envSeed, seed, envCase, k))
		h.log(t, "random case "+k)
		return
	}
	// the budget is the two other engines' time: MariaDB's column adds
	start, budget := time.Now(), diffSeconds(t)
	cases := 0
	for k := uint64(0); time.Since(start)-h.maria.spent < budget && (most == 0 || k < most); k++ {
		h.runCase(randomCase(seed, k, types), fmt.Sprintf("%s=%d %s=%d", envSeed, seed, envCase, k))
		cases++
	}
	h.log(t, fmt.Sprintf("random (%d cases, seed %d, %s)", cases, seed, diffSeconds(t)))
	h.requireCompared(t)
	if h.tally.discrepancies > 0 {
		t.Logf("replay with %s=%d (one case: %s=k, k as in each discrepancy)", envSeed, seed, envCase)
	}
}

// translatableTypes are the column types whose CREATE TABLE the
// translator accepts: a random case whose schema it refuses compares
// nothing, so the generator leaves the others out (and logs them) until
// the translator supports them.
func translatableTypes(t *testing.T) []columnType {
	lite, err := newLiteEngine()
	if err != nil {
		t.Fatal(err)
	}
	defer lite.close()
	var ok []columnType
	var refused []string
	for _, ct := range columnTypes {
		if _, err := pgdialect.Translate("CREATE TABLE probe (c "+ct.decl+")", lite.cat); err != nil {
			refused = append(refused, ct.decl)
			continue
		}
		ok = append(ok, ct)
	}
	if len(refused) > 0 {
		t.Logf("column types left out of random schemas (the translator refuses them): %v", refused)
	}
	if len(ok) == 0 {
		return columnTypes
	}
	return ok
}

// TestRandomGeneratorIsDeterministic: a seed and case number replay the
// same statements.
func TestRandomGeneratorIsDeterministic(t *testing.T) {
	a, b := randomCase(42, 7, columnTypes), randomCase(42, 7, columnTypes)
	if len(a.stmts) == 0 || len(a.stmts) != len(b.stmts) {
		t.Fatalf("case 42/7: %d and %d statements", len(a.stmts), len(b.stmts))
	}
	for i := range a.stmts {
		if a.stmts[i].sql != b.stmts[i].sql {
			t.Fatalf("statement %d differs: %q vs %q", i, a.stmts[i].sql, b.stmts[i].sql)
		}
	}
	if c := randomCase(42, 8, columnTypes); c.stmts[len(c.stmts)-1].sql == a.stmts[len(a.stmts)-1].sql && len(c.stmts) == len(a.stmts) {
		t.Errorf("cases 7 and 8 of seed 42 look identical")
	}
}

// TestRandomStatementsMostlyRunOnPostgreSQL holds the generator to
// statements PostgreSQL runs: a generator of errors would compare little
// but error classes. It runs 40 cases on PostgreSQL alone.
func TestRandomStatementsMostlyRunOnPostgreSQL(t *testing.T) {
	h := newHarness(t)
	ok, failed, codes := 0, 0, map[string]int{}
	for k := range uint64(40) {
		h.schemas++
		pgE, err := newPGEngine(h.pg, fmt.Sprintf("difftest_gen_%d", k), h.types)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range randomCase(1, k, columnTypes).stmts {
			if o := pgE.run(translated{sql: s.sql, args: s.args}); o.failed() {
				failed++
				codes[o.Code+" "+firstLine(o.Message)]++
			} else {
				ok++
			}
		}
		pgE.close()
	}
	logTop(t, "PostgreSQL errors", codes, nil)
	t.Logf("%d statements ran, %d failed", ok, failed)
	if ok < 3*failed {
		t.Errorf("only %d of %d generated statements ran on PostgreSQL", ok, ok+failed)
	}
}
