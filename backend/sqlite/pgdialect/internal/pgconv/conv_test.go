package pgconv

import (
	"errors"
	"testing"
)

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return "?"
	}
	return ""
}

// TestFromText: PostgreSQL 15's input functions for the supported types,
// with their SQLSTATEs; forms the dialect does not read are 0A000.
func TestFromText(t *testing.T) {
	cases := []struct {
		in, typ string
		want    any
		code    string
	}{
		{" 42 ", "int4", int64(42), ""},
		{"+7", "int2", int64(7), ""},
		{"1_000", "int4", nil, "22P02"},
		{"0x10", "int4", nil, "22P02"},
		{"32768", "int2", nil, "22003"},
		{"-2147483648", "int4", int64(-2147483648), ""},
		{"9223372036854775808", "int8", nil, "22003"},
		{"1.5e3", "float8", 1500.0, ""},
		{"-Infinity", "float8", nil, ""},
		{"NaN", "float8", nil, "0A000"},
		{"1e39", "float4", nil, "22003"},
		{"abc", "float8", nil, "22P02"},
		{"Tr", "bool", int64(1), ""},
		{"of", "bool", int64(0), ""},
		{"o", "bool", nil, "22P02"},
		{`\x0aFF`, "bytea", []byte{0x0a, 0xff}, ""},
		{`a\\b\001`, "bytea", []byte{'a', '\\', 'b', 1}, ""},
		{`\x0`, "bytea", nil, "22023"},
		{"2024-02-29", "date", "2024-02-29", ""},
		{"2023-02-29", "date", nil, "22008"},
		{"2026-01-02 03:04:05.120", "timestamp", "2026-01-02 03:04:05.12", ""},
		{"2026-01-02T03:04:05+05:30", "timestamptz", "2026-01-01 21:34:05+00", ""},
		{"2026-01-02 03:04:05+05:30", "timestamp", "2026-01-02 03:04:05", ""},
		{"0001-01-01 00:30:00+01", "timestamptz", nil, "0A000"},
		{"Jan 2 2026", "date", nil, "0A000"},
		{"now", "timestamptz", nil, "22007"},
		{"garbage", "date", nil, "22007"},
		{"[1, 2", "json", nil, "22P02"},
		{`{"a": [1, 2.50]}`, "json", `{"a": [1, 2.50]}`, ""},
	}
	for _, c := range cases {
		got, err := FromText(c.in, c.typ)
		if code(err) != c.code {
			t.Errorf("%s %q: error %v, want %q", c.typ, c.in, err, c.code)
			continue
		}
		if c.code == "" && c.want != nil && !equal(got, c.want) {
			t.Errorf("%s %q: %#v, want %#v", c.typ, c.in, got, c.want)
		}
	}
}

func equal(a, b any) bool {
	if x, ok := a.([]byte); ok {
		return string(x) == string(b.([]byte))
	}
	return a == b
}

// TestConvert: casts between stored values, by context.
func TestConvert(t *testing.T) {
	cases := []struct {
		v        any
		src, dst string
		typmod   int32
		ctx      Context
		want     any
		code     string
	}{
		{int64(40000), "int4", "int2", -1, Assignment, nil, "22003"},
		{2.5, "float8", "int4", -1, Assignment, int64(2), ""},
		{3.5, "float8", "int4", -1, Assignment, int64(4), ""},
		{"abcdef", "text", "varchar", 7, Assignment, nil, "22001"},
		{"abc  ", "text", "varchar", 7, Assignment, "abc", ""},
		{"abcdef", "text", "varchar", 7, Explicit, "abc", ""},
		{"héllo", "text", "varchar", 6, Assignment, nil, "22001"},
		{int64(1), "bool", "text", -1, Explicit, "true", ""},
		{[]byte{1, 0xab}, "bytea", "text", -1, Explicit, `\x01ab`, ""},
		{"2026-01-02", "date", "timestamptz", -1, Implicit, "2026-01-02 00:00:00+00", ""},
		{"2026-01-02 03:04:05+00", "timestamptz", "date", -1, Assignment, "2026-01-02", ""},
		{1e300, "float8", "float4", -1, Assignment, nil, "22003"},
		{1.5, "float8", "text", -1, Explicit, nil, "0A000"},
	}
	for _, c := range cases {
		got, err := Convert(c.v, c.src, c.dst, c.typmod, c.ctx)
		if code(err) != c.code || (c.code == "" && !equal(got, c.want)) {
			t.Errorf("%v %s→%s: %#v %v, want %#v %q", c.v, c.src, c.dst, got, err, c.want, c.code)
		}
	}
}

// TestIntOp: checked integer arithmetic at each width.
func TestIntOp(t *testing.T) {
	cases := []struct {
		op   byte
		a, b int64
		typ  string
		want int64
		code string
	}{
		{'+', 32767, 1, "int2", 0, "22003"},
		{'+', 2147483647, 1, "int8", 2147483648, ""},
		{'*', -9223372036854775808, -1, "int8", 0, "22003"},
		{'/', -9223372036854775808, -1, "int8", 0, "22003"},
		{'/', -7, 2, "int4", -3, ""},
		{'%', -7, 2, "int4", -1, ""},
		{'%', -9223372036854775808, -1, "int8", 0, ""},
		{'/', 1, 0, "int4", 0, "22012"},
		{'%', 1, 0, "int4", 0, "22012"},
	}
	for _, c := range cases {
		got, err := IntOp(c.op, c.a, c.b, c.typ)
		if code(err) != c.code || (c.code == "" && got != c.want) {
			t.Errorf("%d %c %d (%s): %d %v, want %d %q", c.a, c.op, c.b, c.typ, got, err, c.want, c.code)
		}
	}
}
