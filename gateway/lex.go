package gateway

import "strings"

// tokenClass is what scanTokens found at a position.
type tokenClass int

const (
	tokPlain   tokenClass = iota // one byte of ordinary SQL
	tokLiteral                   // a closed '…', "…", `…` or $tag$…$tag$
	tokComment                   // -- … or /* … */
	tokOpen                      // a quote or comment left open at the end
)

// scanTokens walks sql once and reports each token as [i, j) with its
// class. It knows just enough SQL to find statement boundaries: quotes
// with doubled-quote escapes, backslash escapes in E” strings, nested
// block comments and dollar quotes.
func scanTokens(sql string, dollarQuotes bool, fn func(i, j int, class tokenClass)) {
	for i := 0; i < len(sql); {
		j, class := nextToken(sql, i, dollarQuotes)
		fn(i, j, class)
		i = j
	}
}

// nextToken returns the end of the token starting at i and its class.
func nextToken(sql string, i int, dollarQuotes bool) (int, tokenClass) {
	c := sql[i]
	switch {
	case c == '\'' || c == '"' || c == '`':
		backslash := c == '\'' && i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e')
		return closeQuote(sql, i, c, backslash)
	case c == '-' && strings.HasPrefix(sql[i:], "--"):
		if k := strings.IndexByte(sql[i:], '\n'); k >= 0 {
			return i + k + 1, tokComment
		}
		return len(sql), tokComment
	case c == '/' && strings.HasPrefix(sql[i:], "/*"):
		return closeBlockComment(sql, i)
	case c == '$' && dollarQuotes:
		if tag, ok := dollarTag(sql[i:]); ok {
			k := strings.Index(sql[i+len(tag):], tag)
			if k < 0 {
				return len(sql), tokOpen
			}
			return i + len(tag) + k + len(tag), tokLiteral
		}
	}
	return i + 1, tokPlain
}

// closeQuote finds the end of a quoted token opened by q at i.
func closeQuote(sql string, i int, q byte, backslash bool) (int, tokenClass) {
	for k := i + 1; k < len(sql); k++ {
		switch {
		case backslash && sql[k] == '\\':
			k++
		case sql[k] == q && k+1 < len(sql) && sql[k+1] == q:
			k++
		case sql[k] == q:
			return k + 1, tokLiteral
		}
	}
	return len(sql), tokOpen
}

// closeBlockComment finds the end of a (nested) /* */ comment at i.
func closeBlockComment(sql string, i int) (int, tokenClass) {
	depth := 0
	for k := i; k < len(sql)-1; k++ {
		switch {
		case sql[k] == '/' && sql[k+1] == '*':
			depth++
			k++
		case sql[k] == '*' && sql[k+1] == '/':
			depth--
			k++
			if depth == 0 {
				return k + 1, tokComment
			}
		}
	}
	return len(sql), tokOpen
}

// dollarTag returns the $tag$ opening s, if s starts with one.
func dollarTag(s string) (string, bool) {
	for k := 1; k < len(s); k++ {
		c := s[k]
		switch {
		case c == '$':
			return s[:k+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (k > 1 && c >= '0' && c <= '9') || c >= 0x80:
		default:
			return "", false
		}
	}
	return "", false
}
