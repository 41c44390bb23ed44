package pgdialect

import (
	"strings"
)

// Schema is an optional interface of a Catalog: the CREATE TABLE text
// SQLite keeps for table (sqlite_schema.sql) and the CREATE INDEX texts
// of its named indexes, ordered by name. ALTER TABLE subcommands SQLite
// cannot make in place rebuild the table from them (alter.go).
type Schema interface {
	TableSQL(table string) (create string, indexes []string, ok bool)
}

// token is one top-level token of a CREATE TABLE element: a word, a
// quoted identifier, a string literal or a parenthesized group (with
// everything inside it); space says whether blanks preceded it.
type token struct {
	text  string
	space bool
}

// tokenize splits s into top-level tokens (fail closed: ok false on an
// unbalanced text).
func tokenize(s string) ([]token, bool) {
	var out []token
	for i := 0; i < len(s); {
		space := false
		for i < len(s) && strings.ContainsRune(" \t\r\n", rune(s[i])) {
			i, space = i+1, true
		}
		if i >= len(s) {
			break
		}
		j, ok := tokenEnd(s, i)
		if !ok {
			return nil, false
		}
		out = append(out, token{text: s[i:j], space: space})
		i = j
	}
	return out, true
}

// tokenEnd is the end of the token that starts at s[i].
func tokenEnd(s string, i int) (int, bool) {
	switch c := s[i]; {
	case c == '"' || c == '\'' || c == '`' || c == '[':
		closing := c
		if c == '[' {
			closing = ']'
		}
		for j := i + 1; j < len(s); j++ {
			if s[j] == closing {
				if j+1 < len(s) && s[j+1] == closing && c != '[' {
					j++
					continue
				}
				return j + 1, true
			}
		}
		return 0, false
	case c == '(':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					return j + 1, true
				}
			case '"', '\'', '`', '[':
				end, ok := tokenEnd(s, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			}
		}
		return 0, false
	case c == ',' || c == ')':
		return i + 1, true
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\r\n\"'`[(),", rune(s[j])) {
		j++
	}
	return j, true
}

// joinTokens writes tokens back, a blank where there was one.
func joinTokens(ts []token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 && t.space {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// element is one element of CREATE TABLE's list: a column definition
// (col is its name) or a table constraint (col "").
type element struct {
	col    string
	tokens []token
}

// parseCreate splits SQLite's CREATE TABLE text into its elements.
func parseCreate(create string) ([]element, bool) {
	all, ok := tokenize(create)
	if !ok || len(all) < 4 || !word(all[0], "CREATE") || !word(all[1], "TABLE") {
		return nil, false
	}
	list := all[len(all)-1].text // CREATE TABLE name (list): the last token
	if !strings.HasPrefix(list, "(") || strings.HasPrefix(all[len(all)-2].text, "(") {
		return nil, false
	}
	ts, ok := tokenize(list[1 : len(list)-1])
	if !ok {
		return nil, false
	}
	var out []element
	var cur []token
	flush := func() bool {
		if len(cur) == 0 {
			return false
		}
		e := element{tokens: cur}
		if !isConstraintStart(cur[0].text) {
			name, ok := unquote(cur[0].text)
			if !ok {
				return false
			}
			e.col = name
		}
		e.tokens[0].space = false
		out, cur = append(out, e), nil
		return true
	}
	for _, t := range ts {
		if t.text == "," {
			if !flush() {
				return nil, false
			}
			continue
		}
		cur = append(cur, t)
	}
	if !flush() {
		return nil, false
	}
	return out, true
}

func isConstraintStart(word string) bool {
	switch strings.ToUpper(word) {
	case "CONSTRAINT", "PRIMARY", "UNIQUE", "FOREIGN", "CHECK":
		return true
	}
	return false
}

// unquote reads a quoted identifier ("a""b", `a`, [a]) or a bare one.
func unquote(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	switch s[0] {
	case '"':
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`), true
	case '`':
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`"), true
	case '[':
		return s[1 : len(s)-1], true
	case '\'', '(':
		return "", false
	}
	return s, true
}

// word reports whether tok is the keyword w (case-insensitive).
func word(tok token, w string) bool { return strings.EqualFold(tok.text, w) }

// find is the index of the keyword sequence ws in ts, or -1.
func find(ts []token, ws ...string) int {
next:
	for i := 0; i+len(ws) <= len(ts); i++ {
		for k, w := range ws {
			if !word(ts[i+k], w) {
				continue next
			}
		}
		return i
	}
	return -1
}

// constraintNameOf is the name a constraint element or a column's
// constraint clause declares, or "".
func constraintNameOf(ts []token, at int) string {
	if at >= 2 && word(ts[at-2], "CONSTRAINT") {
		n, _ := unquote(ts[at-1].text)
		return n
	}
	return ""
}

// withoutNotNull removes a column's NOT NULL.
func withoutNotNull(ts []token) []token {
	if i := find(ts, "NOT", "NULL"); i >= 0 {
		return append(ts[:i:i], ts[i+2:]...)
	}
	return ts
}

// defaultAt is the index of a column's DEFAULT (its value is the next
// token, a parenthesized group), or -1. ON DELETE SET DEFAULT is not one.
func defaultAt(ts []token) int {
	for i := 0; i+1 < len(ts); i++ {
		if word(ts[i], "DEFAULT") && strings.HasPrefix(ts[i+1].text, "(") && !(i > 0 && word(ts[i-1], "SET")) {
			return i
		}
	}
	return -1
}

// withoutDefault removes a column's DEFAULT (...).
func withoutDefault(ts []token) []token {
	if i := defaultAt(ts); i >= 0 {
		return append(ts[:i:i], ts[i+2:]...)
	}
	return ts
}

// typeEnd is the index of the first token after a column's declared type
// and collation: its first constraint keyword.
func typeEnd(ts []token) int {
	for i := 1; i < len(ts); i++ {
		switch strings.ToUpper(ts[i].text) {
		case "CONSTRAINT", "DEFAULT", "PRIMARY", "UNIQUE", "REFERENCES", "NOT", "NULL", "CHECK", "GENERATED", "AS":
			return i
		}
	}
	return len(ts)
}

// mentions reports whether the tokens name column col anywhere (a key
// list, a CHECK expression, a REFERENCES list): conservative, it looks
// inside parenthesized groups for the quoted name.
func mentions(ts []token, col string) bool {
	q := quoteIdent(col)
	for _, t := range ts {
		if t.text == q || (strings.HasPrefix(t.text, "(") && strings.Contains(t.text, q)) {
			return true
		}
	}
	return false
}

// tokensOf tokenizes SQL the translator wrote (always balanced).
func tokensOf(s string) []token {
	ts, _ := tokenize(s)
	return ts
}
