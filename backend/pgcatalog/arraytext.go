package pgcatalog

import (
	"regexp"
	"strconv"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// regexpEntry is a compiled pattern or its error.
type regexpEntry struct {
	re  *regexp.Regexp
	err error
}

// arrayIn parses PostgreSQL's array text ('{a,"b c",NULL,{1,2}}') into
// a JSON array: quoted elements are strings, unquoted ones numbers when
// they read as integers, else strings; NULL is null.
func arrayIn(s string) (any, error) {
	p := &arrayParser{s: strings.TrimSpace(s)}
	v, err := p.array()
	if err != nil || strings.TrimSpace(p.s[p.i:]) != "" {
		return nil, pgError("22P02", "malformed array literal: %q", s)
	}
	return encodeArray(v), nil
}

type arrayParser struct {
	s string
	i int
}

func (p *arrayParser) array() ([]any, error) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, errMalformed
	}
	p.i++
	out := []any{}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, nil
	}
	for {
		v, err := p.element()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, errMalformed
		}
		c := p.s[p.i]
		p.i++
		if c == '}' {
			return out, nil
		}
		if c != ',' {
			return nil, errMalformed
		}
	}
}

var errMalformed = pgError("22P02", "malformed array literal")

func (p *arrayParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

// element is one element: a nested array, a quoted string or a bare word.
func (p *arrayParser) element() (any, error) {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '{' {
		return p.array()
	}
	if p.i < len(p.s) && p.s[p.i] == '"' {
		return p.quoted()
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(",}", rune(p.s[p.i])) {
		p.i++
	}
	word := strings.TrimSpace(p.s[start:p.i])
	if word == "" {
		return nil, errMalformed
	}
	if strings.EqualFold(word, "NULL") {
		return nil, nil
	}
	if n, err := strconv.ParseInt(word, 10, 64); err == nil {
		return n, nil
	}
	return word, nil
}

func (p *arrayParser) quoted() (any, error) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; c {
		case '\\':
			p.i++
			if p.i < len(p.s) {
				b.WriteByte(p.s[p.i])
			}
		case '"':
			p.i++
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return nil, errMalformed
}

// arrayOutFunc is pgcat_array_out(json, elemtype): PostgreSQL's array
// text, elements quoted as PostgreSQL quotes them, booleans t/f.
func arrayOutFunc(a []sqlite3.Value) (any, error) {
	if a[0].Type() == sqlite3.NULL {
		return nil, nil
	}
	arr, err := decodeArray(a[0].Text())
	if err != nil {
		return nil, err
	}
	return arrayOut(arr, a[1].Text() == "bool"), nil
}

func arrayOut(arr []any, isBool bool) string {
	parts := make([]string, len(arr))
	for i, e := range arr {
		parts[i] = arrayElemOut(e, isBool)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func arrayElemOut(e any, isBool bool) string {
	switch x := e.(type) {
	case nil:
		return "NULL"
	case []any:
		return arrayOut(x, isBool)
	}
	s := elemText(e)
	if isBool {
		switch s {
		case "1", "true", "t":
			return "t"
		case "0", "false", "f":
			return "f"
		}
	}
	if s == "" || strings.EqualFold(s, "NULL") || strings.ContainsAny(s, "{},\"\\ \t\n\r\v\f") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	return s
}
