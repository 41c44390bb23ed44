package pgcatalog

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// textFuncs are the string functions with PostgreSQL's semantics.
func textFuncs() []scalar {
	return []scalar{
		{"substring", -1, strict(substring)}, {"substr", -1, strict(substring)},
		{"char_length", 1, strict(func(a []sqlite3.Value) (any, error) { return utf8.RuneCountInString(a[0].Text()), nil })},
		{"left", 2, strict(leftRight(true))}, {"right", 2, strict(leftRight(false))},
		{"position", 2, strict(func(a []sqlite3.Value) (any, error) { return strpos(a[1].Text(), a[0].Text()), nil })},
		{"strpos", 2, strict(func(a []sqlite3.Value) (any, error) { return strpos(a[0].Text(), a[1].Text()), nil })},
		{"btrim", -1, strict(btrim)},
		{"split_part", 3, strict(splitPart)},
		{"regexp_replace", -1, strict(regexpReplace)},
		{"translate", 3, strict(translate)},
		{"starts_with", 2, strict(func(a []sqlite3.Value) (any, error) { return strings.HasPrefix(a[0].Text(), a[1].Text()), nil })},
		{"quote_ident", 1, strict(func(a []sqlite3.Value) (any, error) { return quoteIdent(a[0].Text()), nil })},
		{"quote_literal", 1, strict(func(a []sqlite3.Value) (any, error) { return quoteLiteral(a[0].Text()), nil })},
		{"greatest", -1, extreme(1)}, {"least", -1, extreme(-1)},
	}
}

// substring is substring(s, from[, for]) with PostgreSQL's 1-based,
// clipped semantics (a negative length is an error).
func substring(a []sqlite3.Value) (any, error) {
	r := []rune(a[0].Text())
	from := a[1].Int64()
	end := int64(len(r)) + 1
	if len(a) > 2 {
		n := a[2].Int64()
		if n < 0 {
			return nil, pgError("22011", "negative substring length not allowed")
		}
		end = min(end, from+n)
	}
	from = max(from, 1)
	if from >= end {
		return "", nil
	}
	return string(r[from-1 : end-1]), nil
}

// leftRight is left(s, n) (or right): n < 0 drops |n| characters from
// the other end.
func leftRight(left bool) goFunc {
	return func(a []sqlite3.Value) (any, error) {
		r, n := []rune(a[0].Text()), int(a[1].Int64())
		if n < 0 {
			n = max(len(r)+n, 0)
		}
		n = min(n, len(r))
		if left {
			return string(r[:n]), nil
		}
		return string(r[len(r)-n:]), nil
	}
}

// strpos is the 1-based character position of sub in s, 0 when absent.
func strpos(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return 0
	}
	return utf8.RuneCountInString(s[:i]) + 1
}

// btrim is btrim(s[, characters]) (spaces by default).
func btrim(a []sqlite3.Value) (any, error) {
	chars := " "
	if len(a) > 1 {
		chars = a[1].Text()
	}
	return strings.Trim(a[0].Text(), chars), nil
}

// splitPart is split_part(s, delimiter, n): n < 0 counts from the end.
func splitPart(a []sqlite3.Value) (any, error) {
	s, d, n := a[0].Text(), a[1].Text(), int(a[2].Int64())
	if n == 0 {
		return nil, pgError("22023", "field position must not be zero")
	}
	parts := []string{s}
	if d != "" {
		parts = strings.Split(s, d)
	}
	if s == "" {
		parts = nil
	}
	if n < 0 {
		n = len(parts) + n + 1
	}
	if n < 1 || n > len(parts) {
		return "", nil
	}
	return parts[n-1], nil
}

// regexpReplace is regexp_replace(s, pattern, replacement[, flags]):
// the first match replaced, every match with flag g; \1 … refer to
// groups, & to the match.
func regexpReplace(a []sqlite3.Value) (any, error) {
	flags := ""
	if len(a) > 3 {
		flags = a[3].Text()
	}
	re, err := compileRegex(a[1].Text(), strings.Contains(flags, "i"))
	if err != nil {
		return nil, err
	}
	repl := goReplacement(a[2].Text())
	s := a[0].Text()
	if strings.Contains(flags, "g") {
		return re.ReplaceAllString(s, repl), nil
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return s, nil
	}
	return s[:loc[0]] + string(re.ExpandString(nil, repl, s, loc)) + s[loc[1]:], nil
}

// goReplacement turns PostgreSQL's replacement text (\1, \&, &) into
// Go's template (${1}, ${0}), escaping Go's $.
func goReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '$':
			b.WriteString("$$")
		case c == '&':
			b.WriteString("${0}")
		case c == '\\' && i+1 < len(r):
			i++
			if d := r[i]; d >= '0' && d <= '9' {
				b.WriteString("${" + strconv.Itoa(int(d-'0')) + "}")
			} else if d == '&' {
				b.WriteString("${0}")
			} else {
				b.WriteByte(d)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// translate is translate(s, from, to).
func translate(a []sqlite3.Value) (any, error) {
	from, to := []rune(a[1].Text()), []rune(a[2].Text())
	var b strings.Builder
	for _, r := range a[0].Text() {
		i := strings.IndexRune(string(from), r)
		switch {
		case i < 0:
			b.WriteRune(r)
		case utf8.RuneCountInString(string(from)[:i]) < len(to):
			b.WriteRune(to[utf8.RuneCountInString(string(from)[:i])])
		}
	}
	return b.String(), nil
}

// extreme is greatest (sign 1) or least (-1): NULLs skipped, NULL when
// all are; numbers compared as numbers, else as text.
func extreme(sign int) goFunc {
	return func(a []sqlite3.Value) (any, error) {
		var best any
		for _, v := range a {
			x := value(v)
			if x != nil && (best == nil || compare(x, best)*sign > 0) {
				best = x
			}
		}
		return best, nil
	}
}

// compare orders two non-NULL values: numerically when both are
// numbers, else by their text.
func compare(a, b any) int {
	fa, aNum := number(a)
	fb, bNum := number(b)
	if aNum && bNum {
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(text(a), text(b))
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// text is a value's text.
func text(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case bool:
		if x {
			return "t"
		}
		return "f"
	}
	return ""
}

// compileRegex compiles a PostgreSQL (ARE) pattern as Go's regexp:
// PostgreSQL's class shorthands and word boundaries are translated; a
// pattern Go cannot compile is 2201B naming it.
func compileRegex(pattern string, fold bool) (*regexp.Regexp, error) {
	p := strings.NewReplacer(`\m`, `\b`, `\M`, `\b`, `\y`, `\b`, `[[:<:]]`, `\b`, `[[:>:]]`, `\b`).Replace(pattern)
	if fold {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, pgError("2201B", "invalid regular expression: %s (pattern %q)", err, pattern)
	}
	return re, nil
}
