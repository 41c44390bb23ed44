package sqlite

import (
	"math"
	"math/big"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// Exact sum, total and avg.
//
// SQLite's own sum, total and avg add doubles in row order (with
// Kahan-Babuska-Neumaier compensation), and its integer sum fails with
// "integer overflow" when a running total leaves int64: both depend on the
// order rows are read in, which is the physical order of a table or index
// (VACUUM, a node-local ANALYZE choosing another index, or a different
// plan change it). relchain replaces them, on every connection, with
// aggregates (and window functions) that add exactly, whatever the order:
//
//   - Every value is taken as SQLite's sum takes it: NULL is skipped, a
//     value whose numeric type is INTEGER is an integer, anything else
//     counts as its REAL value (text that is no number counts as 0.0).
//   - Integers are added in a big.Int, reals in a big.Float wide enough to
//     hold any sum of doubles exactly (sumPrec bits); infinities are
//     counted apart.
//   - sum: NULL for no values; an INTEGER when every value was one, or
//     "integer overflow" when the exact total does not fit in int64 (only
//     the total: a running total that leaves int64 and comes back is
//     fine); otherwise the exact total rounded once to the nearest double.
//   - total: the exact total rounded once (0.0 for no values).
//   - avg: NULL for no values, else total / count, as SQLite divides.
//   - +Inf and -Inf give +Inf, -Inf, or NULL (NaN) when both occur.
//
// As window functions they remove rows exactly too, so a sliding window
// gives the same value as an aggregate over the same rows.

// sumPrec is enough bits to hold any sum of up to 2^64 doubles exactly:
// the span from the smallest subnormal (2^-1074) to the largest double's
// top bit (2^1023) plus 64 bits of carries.
const sumPrec = 1074 + 1024 + 64

type aggKind int

const (
	aggSum aggKind = iota
	aggTotal
	aggAvg
)

// exactSum is one group's (or window's) state.
type exactSum struct {
	kind           aggKind
	n              int64 // non-NULL values
	reals          int64 // of which not INTEGER
	ints           big.Int
	fl             big.Float
	scratch        big.Float
	posInf, negInf int64
}

func registerAggregates(c *sqlite3.Conn) error {
	const flags = sqlite3.DETERMINISTIC | sqlite3.INNOCUOUS
	for k, name := range []string{aggSum: "sum", aggTotal: "total", aggAvg: "avg"} {
		k := aggKind(k)
		if err := c.CreateWindowFunction(name, 1, flags, func() sqlite3.AggregateFunction {
			s := &exactSum{kind: k}
			s.fl.SetPrec(sumPrec)
			s.scratch.SetPrec(sumPrec)
			return s
		}); err != nil {
			return err
		}
	}
	return nil
}

// Step adds a row's value.
func (s *exactSum) Step(_ sqlite3.Context, arg ...sqlite3.Value) { s.add(arg[0], 1) }

// Inverse removes a row's value (window functions).
func (s *exactSum) Inverse(_ sqlite3.Context, arg ...sqlite3.Value) { s.add(arg[0], -1) }

func (s *exactSum) add(v sqlite3.Value, sign int64) {
	t := v.NumericType()
	if t == sqlite3.NULL {
		return
	}
	s.n += sign
	if t == sqlite3.INTEGER {
		s.scratchInt(v.Int64(), sign)
		return
	}
	s.reals += sign
	f := v.Float()
	switch {
	case math.IsInf(f, 1):
		s.posInf += sign
	case math.IsInf(f, -1):
		s.negInf += sign
	case math.IsNaN(f):
		// SQLite never stores NaN (it becomes NULL); nothing to add.
	default:
		s.scratch.SetFloat64(f)
		if sign < 0 {
			s.fl.Sub(&s.fl, &s.scratch)
		} else {
			s.fl.Add(&s.fl, &s.scratch)
		}
	}
}

func (s *exactSum) scratchInt(i int64, sign int64) {
	var x big.Int
	x.SetInt64(i)
	if sign < 0 {
		s.ints.Sub(&s.ints, &x)
	} else {
		s.ints.Add(&s.ints, &x)
	}
}

// Value sets the aggregate's current result.
func (s *exactSum) Value(ctx sqlite3.Context) {
	if s.n == 0 {
		if s.kind == aggTotal {
			ctx.ResultFloat(0)
		} else {
			ctx.ResultNull()
		}
		return
	}
	if s.kind == aggSum && s.reals == 0 {
		if !s.ints.IsInt64() {
			ctx.ResultError(errIntegerOverflow)
			return
		}
		ctx.ResultInt64(s.ints.Int64())
		return
	}
	r, ok := s.real()
	if !ok {
		ctx.ResultNull() // +Inf and -Inf: NaN, which SQLite stores as NULL
		return
	}
	if s.kind == aggAvg {
		r /= float64(s.n)
	}
	ctx.ResultFloat(r)
}

// real is the exact total rounded once to a double; false for NaN.
func (s *exactSum) real() (float64, bool) {
	switch {
	case s.posInf > 0 && s.negInf > 0:
		return 0, false
	case s.posInf > 0:
		return math.Inf(1), true
	case s.negInf > 0:
		return math.Inf(-1), true
	}
	var t big.Float
	t.SetPrec(sumPrec)
	t.SetInt(&s.ints)
	t.Add(&t, &s.fl)
	f, _ := t.Float64()
	return f, true
}

var errIntegerOverflow = integerOverflow{}

// integerOverflow is SQLite's own message for sum() past int64.
type integerOverflow struct{}

func (integerOverflow) Error() string { return "integer overflow" }
