package gateway

import (
	"context"
	"regexp"
	"strings"
)

// Result columns whose type the node cannot tell before running the
// statement (SQLite types expressions only by their values) get one from
// their expression when it is plain enough: aggregates, casts, literals,
// string functions. A PostgreSQL client needs it at Describe time to
// decode the results (pgx scans COUNT(*) into an int64 only if it is
// announced as an integer).
var (
	selectList = regexp.MustCompile(`(?is)^\s*SELECT\s+(?:DISTINCT\s+|ALL\s+)?(.*?)(?:\bFROM\b|$)`)
	aliasTail  = regexp.MustCompile(`(?is)^(.*?)(?:\s+AS)?\s+("[^"]*"|[A-Za-z_]\w*)\s*$`)
	callOf     = regexp.MustCompile(`(?is)^([A-Za-z_]\w*)\s*\((.*)\)$`)
	castTo     = regexp.MustCompile(`(?is)^CAST\s*\(.*\bAS\s+([A-Za-z]+)`)
	intLiteral = regexp.MustCompile(`^[+-]?[0-9]+$`)
	numLiteral = regexp.MustCompile(`^[+-]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
)

// functionTypes are the result types of functions whatever their
// arguments.
var functionTypes = map[string]string{
	"count": "int8", "length": "int8", "instr": "int8", "octet_length": "int8", "char_length": "int8",
	"avg": "float8", "total": "float8", "random": "int8",
	"lower": "text", "upper": "text", "trim": "text", "ltrim": "text", "rtrim": "text", "substr": "text",
	"substring": "text", "replace": "text", "concat": "text", "hex": "text", "typeof": "text", "printf": "text", "format": "text",
}

// castTypes map a CAST target to a type name.
var castTypes = map[string]string{
	"integer": "int8", "int": "int8", "bigint": "int8", "real": "float8", "double": "float8",
	"float": "float8", "text": "text", "varchar": "text", "char": "text", "blob": "bytea", "numeric": "numeric",
}

// inferColumns fills unknown column types from the select list.
func (s *session) inferColumns(ctx context.Context, sql string, types []string) []string {
	if !slicesContainsEmpty(types) {
		return types
	}
	text := stripLiteralsKeepLength(sql)
	m := selectList.FindStringSubmatch(text)
	if m == nil {
		return types
	}
	exprs := splitTopLevel(m[1])
	if len(exprs) != len(types) {
		return types // a * or something the split got wrong: leave them
	}
	var cols map[string]string
	for i, e := range exprs {
		if types[i] != "" {
			continue
		}
		if cols == nil {
			cols = s.columnTypes(ctx, text)
		}
		types[i] = exprType(stripAlias(e), cols)
	}
	return types
}

func slicesContainsEmpty(types []string) bool {
	for _, t := range types {
		if t == "" {
			return true
		}
	}
	return false
}

// stripAlias drops "AS name" from a select-list expression.
func stripAlias(e string) string {
	e = strings.TrimSpace(e)
	if m := aliasTail.FindStringSubmatch(e); m != nil && m[1] != "" && balanced(m[1]) {
		return strings.TrimSpace(m[1])
	}
	return e
}

func balanced(s string) bool { return strings.Count(s, "(") == strings.Count(s, ")") }

// exprType is the type of a simple expression, "" when unsure.
func exprType(e string, cols map[string]string) string {
	switch {
	case intLiteral.MatchString(e):
		return "int8"
	case numLiteral.MatchString(e):
		return "float8"
	}
	if m := castTo.FindStringSubmatch(e); m != nil {
		return castTypes[strings.ToLower(m[1])]
	}
	m := callOf.FindStringSubmatch(e)
	if m == nil {
		return cols[columnKey(e)]
	}
	fn := strings.ToLower(m[1])
	if t, ok := functionTypes[fn]; ok {
		return t
	}
	switch fn {
	case "sum", "min", "max", "coalesce", "ifnull", "abs", "round":
		args := splitTopLevel(m[2])
		if t := exprType(strings.TrimSpace(args[0]), cols); t == "int8" || t == "float8" || t == "numeric" || fn != "sum" {
			return t
		}
	}
	return ""
}
