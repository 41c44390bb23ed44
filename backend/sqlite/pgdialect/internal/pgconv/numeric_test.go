package pgconv

import (
	"sort"
	"strings"
	"testing"
)

func mustNum(t *testing.T, s string) Numeric {
	t.Helper()
	n, err := ParseNumeric(s)
	if err != nil {
		t.Fatalf("ParseNumeric(%q): %v", s, err)
	}
	return n
}

// The stored form sorts as the values do, and equal values of different
// scales differ only in trailing spaces (RTRIM makes them equal).
func TestEncodeNumericOrder(t *testing.T) {
	in := []string{"-1000", "-12.5", "-0.123", "-0.12", "-0.0001", "0", "0.00", "0.0001", "0.12", "0.123", "1", "1.00", "9.99", "10", "10.5", "123456789012345678901234567890"}
	var keys []string
	for _, s := range in {
		n := mustNum(t, s)
		k := EncodeNumeric(n)
		back, err := DecodeNumeric(k)
		if err != nil || back.Text() != n.Text() {
			t.Fatalf("%s: encoded %q decoded %q (%v)", s, k, back.Text(), err)
		}
		keys = append(keys, strings.TrimRight(k, " "))
	}
	if !sort.StringsAreSorted(keys) {
		t.Fatalf("keys out of order: %q", keys)
	}
	if keys[5] != keys[6] || keys[10] != keys[11] {
		t.Fatalf("equal values with different keys: %q", keys)
	}
}

func TestNumericOps(t *testing.T) {
	cases := []struct {
		a, op, b, want string
	}{
		{"1.5", "+", "2.25", "3.75"}, {"1", "/", "3", "0.33333333333333333333"},
		{"10", "/", "4", "2.5000000000000000"}, {"1.0", "*", "2.50", "2.500"},
		{"-7.5", "%", "2", "-1.5"}, {"2", "/", "3", "0.66666666666666666667"},
		{"12345678", "/", "0.001", "12345678000.00000000"}, {"0", "/", "7", "0.00000000000000000000"},
	}
	for _, c := range cases {
		r, err := NumericOp(c.op[0], mustNum(t, c.a), mustNum(t, c.b))
		if err != nil || r.Text() != c.want {
			t.Errorf("%s %s %s = %s (%v), want %s", c.a, c.op, c.b, r.Text(), err, c.want)
		}
	}
}

func TestNumericTypmod(t *testing.T) {
	n, err := mustNum(t, "10.505").ApplyTypmod(NumericTypmod(10, 2))
	if err != nil || n.Text() != "10.51" {
		t.Fatalf("10.505 as numeric(10,2) = %s, %v", n.Text(), err)
	}
	if _, err := mustNum(t, "999.995").ApplyTypmod(NumericTypmod(5, 2)); err == nil || err.(*Error).Code != "22003" {
		t.Fatalf("999.995 as numeric(5,2): %v, want 22003", err)
	}
	if i, err := mustNum(t, "-2.5").Int("int4"); err != nil || i != -3 {
		t.Fatalf("-2.5::int4 = %d, %v", i, err)
	}
}

func TestNumericCeilFloor(t *testing.T) {
	for _, c := range []struct {
		in         string
		ceil, flor string
	}{{"9e-19", "1", "0"}, {"-9e-19", "0", "-1"}, {"2.000", "2", "2"}, {"-1.5", "-1", "-2"}, {"1.5", "2", "1"}, {"0", "0", "0"}} {
		c1, err1 := NumericCeilFloor(mustNum(t, c.in), true)
		f1, err2 := NumericCeilFloor(mustNum(t, c.in), false)
		if err1 != nil || err2 != nil || c1.Text() != c.ceil || f1.Text() != c.flor {
			t.Errorf("ceil/floor(%s) = %s/%s (%v %v), want %s/%s", c.in, c1.Text(), f1.Text(), err1, err2, c.ceil, c.flor)
		}
	}
}
