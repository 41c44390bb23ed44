package pgconv

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONKind is the kind of a JSON value, named as jsonb_typeof names it.
type JSONKind uint8

const (
	JSONNull JSONKind = iota
	JSONBool
	JSONNumber
	JSONString
	JSONArray
	JSONObject
)

var jsonKindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String is jsonb_typeof's name of k.
func (k JSONKind) String() string { return jsonKindNames[k] }

// JSON is a parsed json or jsonb value. Raw is the value's own text as
// written (json's -> returns it verbatim). An object's Keys and Vals are
// in the written order for json, and for jsonb sorted as jsonb keeps them
// (shorter keys first, then bytewise) with the last of duplicate keys kept.
type JSON struct {
	Kind  JSONKind
	Raw   string
	Bool  bool
	Str   string  // a string's value; a number's text as written
	Num   Numeric // a number's value
	Elems []*JSON // an array's elements
	Keys  []string
	Vals  []*JSON
	// escErr is the error PostgreSQL raises when it unescapes this json
	// string (->>): \u0000 (22P05) or a lone surrogate (22P02), which
	// json_in accepts since it only checks the syntax.
	escErr *Error
}

func invalidJSON() *Error { return errorf("22P02", "invalid input syntax for type json") }

func nulEscape() *Error {
	return errorf("22P05", "unsupported Unicode escape sequence")
}

// ParseJSON is json_in (jsonb false: the syntax checked, the text kept)
// or jsonb_in (jsonb true: \u0000 refused with 22P05, numbers read as
// numeric, objects sorted and deduplicated).
func ParseJSON(s string, jsonb bool) (*JSON, error) {
	return parseJSON(s, jsonb, jsonb)
}

// parseJSON is ParseJSON; unescape raises the errors of unescaping
// strings (\u0000, lone surrogates) now, as jsonb_in and json's
// operators (which unescape the whole value) do.
func parseJSON(s string, jsonb, unescape bool) (*JSON, error) {
	p := jsonParser{s: s, jsonb: jsonb, unescape: unescape}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(s) {
		return nil, invalidJSON()
	}
	return v, nil
}

type jsonParser struct {
	s        string
	i        int
	jsonb    bool
	unescape bool
}

// jsonMaxDepth bounds nesting. PostgreSQL's own limit is its stack
// (max_stack_depth, a server setting), so deeper values are refused
// rather than given an error PostgreSQL may not raise.
const jsonMaxDepth = 1000

func (p *jsonParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *jsonParser) value(depth int) (*JSON, error) {
	if depth > jsonMaxDepth {
		return nil, Unsupported("json nested deeper than 1000 levels")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, invalidJSON()
	}
	start := p.i
	v, err := p.token(depth)
	if err != nil {
		return nil, err
	}
	v.Raw = p.s[start:p.i]
	return v, nil
}

func (p *jsonParser) token(depth int) (*JSON, error) {
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, escErr, err := p.str()
		return &JSON{Kind: JSONString, Str: s, escErr: escErr}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	for _, w := range []struct {
		word string
		v    JSON
	}{{"true", JSON{Kind: JSONBool, Bool: true}}, {"false", JSON{Kind: JSONBool}}, {"null", JSON{Kind: JSONNull}}} {
		if strings.HasPrefix(p.s[p.i:], w.word) && !p.identAt(p.i+len(w.word)) {
			p.i += len(w.word)
			v := w.v
			return &v, nil
		}
	}
	return nil, invalidJSON()
}

// identAt reports whether an identifier character follows a token (PostgreSQL's
// lexer reads "truex" and "1a" as one invalid token).
func (p *jsonParser) identAt(i int) bool {
	if i >= len(p.s) {
		return false
	}
	c := p.s[i]
	return c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func (p *jsonParser) number() (*JSON, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	if n := digits(); n == 0 || (n > 1 && p.s[intStart] == '0') {
		return nil, invalidJSON()
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, invalidJSON()
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, invalidJSON()
		}
	}
	if p.identAt(p.i) || (p.i < len(p.s) && p.s[p.i] == '.') {
		return nil, invalidJSON()
	}
	v := &JSON{Kind: JSONNumber, Str: p.s[start:p.i]}
	if p.jsonb {
		n, err := ParseNumeric(v.Str)
		if err != nil {
			return nil, err
		}
		v.Num = n
	}
	return v, nil
}

// str reads a string token: its value, and for json the error
// unescaping it raises (jsonb raises it now).
func (p *jsonParser) str() (string, *Error, error) {
	p.i++ // the opening quote
	var b strings.Builder
	var escErr *Error
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), escErr, nil
		case c < 0x20:
			return "", nil, invalidJSON()
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			return "", nil, invalidJSON()
		}
		e := p.s[p.i+1]
		p.i += 2
		if r, ok := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[e]; ok {
			b.WriteByte(r)
			continue
		}
		if e != 'u' {
			return "", nil, invalidJSON()
		}
		r, bad, err := p.unicodeEscape()
		if err == nil && r == 0 {
			bad = nulEscape()
		}
		switch {
		case err != nil:
			return "", nil, err
		case bad != nil && p.unescape:
			return "", nil, bad
		case bad != nil && escErr == nil:
			escErr = bad
		}
		b.WriteRune(r)
	}
	return "", nil, invalidJSON()
}

// unicodeEscape reads the hex digits of \uXXXX (the \u read), and the
// low surrogate's escape after a high surrogate: the rune, the error
// unescaping raises (a lone surrogate), or a syntax error.
func (p *jsonParser) unicodeEscape() (rune, *Error, error) {
	hex4 := func() (rune, bool) {
		if p.i+4 > len(p.s) {
			return 0, false
		}
		v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
		if err != nil || strings.ContainsAny(p.s[p.i:p.i+4], "+-") {
			return 0, false
		}
		p.i += 4
		return rune(v), true
	}
	r, ok := hex4()
	switch {
	case !ok:
		return 0, nil, invalidJSON()
	case r >= 0xDC00 && r <= 0xDFFF:
		return utf8.RuneError, invalidJSON(), nil // a low surrogate must follow a high one
	case r < 0xD800 || r > 0xDBFF:
		return r, nil, nil
	}
	if !strings.HasPrefix(p.s[p.i:], `\u`) {
		return utf8.RuneError, invalidJSON(), nil
	}
	save := p.i
	p.i += 2
	lo, ok := hex4()
	switch {
	case !ok:
		return 0, nil, invalidJSON()
	case lo < 0xDC00 || lo > 0xDFFF:
		p.i = save // the next escape is read on its own
		return utf8.RuneError, invalidJSON(), nil
	}
	return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), nil, nil
}

func (p *jsonParser) array(depth int) (*JSON, error) {
	p.i++
	v := &JSON{Kind: JSONArray, Elems: []*JSON{}}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, e)
		p.space()
		if p.i >= len(p.s) {
			return nil, invalidJSON()
		}
		p.i++
		switch p.s[p.i-1] {
		case ']':
			return v, nil
		case ',':
			continue
		}
		return nil, invalidJSON()
	}
}

func (p *jsonParser) object(depth int) (*JSON, error) {
	p.i++
	v := &JSON{Kind: JSONObject, Keys: []string{}, Vals: []*JSON{}}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, invalidJSON()
		}
		k, _, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, invalidJSON()
		}
		p.i++
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Keys, v.Vals = append(v.Keys, k), append(v.Vals, e)
		p.space()
		if p.i >= len(p.s) {
			return nil, invalidJSON()
		}
		p.i++
		switch p.s[p.i-1] {
		case '}':
			if p.jsonb {
				v.sortKeys()
			}
			return v, nil
		case ',':
			continue
		}
		return nil, invalidJSON()
	}
}

// sortKeys orders an object's pairs as jsonb does (uniqueifyJsonbObject):
// shorter keys first, equal lengths bytewise, the last of equal keys kept.
func (v *JSON) sortKeys() {
	idx := make([]int, len(v.Keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return jsonKeyLess(v.Keys[idx[a]], v.Keys[idx[b]]) })
	keys, vals := []string{}, []*JSON{}
	for n, i := range idx {
		if n+1 < len(idx) && v.Keys[idx[n+1]] == v.Keys[i] {
			continue // a later pair with the same key wins
		}
		keys, vals = append(keys, v.Keys[i]), append(vals, v.Vals[i])
	}
	v.Keys, v.Vals = keys, vals
}

func jsonKeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// JSONBText is jsonb_out's text of a jsonb value: `{"a": 1, "b": [1, 2]}`.
func (v *JSON) JSONBText() string {
	var b strings.Builder
	v.writeJSONB(&b, false)
	return b.String()
}

// writeJSONB writes jsonb_out's text, or with key true an equality key:
// the same text with every number in numeric's stored form without its
// display scale (EncodeNumeric), so equal jsonb values (1.0 = 1) have
// byte-equal keys and unequal ones different keys.
func (v *JSON) writeJSONB(b *strings.Builder, key bool) {
	switch v.Kind {
	case JSONNull:
		b.WriteString("null")
	case JSONBool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case JSONNumber:
		if key {
			n := v.Num
			n.Scale = 0
			b.WriteString(EncodeNumeric(n))
		} else {
			b.WriteString(v.Num.Text())
		}
	case JSONString:
		b.WriteString(EscapeJSON(v.Str))
	case JSONArray:
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.writeJSONB(b, key)
		}
		b.WriteByte(']')
	case JSONObject:
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(EscapeJSON(k))
			b.WriteString(": ")
			v.Vals[i].writeJSONB(b, key)
		}
		b.WriteByte('}')
	}
}

// EscapeJSON is PostgreSQL's escape_json: a quoted string with ", \ and
// control characters escaped, everything else (/, non-ASCII) as it is.
func EscapeJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteString(strconv.FormatUint(uint64(c)>>4, 16))
				b.WriteString(strconv.FormatUint(uint64(c)&15, 16))
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Text is ->>'s text of a value: a string's value (22P05 for \u0000),
// NULL (ok false) for null, json's own text or jsonb's canonical text
// for the others.
func (v *JSON) Text(jsonb bool) (string, bool, error) {
	switch {
	case v.Kind == JSONNull:
		return "", false, nil
	case v.Kind == JSONString:
		if v.escErr != nil {
			return "", false, v.escErr
		}
		return v.Str, true, nil
	case jsonb:
		return v.JSONBText(), true, nil
	}
	return v.Raw, true, nil
}

// Output is the value's text as the type's output function writes it.
func (v *JSON) Output(jsonb bool) string {
	if jsonb {
		return v.JSONBText()
	}
	return v.Raw
}
