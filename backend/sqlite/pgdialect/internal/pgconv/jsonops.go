package pgconv

import (
	"strconv"
	"strings"
)

// Field is json's/jsonb's object field: the value of key k, nil when v
// is not an object or has no such key (json keeps duplicate keys: the
// last one is the one PostgreSQL's -> finds).
func (v *JSON) Field(k string) *JSON {
	if v.Kind != JSONObject {
		return nil
	}
	for i := len(v.Keys) - 1; i >= 0; i-- {
		if v.Keys[i] == k {
			return v.Vals[i]
		}
	}
	return nil
}

// Index is the array element at i (from 0; a negative i counts from
// the end), nil when v is not an array or i is out of range.
func (v *JSON) Index(i int64) *JSON {
	if v.Kind != JSONArray {
		return nil
	}
	n := int64(len(v.Elems))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil
	}
	return v.Elems[i]
}

// Path is #>: the value at the path's keys and indexes (an array's step
// is read as strtol reads it: blanks, a sign, digits and nothing else),
// nil where a step finds nothing. A NULL step (ok false in nulls) gives nil.
func (v *JSON) Path(steps []string, nulls []bool) *JSON {
	cur := v
	for i, s := range steps {
		if nulls[i] {
			return nil
		}
		switch cur.Kind {
		case JSONObject:
			cur = cur.Field(s)
		case JSONArray:
			n, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\r\v\f"), 10, 32)
			if err != nil {
				return nil
			}
			cur = cur.Index(n)
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	return cur
}

// JSONBEqual is jsonb's =: numbers compare as numeric (1.0 = 1), objects
// by their (sorted, unique) pairs, arrays element by element.
func JSONBEqual(a, b *JSON) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case JSONNull:
		return true
	case JSONBool:
		return a.Bool == b.Bool
	case JSONNumber:
		return CompareNumeric(a.Num, b.Num) == 0
	case JSONString:
		return a.Str == b.Str
	case JSONArray:
		if len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !JSONBEqual(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Keys) != len(b.Keys) {
		return false
	}
	for i := range a.Keys {
		if a.Keys[i] != b.Keys[i] || !JSONBEqual(a.Vals[i], b.Vals[i]) {
			return false
		}
	}
	return true
}

func (v *JSON) container() bool { return v.Kind == JSONArray || v.Kind == JSONObject }

// JSONBContains is jsonb's @> (jsonb_contains): a top-level scalar is a
// one-element "raw scalar" array, which an array may contain but which
// contains no array; an object contains an object whose every pair it
// holds (values contained recursively); an array contains an array whose
// every element equals one of its scalars or is contained in one of its
// containers.
func JSONBContains(a, b *JSON) bool {
	if (a.Kind == JSONObject) != (b.Kind == JSONObject) {
		return false
	}
	if !a.container() && b.container() {
		return false // a raw scalar contains no array
	}
	if !a.container() {
		a = &JSON{Kind: JSONArray, Elems: []*JSON{a}}
	}
	if !b.container() {
		b = &JSON{Kind: JSONArray, Elems: []*JSON{b}}
	}
	return deepContains(a, b)
}

func deepContains(a, b *JSON) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == JSONObject {
		for i, k := range b.Keys {
			av, bv := a.Field(k), b.Vals[i]
			if av == nil || av.Kind != bv.Kind {
				return false
			}
			if bv.container() && !deepContains(av, bv) || !bv.container() && !JSONBEqual(av, bv) {
				return false
			}
		}
		return true
	}
	for _, be := range b.Elems {
		if !arrayHolds(a, be) {
			return false
		}
	}
	return true
}

// arrayHolds reports whether the array a has a scalar equal to the
// scalar e, or a container that contains the container e.
func arrayHolds(a, e *JSON) bool {
	for _, ae := range a.Elems {
		if e.container() && ae.container() && deepContains(ae, e) {
			return true
		}
		if !e.container() && !ae.container() && JSONBEqual(ae, e) {
			return true
		}
	}
	return false
}

// JSONBExists is jsonb's ? (jsonb_exists): k is a key of the object, or
// a string element of the array (or the string itself, a raw scalar).
func JSONBExists(v *JSON, k string) bool {
	switch v.Kind {
	case JSONObject:
		return v.Field(k) != nil
	case JSONArray:
		for _, e := range v.Elems {
			if e.Kind == JSONString && e.Str == k {
				return true
			}
		}
		return false
	case JSONString:
		return v.Str == k
	}
	return false
}
