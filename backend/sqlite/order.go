package sqlite

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Order-sensitive forms.
//
// SQLite returns rows in the order of the table or index a plan scans:
// deterministic for one database file, but VACUUM (which may renumber the
// rowids of tables without an INTEGER PRIMARY KEY), a node-local ANALYZE
// (which changes the planner's index choice) or a plan change of another
// SQLite build change it. A result that depends on that order must not
// reach a block's outcome, so the gate refuses, in every client statement
// of a block (and at CheckTx), view and trigger body:
//
//   - LIMIT (with or without OFFSET) in a query level that has no ORDER BY
//     of its own (the same parenthesis level; a compound's ORDER BY counts
//     for the compound). An ORDER BY whose keys are not unique still leaves
//     ties in scan order: a documented residual risk, as on every backend.
//   - group_concat, string_agg, json_group_array, json_group_object and
//     their jsonb forms without an ORDER BY inside the call, unless used as
//     a window function whose OVER (...) has an ORDER BY.
//   - row_number, ntile, lag, lead, first_value, last_value and nth_value
//     whose OVER (...) has no ORDER BY (OVER a named window is refused:
//     write the window inline).
//   - a window frame (ROWS or GROUPS with PRECEDING, FOLLOWING or CURRENT
//     ROW) in a window definition without ORDER BY, for any function.
//   - UPDATE ... FROM a table, a subquery or a join (when several rows
//     match a target row, SQLite uses one, by scan order); FROM (VALUES
//     ...) alone is allowed: its rows are the statement's, in its order.
//
// (The rowid of a table without INTEGER PRIMARY KEY is refused by the
// authorizer, gate.go; sum, total and avg are made exact, aggregates.go.)
//
// The check reads the statement's tokens (SQLite's own lexical rules for
// strings, quoted identifiers, blobs and comments); LIMIT and ORDER are
// reserved words in SQLite, so a bare LIMIT or ORDER token is the clause.

// orderedAggregates need an ORDER BY inside the call or in their OVER.
var orderedAggregates = setOf("group_concat", "string_agg", "json_group_array", "jsonb_group_array",
	"json_group_object", "jsonb_group_object")

// orderedWindows need an ORDER BY in their OVER clause.
var orderedWindows = setOf("row_number", "ntile", "lag", "lead", "first_value", "last_value", "nth_value")

type sqlToken struct {
	text string // lower case for words; unquoted for quoted identifiers
	word bool   // a bare word (keyword or identifier)
	name bool   // a word or a quoted identifier (a possible function name)
}

// tokenize splits sql into tokens, dropping blanks, comments and literals
// (strings and blobs become a single "'" token).
func tokenize(sql string) []sqlToken {
	var out []sqlToken
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case c == '\'':
			i = skipQuoted(sql, i, '\'')
			out = append(out, sqlToken{text: "'"})
		case c == '"' || c == '`':
			j := skipQuoted(sql, i, c)
			inner := sql[i+1 : max(j-1, i+1)]
			out = append(out, sqlToken{text: asciiLower([]byte(strings.ReplaceAll(inner, string(c)+string(c), string(c)))), name: true})
			i = j
		case c == '[':
			j := strings.IndexByte(sql[i:], ']')
			if j < 0 {
				return out
			}
			out = append(out, sqlToken{text: asciiLower([]byte(sql[i+1 : i+j])), name: true})
			i += j + 1
		case isWordByte(c):
			j := i
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			out = append(out, sqlToken{text: asciiLower([]byte(sql[i:j])), word: true, name: true})
			i = j
		default:
			out = append(out, sqlToken{text: sql[i : i+1]})
			i++
		}
	}
	return out
}

// skipQuoted returns the index after the quoted token starting at i (a
// doubled quote is part of it).
func skipQuoted(sql string, i int, q byte) int {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('0' <= c && c <= '9') || ('a' <= c|0x20 && c|0x20 <= 'z')
}

// orderLevel is one parenthesis level of the statement.
type orderLevel struct {
	update int    // top level: 1 after UPDATE, 2 after its SET, 3 in FROM (VALUES ...), 4 after
	order  bool   // an ORDER BY at this level
	limit  bool   // a LIMIT at this level
	fn     string // the order-sensitive function whose arguments this level holds
	over   string // the function whose OVER (...) this level is
	frame  bool   // a window frame (... PRECEDING, FOLLOWING, CURRENT ROW)
}

// orderRefusal returns why sql's result would depend on row order, or "".
func orderRefusal(sql string) string { return orderRefusalOf(tokenize(sql)) }

// orderRefusalOf is orderRefusal on the statement's tokens.
func orderRefusalOf(toks []sqlToken) string {
	stack := []orderLevel{{}}
	for i := 0; i < len(toks); i++ {
		t, top := toks[i], &stack[len(stack)-1]
		switch {
		case t.word && t.text == "order":
			top.order = true
		case t.word && t.text == "limit":
			top.limit = true
		case t.word && t.text == "update" && len(stack) == 1:
			top.update = 1
		case t.word && t.text == "set" && top.update == 1:
			top.update = 2
		case t.word && t.text == "from" && top.update == 2:
			// Only a VALUES list (rows written in the statement, in its
			// order) may be the FROM clause, alone.
			if i+2 >= len(toks) || toks[i+1].text != "(" || !toks[i+2].word || toks[i+2].text != "values" {
				return updateFromMessage
			}
			top.update = 3
		case top.update == 3 && len(stack) == 1 && (t.text == "," || (t.word && t.text == "join")):
			return updateFromMessage
		case t.word && t.text == "where" && top.update == 3:
			top.update = 4
		case t.word && (t.text == "preceding" || t.text == "following" || (t.text == "current" && i+1 < len(toks) && toks[i+1].text == "row")):
			top.frame = true
		case t.text == ";" && len(stack) == 1:
			if top.limit && !top.order {
				return limitMessage
			}
			stack[0] = orderLevel{}
		case t.text == "(":
			lv := orderLevel{}
			if i > 0 && toks[i-1].name && (orderedAggregates[toks[i-1].text] || orderedWindows[toks[i-1].text]) {
				lv.fn = toks[i-1].text
			}
			if i > 1 && toks[i-1].word && toks[i-1].text == "over" && toks[i-2].text == ")" {
				lv.over = overOf(toks, i-2)
			}
			stack = append(stack, lv)
		case t.text == ")" && len(stack) > 1:
			if why := closeLevel(stack[len(stack)-1], toks, i); why != "" {
				return why
			}
			stack = stack[:len(stack)-1]
		}
	}
	if top := stack[0]; top.limit && !top.order {
		return limitMessage
	}
	return ""
}

const updateFromMessage = "UPDATE ... FROM a table, subquery or join: when several of its rows match a row, which one SQLite uses depends on the physical row order; set the column from a subquery instead, SET col = (SELECT ... WHERE ... ORDER BY a unique key LIMIT 1), or update FROM (VALUES ...) alone"

const limitMessage = "LIMIT without ORDER BY at the same query level: which rows it keeps would depend on the physical row order; add an ORDER BY on a unique key"

// overOf returns the order-sensitive function whose call ends at the ")"
// at index end, when that call is followed by OVER, else "".
func overOf(toks []sqlToken, end int) string {
	depth := 0
	for j := end; j >= 0; j-- {
		switch toks[j].text {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				if j > 0 && toks[j-1].name && (orderedAggregates[toks[j-1].text] || orderedWindows[toks[j-1].text]) {
					return toks[j-1].text
				}
				// FILTER (WHERE ...) OVER (...): the call is before FILTER.
				if j > 1 && toks[j-1].word && toks[j-1].text == "filter" && toks[j-2].text == ")" {
					return overOf(toks, j-2)
				}
				return ""
			}
		}
	}
	return ""
}

// closeLevel judges a level ending at the ")" at index end.
func closeLevel(lv orderLevel, toks []sqlToken, end int) string {
	if lv.limit && !lv.order {
		return limitMessage
	}
	if lv.frame && !lv.order {
		return "a window frame (ROWS/GROUPS ... PRECEDING/FOLLOWING/CURRENT ROW) without ORDER BY: which rows it holds would depend on the physical row order; add ORDER BY a unique key to the window"
	}
	if lv.over != "" && !lv.order {
		return fmt.Sprintf("%s() without ORDER BY in its OVER clause: its result would depend on the physical row order; write OVER (... ORDER BY a unique key)", lv.over)
	}
	if lv.fn == "" || (lv.order && orderedAggregates[lv.fn]) {
		return ""
	}
	// No ORDER BY inside the call: it must be a window function with
	// OVER (...), judged when that closes.
	next := end + 1
	if next+1 < len(toks) && toks[next].word && toks[next].text == "filter" && toks[next+1].text == "(" {
		next = skipParens(toks, next+1)
	}
	if next < len(toks) && toks[next].word && toks[next].text == "over" {
		if next+1 < len(toks) && toks[next+1].text == "(" {
			return ""
		}
		return fmt.Sprintf("%s() over a named window: write the window inline, OVER (... ORDER BY a unique key)", lv.fn)
	}
	if orderedWindows[lv.fn] {
		return "" // not followed by OVER: SQLite itself refuses it
	}
	return fmt.Sprintf("%s() without ORDER BY: its result would depend on the physical row order; write %s(... ORDER BY a unique key)", lv.fn, lv.fn)
}

// skipParens returns the index after the parenthesized group opening at i.
func skipParens(toks []sqlToken, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(toks)
}

// topLevelOrder reports whether sql (one statement) has an ORDER BY outside
// any parentheses: a SELECT's rows then come in that order.
func topLevelOrder(sql string) bool {
	depth, order := 0, false
	for _, t := range tokenize(sql) {
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		case t.word && t.text == "order" && depth == 0:
			order = true
		}
	}
	return order
}

// sortRows puts rows in a canonical order: by their values, column by
// column (NULL, then integers, reals, texts, BLOBs; each in its natural
// order). Block statements whose row order SQLite does not define (no
// top-level ORDER BY, RETURNING) return their rows so: the rows are part of
// the tx result, and the scan order is not replicated state.
func sortRows(rows [][]any) {
	if len(rows) > 1 {
		slices.SortStableFunc(rows, compareRows)
	}
}

func compareRows(a, b []any) int {
	for i := range min(len(a), len(b)) {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareValues(a, b any) int {
	if c := cmp.Compare(valueRank(a), valueRank(b)); c != 0 {
		return c
	}
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		y := b.(float64)
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
		return cmp.Compare(math.Float64bits(x), math.Float64bits(y)) // -0 and 0
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	return 0
}

func valueRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case int64:
		return 1
	case float64:
		return 2
	case string:
		return 3
	case []byte:
		return 4
	}
	return 5
}
