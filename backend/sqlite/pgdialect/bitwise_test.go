package pgdialect

import (
	"reflect"
	"strings"
	"testing"
)

var bitwiseCatalog = staticCatalog{
	"b": {col("s", "int2", -1), col("i", "int4", -1), col("l", "int8", -1), col("n", "numeric", -1), col("t", "text", -1)},
}

// TestBitwiseIntegerOperators: & and | of integers take the wider
// operand's type (an untyped side or parameter the other's) and are
// SQLite's own & and |; other operand types are 42883 as in PostgreSQL.
func TestBitwiseIntegerOperators(t *testing.T) {
	cases := []struct {
		sql    string
		params []Type
		cols   []ResultColumn
	}{
		{"SELECT s | s, s & i, i | l, l & 3 FROM b", nil, []ResultColumn{
			{"?column?", Type{"int2", -1}}, {"?column?", Type{"int4", -1}}, {"?column?", Type{"int8", -1}}, {"?column?", Type{"int8", -1}}}},
		{"SELECT i | $1, $2 & l FROM b", []Type{{"int4", -1}, {"int8", -1}}, []ResultColumn{
			{"?column?", Type{"int4", -1}}, {"?column?", Type{"int8", -1}}}},
		{"SELECT ((l % 256) | (l % 1000)) % 1000 FROM b", nil, []ResultColumn{{"?column?", Type{"int8", -1}}}},
	}
	for _, c := range cases {
		tr, err := Translate(c.sql, bitwiseCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if !reflect.DeepEqual(tr.Params, c.params) || !reflect.DeepEqual(tr.Columns, c.cols) {
			t.Errorf("%s\n got params %v columns %v\nwant params %v columns %v", c.sql, tr.Params, tr.Columns, c.params, c.cols)
		}
	}
	for _, c := range []struct{ sql, code, mention string }{
		{"SELECT n | 1 FROM b", "42883", "numeric | integer"},
		{"SELECT t & i FROM b", "42883", "text & integer"},
		{"SELECT true | false", "42883", "boolean | boolean"},
		{"SELECT '1' | '2'", "42725", "not unique"},
		{"SELECT i # 1 FROM b", "0A000", "operator #"},
	} {
		_, err := Translate(c.sql, bitwiseCatalog)
		e, ok := err.(*Error)
		if !ok || e.Code != c.code || !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s: got %v, want %s mentioning %q", c.sql, err, c.code, c.mention)
		}
	}
}
