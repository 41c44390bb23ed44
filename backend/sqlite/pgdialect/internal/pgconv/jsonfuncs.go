package pgconv

import (
	"strconv"
	"strings"
)

// JSONBKey is the equality key of a stored jsonb text (writeJSONB): the
// dialect compares jsonb values by their keys, so =, <>, IN and IS
// DISTINCT FROM give jsonb's numeric equality.
func JSONBKey(s string) (string, error) {
	v, err := ParseJSON(s, true)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	v.writeJSONB(&b, true)
	return b.String(), nil
}

// JSONGet is the operators -> ->> (key a field name or an int64 array
// index) and #> #>> (key a text[] path in array text) on a stored json
// (jsonb false) or jsonb text; nil where PostgreSQL gives NULL.
func JSONGet(jsonb bool, op string, doc string, key any) (any, error) {
	v, err := parseJSON(doc, jsonb, true)
	if err != nil {
		return nil, err
	}
	var got *JSON
	switch k := key.(type) {
	case int64:
		if jsonb && !v.container() {
			v = &JSON{Kind: JSONArray, Elems: []*JSON{v}} // a raw scalar is a one-element array to ->
		}
		got = v.Index(k)
	case string:
		if op == "->" || op == "->>" {
			got = v.Field(k)
			break
		}
		elems, err := ParseArrayText(k)
		if err != nil {
			return nil, err
		}
		steps, nulls := make([]string, len(elems)), make([]bool, len(elems))
		for i, e := range elems {
			if e == nil {
				nulls[i] = true
			} else {
				steps[i] = *e
			}
		}
		got = v.Path(steps, nulls)
	default:
		return nil, Unsupported("this json key's storage class")
	}
	if got == nil {
		return nil, nil
	}
	if op == "->" || op == "#>" {
		return got.Output(jsonb), nil
	}
	s, ok, err := got.Text(jsonb)
	if err != nil || !ok {
		return nil, err
	}
	return s, nil
}

// JSONBOp is jsonb's @> <@ ? ?| ?& on stored texts (r a text or, for ?|
// and ?&, a text[] in array text; its NULL elements are skipped).
func JSONBOp(op, l, r string) (bool, error) {
	lv, err := ParseJSON(l, true)
	if err != nil {
		return false, err
	}
	switch op {
	case "@>", "<@":
		rv, err := ParseJSON(r, true)
		if err != nil {
			return false, err
		}
		if op == "<@" {
			lv, rv = rv, lv
		}
		return JSONBContains(lv, rv), nil
	case "?":
		return JSONBExists(lv, r), nil
	}
	keys, err := ParseArrayText(r)
	if err != nil {
		return false, err
	}
	for _, k := range keys {
		if k == nil {
			continue
		}
		if JSONBExists(lv, *k) == (op == "?|") {
			return op == "?|", nil
		}
	}
	return op == "?&", nil
}

// JSONTypeof is json_typeof/jsonb_typeof.
func JSONTypeof(jsonb bool, doc string) (string, error) {
	v, err := ParseJSON(doc, jsonb)
	if err != nil {
		return "", err
	}
	return v.Kind.String(), nil
}

// JSONArrayLength is json_array_length/jsonb_array_length.
func JSONArrayLength(jsonb bool, doc string) (int64, error) {
	v, err := ParseJSON(doc, jsonb)
	if err != nil {
		return 0, err
	}
	if v.Kind != JSONArray {
		if !jsonb {
			return 0, errorf("22023", "cannot get array length of a non-array")
		}
		if v.Kind == JSONObject {
			return 0, errorf("22023", "cannot get array length of a non-array")
		}
		return 0, errorf("22023", "cannot get array length of a scalar")
	}
	return int64(len(v.Elems)), nil
}

// ToJSON is to_json's text of a stored value of type typ, for the types
// the dialect builds JSON from (integers, numeric, bool, the string
// types, uuid, date, json, jsonb); nil is null.
func ToJSON(v any, typ string) (string, error) {
	switch {
	case v == nil:
		return "null", nil
	case typ == "bool":
		return strconv.FormatBool(v.(int64) != 0), nil
	case typ == "numeric":
		n, err := storedNumeric(v)
		return n.Text(), err
	case typ == "json" || typ == "jsonb":
		s, _ := v.(string)
		return s, nil
	}
	s, err := ToText(v, typ)
	if err != nil {
		return "", err
	}
	if category(typ) == "int" {
		return s, nil
	}
	return EscapeJSON(s), nil
}

func storedNumeric(v any) (Numeric, error) {
	switch x := v.(type) {
	case int64:
		return NumericFromInt(x), nil
	case string:
		return DecodeNumeric(x)
	}
	return Numeric{}, Unsupported("this numeric's storage class")
}

// JSONBuild is json_build_object/json_build_array (jsonb false: json's
// text, `{"a" : 1, "b" : 2}`) and their jsonb forms (the canonical
// jsonb text of the same), from the arguments' stored values and types.
func JSONBuild(jsonb, object bool, vals []any, types []string) (string, error) {
	if object && len(vals)%2 != 0 {
		return "", errorf("22023", "argument list must have even number of elements")
	}
	var b strings.Builder
	open, shut, sep := "[", "]", ", "
	if object {
		open, shut = "{", "}"
	}
	b.WriteString(open)
	for i, v := range vals {
		if i > 0 && (!object || i%2 == 0) {
			b.WriteString(sep)
		}
		if object && i%2 == 0 {
			k, err := jsonKey(v, types[i], i)
			if err != nil {
				return "", err
			}
			b.WriteString(EscapeJSON(k) + " : ")
			continue
		}
		s, err := ToJSON(v, types[i])
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	b.WriteString(shut)
	if !jsonb {
		return b.String(), nil
	}
	out, err := ParseJSON(b.String(), true)
	if err != nil {
		return "", err
	}
	return out.JSONBText(), nil
}

// jsonKey is an object key's text: any scalar's output, never NULL.
func jsonKey(v any, typ string, i int) (string, error) {
	if v == nil {
		return "", errorf("22023", "argument %d: key must not be null", i+1)
	}
	switch typ {
	case "json", "jsonb":
		return "", errorf("22023", "key value must be scalar, not array, composite, or json")
	case "numeric":
		n, err := storedNumeric(v)
		return n.Text(), err
	}
	return ToText(v, typ)
}
