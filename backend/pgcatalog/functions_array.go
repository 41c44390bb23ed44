package pgcatalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// arrayFuncs are the array functions over JSON arrays (doc.go) and the
// rewriting's array and regex helpers.
func arrayFuncs() []scalar {
	return []scalar{
		{"array_to_string", -1, arrayToString},
		{"array_length", 2, strict(arrayDim(false))}, {"array_upper", 2, strict(arrayDim(false))},
		{"array_lower", 2, strict(arrayDim(true))},
		{"cardinality", 1, strict(cardinality)},
		{"string_to_array", -1, stringToArray},
		{"pgcat_array_in", 1, strict(func(a []sqlite3.Value) (any, error) { return arrayIn(a[0].Text()) })},
		{"pgcat_array_out", 2, arrayOutFunc},
		{"pgcat_vector_out", 1, strict(vectorOut)},
		{"pgcat_array_contains", 2, arrayContains},
		{"pgcat_regex", 3, regexFunc()},
	}
}

// decodeArray parses a JSON array (numbers kept as json.Number).
func decodeArray(s string) ([]any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var out []any
	if err := d.Decode(&out); err != nil {
		return nil, pgError("22P02", "malformed array: %q", s)
	}
	return out, nil
}

// encodeArray is a JSON array's text.
func encodeArray(v []any) string {
	if v == nil {
		v = []any{}
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v) // values decoded from JSON or built of strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// elemText is an array element's text (booleans as t/f).
func elemText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case bool:
		return text(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// arrayToString is array_to_string(array, sep[, null_text]).
func arrayToString(a []sqlite3.Value) (any, error) {
	if a[0].Type() == sqlite3.NULL || a[1].Type() == sqlite3.NULL {
		return nil, nil
	}
	arr, err := decodeArray(a[0].Text())
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, e := range flatten(arr) {
		switch {
		case e != nil:
			parts = append(parts, elemText(e))
		case len(a) > 2 && a[2].Type() != sqlite3.NULL:
			parts = append(parts, a[2].Text())
		}
	}
	return strings.Join(parts, a[1].Text()), nil
}

// flatten is a (nested) array's elements in order.
func flatten(arr []any) []any {
	var out []any
	for _, e := range arr {
		if inner, ok := e.([]any); ok {
			out = append(out, flatten(inner)...)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// arrayDim is array_length/array_upper (lower false) or array_lower of a
// dimension: NULL for an empty array or a missing dimension.
func arrayDim(lower bool) goFunc {
	return func(a []sqlite3.Value) (any, error) {
		arr, err := decodeArray(a[0].Text())
		if err != nil {
			return nil, err
		}
		for d := a[1].Int64(); d > 1; d-- {
			inner, ok := any(nil), false
			if len(arr) > 0 {
				inner = arr[0]
			}
			if arr, ok = inner.([]any); !ok {
				return nil, nil
			}
		}
		if len(arr) == 0 || a[1].Int64() < 1 {
			return nil, nil
		}
		if lower {
			return 1, nil
		}
		return len(arr), nil
	}
}

func cardinality(a []sqlite3.Value) (any, error) {
	arr, err := decodeArray(a[0].Text())
	if err != nil {
		return nil, err
	}
	return len(flatten(arr)), nil
}

// stringToArray is string_to_array(s, delimiter[, null_text]).
func stringToArray(a []sqlite3.Value) (any, error) {
	if a[0].Type() == sqlite3.NULL {
		return nil, nil
	}
	s := a[0].Text()
	var parts []string
	switch {
	case s == "":
	case a[1].Type() == sqlite3.NULL:
		parts = strings.Split(s, "")
	case a[1].Text() == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, a[1].Text())
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
		if len(a) > 2 && a[2].Type() != sqlite3.NULL && p == a[2].Text() {
			out[i] = nil
		}
	}
	return encodeArray(out), nil
}

// vectorOut is int2vector/oidvector output: the elements separated by
// spaces.
func vectorOut(a []sqlite3.Value) (any, error) {
	arr, err := decodeArray(a[0].Text())
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(arr))
	for i, e := range arr {
		parts[i] = elemText(e)
	}
	return strings.Join(parts, " "), nil
}

// arrayContains is value = ANY(array): true when an element equals
// value; NULL when none does and value or an element is NULL.
func arrayContains(a []sqlite3.Value) (any, error) {
	if a[0].Type() == sqlite3.NULL {
		return nil, nil
	}
	arr, err := decodeArray(a[0].Text())
	if err != nil {
		return nil, err
	}
	v, sawNull := value(a[1]), a[1].Type() == sqlite3.NULL
	for _, e := range flatten(arr) {
		if e == nil {
			sawNull = true
		} else if v != nil && elemEqual(e, v) {
			return true, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return false, nil
}

// elemEqual compares an element with a value: as numbers when both are
// numeric, else as text.
func elemEqual(e, v any) bool {
	et, vt := elemText(e), text(v)
	ef, err1 := strconv.ParseFloat(et, 64)
	vf, err2 := strconv.ParseFloat(vt, 64)
	if err1 == nil && err2 == nil {
		return ef == vf
	}
	return et == vt
}

// regexFunc is pgcat_regex(text, pattern, flags): flags "" or "i".
// Compiled patterns are cached.
func regexFunc() goFunc {
	var mu sync.Mutex
	cache := map[string]*regexpEntry{}
	return strict(func(a []sqlite3.Value) (any, error) {
		key := a[2].Text() + "\x00" + a[1].Text()
		mu.Lock()
		e := cache[key]
		if e == nil {
			re, err := compileRegex(a[1].Text(), strings.Contains(a[2].Text(), "i"))
			e = &regexpEntry{re: re, err: err}
			cache[key] = e
		}
		mu.Unlock()
		if e.err != nil {
			return nil, e.err
		}
		return e.re.MatchString(a[0].Text()), nil
	})
}
