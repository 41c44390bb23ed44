package gateway

import (
	"context"

	"github.com/relchain/relchain/dialect"
	"regexp"
	"strconv"
	"strings"
)

// dollarParam matches a $n placeholder.
var dollarParam = regexp.MustCompile(`\$([0-9]+)`)

// placeholders rewrites the $n placeholders PostgreSQL clients send into
// the backend's style, outside literals and comments. order lists, for
// positional placeholders, which parameter each ? takes (1-based); nil
// when the parameters keep their order.
func placeholders(sql, style string) (out string, order []int) {
	if style == dialect.PlaceholdersDollar || !strings.Contains(sql, "$") {
		return sql, nil
	}
	// Literals and comments are blanked at the same offsets, so a $n found
	// in the stripped text is a placeholder of sql.
	stripped := stripLiteralsKeepLength(sql)
	locs := dollarParam.FindAllStringSubmatchIndex(stripped, -1)
	var r strings.Builder
	last := 0
	for _, l := range locs {
		if l[0] > 0 && isWordByte(stripped[l[0]-1]) {
			continue // part of an identifier such as a$1
		}
		n, _ := strconv.Atoi(stripped[l[2]:l[3]])
		r.WriteString(sql[last:l[0]])
		if style == dialect.PlaceholdersNumbered {
			r.WriteString("?" + strconv.Itoa(n))
		} else {
			r.WriteString("?")
			order = append(order, n)
		}
		last = l[1]
	}
	r.WriteString(sql[last:])
	return r.String(), order
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// stripLiteralsKeepLength blanks literals and comments with spaces of the
// same length, so offsets stay valid.
func stripLiteralsKeepLength(sql string) string {
	b := []byte(sql)
	scanTokens(sql, false, func(i, j int, class tokenClass) {
		if class != tokPlain {
			for k := i; k < j; k++ {
				b[k] = ' '
			}
		}
	})
	return string(b)
}

// Patterns that tie a $n to a column: assignment, comparison and
// arithmetic (bal - $1 takes bal's type), both ways round, IN lists, INSERT … VALUES, LIMIT and OFFSET.
var (
	tableRef     = regexp.MustCompile(`(?i)\b(?:FROM|JOIN|UPDATE|INTO)\s+([A-Za-z_][\w.]*)`)
	colThenParam = regexp.MustCompile(`(?i)([A-Za-z_][\w.]*)\s*(?:=|<>|!=|<=|>=|<|>|\+|-|\*|/|%|\bLIKE\b|\bIS\s+NOT\s+DISTINCT\s+FROM\b)\s*\$([0-9]+)`)
	paramThenCol = regexp.MustCompile(`\$([0-9]+)\s*(?:=|<>|!=|<=|>=|<|>|\+|-|\*|/|%)\s*([A-Za-z_][\w.]*)`)
	inList       = regexp.MustCompile(`(?i)([A-Za-z_][\w.]*)\s+(?:NOT\s+)?IN\s*\(([^()]*)\)`)
	limitParam   = regexp.MustCompile(`(?i)\b(?:LIMIT|OFFSET)\s+\$([0-9]+)`)
	insertCols   = regexp.MustCompile(`(?is)\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+([A-Za-z_][\w.]*)\s*\(([^()]*)\)\s*VALUES\s*(.*)`)
)

// inferParams fills the types the node could not tell (SQLite and MySQL
// cannot type a parameter before running) from the columns the
// parameters are compared with, assigned to or inserted into. What it
// cannot tie to a column stays "" (the client then sends text).
func (s *session) inferParams(ctx context.Context, sql string, types []string) []string {
	unknown := false
	for _, t := range types {
		unknown = unknown || t == ""
	}
	if !unknown {
		return types
	}
	text := stripLiteralsKeepLength(sql)
	cols := s.columnTypes(ctx, text)
	set := func(n int, typ string) {
		if n >= 1 && n <= len(types) && types[n-1] == "" && typ != "" {
			types[n-1] = typ
		}
	}
	for _, m := range colThenParam.FindAllStringSubmatch(text, -1) {
		set(atoi(m[2]), cols[columnKey(m[1])])
	}
	for _, m := range paramThenCol.FindAllStringSubmatch(text, -1) {
		set(atoi(m[1]), cols[columnKey(m[2])])
	}
	for _, m := range inList.FindAllStringSubmatch(text, -1) {
		for _, p := range dollarParam.FindAllStringSubmatch(m[2], -1) {
			set(atoi(p[1]), cols[columnKey(m[1])])
		}
	}
	for _, m := range limitParam.FindAllStringSubmatch(text, -1) {
		set(atoi(m[1]), "int8")
	}
	if m := insertCols.FindStringSubmatch(text); m != nil {
		inferInsert(m[2], m[3], cols, set)
	}
	return types
}

// inferInsert ties each VALUES tuple's bare $n to its column.
func inferInsert(colList, values string, cols map[string]string, set func(int, string)) {
	names := strings.Split(colList, ",")
	for _, tuple := range tuples(values) {
		for k, v := range splitTopLevel(tuple) {
			v = strings.TrimSpace(v)
			if k < len(names) && dollarParam.MatchString(v) && v[0] == '$' && len(dollarParam.FindString(v)) == len(v) {
				set(atoi(v[1:]), cols[columnKey(names[k])])
			}
		}
	}
}

// tuples returns the contents of the top-level parenthesised groups of s.
func tuples(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			if depth == 0 {
				start = i + 1
			}
			depth++
		case ')':
			depth--
			if depth == 0 {
				out = append(out, s[start:i])
			}
		}
	}
	return out
}

// splitTopLevel splits s at commas outside parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(s, "$"))
	return n
}

// columnKey is a column reference's name: its last part, lower case,
// unquoted.
func columnKey(ref string) string {
	ref = strings.TrimSpace(ref)
	if i := strings.LastIndexByte(ref, '.'); i >= 0 {
		ref = ref[i+1:]
	}
	return strings.ToLower(strings.Trim(ref, "\"`[]"))
}

// columnTypes are the column types of the tables sql names, by column
// name; a name two tables share with different types maps to "".
func (s *session) columnTypes(ctx context.Context, sql string) map[string]string {
	cols := map[string]string{}
	for _, m := range tableRef.FindAllStringSubmatch(sql, -1) {
		for name, typ := range s.tableColumns(ctx, m[1]) {
			if old, seen := cols[name]; seen && old != typ {
				typ = ""
			}
			cols[name] = typ
		}
	}
	return cols
}

// tableColumns describes SELECT * FROM table (cached for the session).
func (s *session) tableColumns(ctx context.Context, table string) map[string]string {
	if cols, ok := s.tables[table]; ok {
		return cols
	}
	cols := map[string]string{}
	if resp, err := s.g.nodes.Describe(ctx, "SELECT * FROM "+table); err == nil {
		for _, c := range resp.Columns {
			cols[strings.ToLower(c.Name)] = c.Type
		}
	}
	if len(s.tables) >= maxDescribed {
		clear(s.tables)
	}
	s.tables[table] = cols
	return cols
}
