package pgconv

import (
	"strconv"
	"strings"
)

// An array type is named as pg_type names it: "_" and its element type
// ("_text", "_int4"). Its stored form is PostgreSQL's own output of a
// one-dimensional array with lower bound 1 (array_out: '{a,"b c",NULL}'),
// canonical for the element types the dialect supports, so two equal
// arrays have one stored text.

// ArrayElements are the element types an array may have.
var ArrayElements = map[string]bool{
	"text": true, "varchar": true, "int2": true, "int4": true, "int8": true, "bool": true,
	"date": true, "timestamp": true, "timestamptz": true,
}

// IsArray reports whether typ is an array type name.
func IsArray(typ string) bool { return strings.HasPrefix(typ, "_") }

// Elem is an array type's element type.
func Elem(typ string) string { return strings.TrimPrefix(typ, "_") }

func malformed(s string) *Error {
	return errorf("22P02", "malformed array literal: %q", s)
}

// ParseArrayText splits PostgreSQL's array text into its elements' texts
// (nil for NULL), as array_in reads it; multi-dimensional arrays and
// explicit bounds are refused.
func ParseArrayText(s string) ([]*string, error) {
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if strings.HasPrefix(p, "[") {
		return nil, Unsupported("array bounds in array input")
	}
	if !strings.HasPrefix(p, "{") {
		return nil, malformed(s)
	}
	elems, rest, err := arrayBody(s, p[1:])
	if err != nil {
		return nil, err
	}
	if strings.TrimLeft(rest, " \t\n\r\v\f") != "" {
		return nil, malformed(s)
	}
	return elems, nil
}

// arrayBody reads the elements after '{' up to the matching '}'.
func arrayBody(s, p string) ([]*string, string, error) {
	var out []*string
	p = strings.TrimLeft(p, " \t\n\r\v\f")
	if strings.HasPrefix(p, "}") {
		return out, p[1:], nil
	}
	for {
		p = strings.TrimLeft(p, " \t\n\r\v\f")
		if strings.HasPrefix(p, "{") {
			return nil, "", Unsupported("multi-dimensional arrays")
		}
		e, rest, err := arrayElement(s, p)
		if err != nil {
			return nil, "", err
		}
		out = append(out, e)
		rest = strings.TrimLeft(rest, " \t\n\r\v\f")
		switch {
		case strings.HasPrefix(rest, ","):
			p = rest[1:]
		case strings.HasPrefix(rest, "}"):
			return out, rest[1:], nil
		default:
			return nil, "", malformed(s)
		}
	}
}

// arrayElement reads one element as PostgreSQL 15's array_in does: a
// quoted element, or unquoted text up to ',' or '}' with surrounding
// blanks dropped (an unquoted NULL is the NULL element); a backslash
// escapes the next character anywhere; a quote only opens an element and
// nothing but blanks may follow its closing quote.
func arrayElement(s, p string) (*string, string, error) {
	var b strings.Builder
	started, quoted, closed, literal, lastKept := false, false, false, false, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case quoted && c == '"':
			quoted, closed = false, true
		case c == '\\' && !closed:
			if i+1 >= len(p) {
				return nil, "", malformed(s)
			}
			i++
			b.WriteByte(p[i])
			lastKept, started, literal = b.Len(), true, true
		case quoted:
			b.WriteByte(c)
			lastKept = b.Len()
		case c == '"':
			if started {
				return nil, "", malformed(s)
			}
			quoted, started, literal = true, true, true
		case c == ',' || c == '}':
			if !started {
				return nil, "", malformed(s)
			}
			return element(b.String()[:lastKept], literal), p[i:], nil
		case isSpace(c):
			if started && !closed {
				b.WriteByte(c)
			}
		case closed || c == '{':
			return nil, "", malformed(s)
		default:
			b.WriteByte(c)
			lastKept, started = b.Len(), true
		}
	}
	return nil, "", malformed(s)
}

func element(text string, quoted bool) *string {
	if !quoted && strings.EqualFold(text, "null") {
		return nil
	}
	return &text
}

// needsQuotes is array_out's rule: empty, NULL, or a character array
// syntax uses.
func needsQuotes(s string) bool {
	if s == "" || strings.EqualFold(s, "null") {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"', c == '\\', c == '{', c == '}', c == ',', isSpace(c), c == '\v', c == '\f':
			return true
		}
	}
	return false
}

// FormatArray is array_out of elements' output texts (nil for NULL).
func FormatArray(elems []*string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case e == nil:
			b.WriteString("NULL")
		case needsQuotes(*e):
			b.WriteByte('"')
			for j := 0; j < len(*e); j++ {
				if c := (*e)[j]; c == '"' || c == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte((*e)[j])
			}
			b.WriteByte('"')
		default:
			b.WriteString(*e)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// ElemText is the output text of an element's stored value in an array
// (a bool is t or f, as array_out writes it).
func ElemText(v any, elem string) (string, error) {
	if i, ok := v.(int64); ok && elem == "bool" {
		return map[bool]string{true: "t", false: "f"}[i != 0], nil
	}
	return ToText(v, elem)
}

// ElemValue is the stored value of an element's output text.
func ElemValue(s, elem string) (any, error) {
	switch category(elem) {
	case "int":
		return strconv.ParseInt(s, 10, 64)
	case "bool":
		return boolValue(s == "t"), nil
	}
	return s, nil
}

// ArrayIn is array_in for an array of elem with the element typmod:
// each element read by elem's input function (an explicit cast truncates
// varchar(n)'s elements, an assignment errs), written back canonical.
func ArrayIn(s, elem string, typmod int32, explicit bool) (string, error) {
	elems, err := ParseArrayText(s)
	if err != nil {
		return "", err
	}
	return convertElements(s, elems, "text", elem, typmod, explicit)
}

// convertElements converts the elements' texts of type src to elem.
func convertElements(s string, elems []*string, src, elem string, typmod int32, explicit bool) (string, error) {
	for i, e := range elems {
		if e == nil {
			continue
		}
		var v any = *e
		var err error
		if src == "text" {
			v, err = FromText(*e, elem)
		} else if v, err = ElemValue(*e, src); err == nil {
			v, err = Convert(v, src, elem, typmod, Assignment)
		}
		if err == nil && category(elem) == "string" {
			v, err = CheckString(v.(string), elem, typmod, explicit)
		}
		if err != nil {
			return "", err
		}
		t, err := ElemText(v, elem)
		if err != nil {
			return "", err
		}
		elems[i] = &t
	}
	return FormatArray(elems), nil
}

// convertArray is Convert where src or dst is an array: text input, an
// array's text, or an array to another element type (string elements
// only).
func convertArray(v any, src, dst string, typmod int32, ctx Context) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, Unsupported("this value's storage class as an array")
	}
	switch {
	case !IsArray(src):
		return ArrayIn(s, Elem(dst), typmod, ctx == Explicit)
	case !IsArray(dst):
		return CheckString(s, dst, typmod, ctx == Explicit)
	}
	elems, err := ParseArrayText(s)
	if err != nil {
		return nil, err
	}
	return convertElements(s, elems, Elem(src), Elem(dst), typmod, ctx == Explicit)
}

// arrayCastContext is CastContext where src or dst is an array: arrays of
// the same element category cast as their elements do; an array's text
// is its output (assignment); text to an array is its input (explicit).
func arrayCastContext(src, dst string) (Context, bool) {
	switch {
	case IsArray(src) && IsArray(dst):
		es, ed := Elem(src), Elem(dst)
		if es == ed || category(es) == "string" && category(ed) == "string" {
			return Implicit, true
		}
		return Explicit, false
	case IsArray(src):
		return Assignment, category(dst) == "string" && dst != "bpchar"
	case category(src) == "string" && src != "bpchar":
		return Explicit, true
	}
	return Explicit, false
}
