package pgruntime

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// Value converts a value SQLite returned for a result column of type t to
// the Go value relchain's results carry for it (nil, int64, float64,
// string, []byte or bool): a bool column's 0/1 becomes false/true, an
// integer type int64, a float type float64, bytea []byte, numeric its
// text as PostgreSQL outputs it (10.50 for numeric(10,2); the stored form
// is pgconv.EncodeNumeric's key), and text, varchar, char(n) (blank-
// padded), json, date, timestamp and timestamptz their text (the
// canonical PostgreSQL output the dialect stores), an array its array text
// ({a,"b c",NULL}, stored as it is).
//
// A value no conversion can take is an error, never a panic: a stored
// value reaches here from any client's read (XX000 naming the type).
func Value(t pgdialect.Type, v any) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, runtimeError("XX000", "internal error: a %s value could not be converted for output (%v)", t.Name, r)
		}
	}()
	if v == nil {
		return nil, nil
	}
	if pgconv.IsArray(t.Name) {
		t = pgdialect.Type{Name: "text", Typmod: -1} // PostgreSQL's array text, as stored
	}
	switch t.Name {
	case "bool":
		if i, ok := v.(int64); ok {
			return i != 0, nil
		}
	case "int2", "int4", "int8":
		if i, ok := v.(int64); ok {
			return i, nil
		}
	case "float4", "float8":
		switch x := v.(type) {
		case float64:
			return floatValue(t, x), nil
		case int64:
			return floatValue(t, float64(x)), nil
		}
	case "bytea":
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case "numeric":
		return numericValue(v)
	case "text", "varchar", "bpchar", "json", "jsonb", "uuid", "date", "timestamp", "timestamptz", "unknown":
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	}
	return nil, fmt.Errorf("pgruntime: a %T value for a column of type %s", v, t.Name)
}

// numericValue is a numeric's text (numeric_out: 10.50) from its stored
// form, or from an integer.
func numericValue(v any) (any, error) {
	switch x := v.(type) {
	case string:
		n, err := pgconv.DecodeNumeric(x)
		if err != nil {
			return nil, fmt.Errorf("pgruntime: %w", err)
		}
		return n.Text(), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	return nil, fmt.Errorf("pgruntime: a %T value for a column of type numeric", v)
}

// floatValue is a float8 as it is, a float4 as the float64 its shortest
// single-precision text reads as (0.1, not 0.10000000149011612), as a
// client reading PostgreSQL's float4 output gets it.
func floatValue(t pgdialect.Type, f float64) float64 {
	if t.Name != "float4" || math.IsInf(f, 0) || f == 0 {
		return f
	}
	r, err := strconv.ParseFloat(float4Text(float32(f)), 64)
	if err != nil {
		return f
	}
	return r
}

// float4Text is the shortest decimal that reads back as f and lies
// strictly inside f's rounding interval: PostgreSQL's float4 output
// (Ryu without accepting the interval's bounds) prints 3.0000001e+10
// where Go's shortest, which accepts a bound that rounds to even, prints
// 3e+10.
func float4Text(f float32) string {
	if f == 0 || math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return strconv.FormatFloat(float64(f), 'g', -1, 32)
	}
	exact := new(big.Rat).SetFloat64(float64(f))
	below := math.Nextafter32(f, float32(math.Inf(-1)))
	above := math.Nextafter32(f, float32(math.Inf(1)))
	// At ±MaxFloat32 the neighbour outward is infinite: the interval is
	// as wide on that side as on the other (the next power of two).
	lo, hi := neighbour(exact, below, above), neighbour(exact, above, below)
	half := big.NewRat(1, 2)
	lo.Mul(lo.Add(lo, exact), half)
	hi.Mul(hi.Add(hi, exact), half)
	if lo.Cmp(hi) > 0 {
		lo, hi = hi, lo
	}
	for p := 1; p <= 9; p++ {
		s := strconv.FormatFloat(float64(f), 'e', p-1, 64)
		d, ok := new(big.Rat).SetString(s)
		if ok && d.Cmp(lo) > 0 && d.Cmp(hi) < 0 {
			return s
		}
	}
	return strconv.FormatFloat(float64(f), 'g', -1, 32)
}

// neighbour is the exact value of next, f's neighbour on one side, or,
// when next is infinite, the mirror of other (the other side's
// neighbour) about f.
func neighbour(exact *big.Rat, next, other float32) *big.Rat {
	if !math.IsInf(float64(next), 0) {
		return new(big.Rat).SetFloat64(float64(next))
	}
	o := new(big.Rat).SetFloat64(float64(other))
	return o.Sub(new(big.Rat).Add(exact, exact), o)
}
