package pgcatalog

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// PostgreSQL's array text ('{a,"b c",NULL}') and vectors ('1 2') to and
// from the catalog database's JSON arrays (doc.go), for literals and
// parameters (rewrite, run) and for results (render).

// literalAs is an untyped literal s read as type t, as SQLite text.
func literalAs(s, t string) (val, error) {
	switch {
	case isReg(t):
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return val{sql: s, typ: t}, nil
		}
		return val{sql: "pgcat_" + regTypes[t] + "_in(" + quote(s) + ")", typ: t}, nil
	case isInteger(t):
		i, err := parseInt(s, t)
		if err != nil {
			return val{}, err
		}
		return val{sql: strconv.FormatInt(i, 10), typ: t}, nil
	case isFloat(t):
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return val{}, pgErr("22P02", "invalid input syntax for type %s: %q", t, s)
		}
		return val{sql: strconv.FormatFloat(f, 'g', -1, 64), typ: t}, nil
	case t == "bool":
		b, err := parseBool(s)
		if err != nil {
			return val{}, err
		}
		return val{sql: strconv.Itoa(b), typ: t}, nil
	case isArray(t) || isVector(t):
		j, err := arrayToJSON(s, t)
		if err != nil {
			return val{}, err
		}
		return val{sql: quote(j), typ: t}, nil
	}
	return val{sql: quote(s), typ: t}, nil
}

// parseInt reads an integer of type t (PostgreSQL's message on failure).
func parseInt(s, t string) (int64, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		name := map[string]string{"int2": "smallint", "int4": "integer", "int8": "bigint"}[t]
		if name == "" {
			name = t
		}
		return 0, pgErr("22P02", "invalid input syntax for type %s: %q", name, s)
	}
	return i, nil
}

// parseBool reads a boolean's text as 1 or 0.
func parseBool(s string) (int, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "y", "yes", "on", "1":
		return 1, nil
	case "f", "false", "n", "no", "off", "0":
		return 0, nil
	}
	return 0, pgErr("22P02", "invalid input syntax for type boolean: %q", s)
}

// arrayToJSON reads PostgreSQL's text of an array (or vector) of type t
// as a JSON array: integer and bool elements as numbers, others strings.
func arrayToJSON(s, t string) (string, error) {
	var elems []*string
	var err error
	if isVector(t) {
		for _, f := range strings.Fields(s) {
			elems = append(elems, &f)
		}
	} else if elems, err = parseArray(s); err != nil {
		return "", err
	}
	et := elemType(t)
	out := make([]any, len(elems))
	for i, e := range elems {
		switch {
		case e == nil:
			out[i] = nil
		case isInteger(et):
			if out[i], err = parseInt(*e, et); err != nil {
				return "", err
			}
		case et == "bool":
			if out[i], err = parseBool(*e); err != nil {
				return "", err
			}
		case isFloat(et):
			f, err := strconv.ParseFloat(*e, 64)
			if err != nil {
				return "", pgErr("22P02", "invalid input syntax for type %s: %q", et, *e)
			}
			out[i] = f
		default:
			out[i] = *e
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", pgErr("22P02", "malformed array literal: %q", s)
	}
	return string(b), nil
}

// parseArray splits a one-dimensional array's text into its elements
// (nil for NULL).
func parseArray(s string) ([]*string, error) {
	bad := pgErr("22P02", "malformed array literal: %q", s)
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, bad
	}
	body := t[1 : len(t)-1]
	var out []*string
	if strings.TrimSpace(body) == "" {
		return out, nil
	}
	for i := 0; i <= len(body); {
		e, quoted, next, ok := arrayElem(body, i)
		if !ok {
			return nil, bad
		}
		if !quoted && strings.EqualFold(e, "NULL") {
			out = append(out, nil)
		} else {
			out = append(out, &e)
		}
		i = next + 1
	}
	return out, nil
}

// arrayElem reads the element starting at body[i]: its text, whether it
// was quoted, and the index of the comma (or end) after it.
func arrayElem(body string, i int) (string, bool, int, bool) {
	for i < len(body) && body[i] == ' ' {
		i++
	}
	var b strings.Builder
	if i < len(body) && body[i] == '"' {
		for i++; i < len(body) && body[i] != '"'; i++ {
			if body[i] == '\\' && i+1 < len(body) {
				i++
			}
			b.WriteByte(body[i])
		}
		if i >= len(body) {
			return "", false, 0, false
		}
		i++
		for i < len(body) && body[i] == ' ' {
			i++
		}
		return b.String(), true, i, i == len(body) || body[i] == ','
	}
	for ; i < len(body) && body[i] != ','; i++ {
		if body[i] == '{' || body[i] == '"' || body[i] == '}' {
			return "", false, 0, false // multidimensional or malformed
		}
		if body[i] == '\\' && i+1 < len(body) {
			i++
		}
		b.WriteByte(body[i])
	}
	e := strings.TrimRight(b.String(), " ")
	return e, false, i, e != ""
}

// jsonToArray shows a JSON array as PostgreSQL's text of type t: '{a,b}'
// for arrays, '1 2' for vectors (the element type's text for each).
func jsonToArray(j, t string) (string, error) {
	var elems []any
	var bounded struct {
		LB int64 `json:"lb"`
		A  []any `json:"a"`
	}
	d := json.NewDecoder(strings.NewReader(j))
	d.UseNumber()
	if strings.HasPrefix(j, "{") {
		// An array with its lower bound (finish): '[0:1]={a,b}'.
		if err := d.Decode(&bounded); err != nil {
			return "", pgErr("XX000", "a catalog value of type %s is not an array", t)
		}
		s, err := jsonToArray(mustJSON(bounded.A), t)
		if err != nil || len(bounded.A) == 0 || bounded.LB == 1 {
			return s, err
		}
		return fmt.Sprintf("[%d:%d]=%s", bounded.LB, bounded.LB+int64(len(bounded.A))-1, s), nil
	}
	if err := d.Decode(&elems); err != nil {
		return "", pgErr("XX000", "a catalog value of type %s is not an array", t)
	}
	et := elemType(t)
	parts := make([]string, len(elems))
	for i, e := range elems {
		parts[i] = arrayElemText(e, et, !isVector(t))
	}
	if isVector(t) {
		return strings.Join(parts, " "), nil
	}
	return "{" + strings.Join(parts, ",") + "}", nil
}

// arrayElemText is one element's text in an array's output (quoted when
// PostgreSQL quotes it).
func arrayElemText(e any, et string, quoteIt bool) string {
	var s string
	switch x := e.(type) {
	case nil:
		return "NULL"
	case json.Number:
		s = x.String()
		if et == "bool" {
			s = map[bool]string{true: "t", false: "f"}[s != "0"]
		}
	case bool:
		s = map[bool]string{true: "t", false: "f"}[x]
	case string:
		s = x
	default:
		b, _ := json.Marshal(x)
		s = string(b)
	}
	if !quoteIt || !needsQuote(s) {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// needsQuote reports whether an array element's text is quoted.
func needsQuote(s string) bool {
	if s == "" || strings.EqualFold(s, "NULL") {
		return true
	}
	return strings.ContainsAny(s, "{},\"\\ \t\n\r\v\f")
}

// mustJSON is v's JSON (v decoded from JSON: it encodes).
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
