package pgruntime

import (
	"math"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// intTypes names an integer width's type for PostgreSQL's messages.
var intTypes = map[int64]string{16: "int2", 32: "int4", 64: "int8"}

// intOp is a checked integer operator: fn computes a op b and reports
// overflow of int64; the result is then checked against the width.
func intOp(fn func(a, b int64) (int64, error)) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		if anyNull(args[:2]) {
			ctx.ResultNull()
			return
		}
		typ := intTypes[args[2].Int64()]
		if args[0].Type() != sqlite3.INTEGER || args[1].Type() != sqlite3.INTEGER {
			ctx.ResultError(runtimeError("XX000", "integer operator on a non-integer value"))
			return
		}
		r, err := fn(args[0].Int64(), args[1].Int64())
		if err == errOverflow {
			err = pgconv.OutOfRange(typ)
		}
		if err == nil {
			err = pgconv.CheckInt(typ, r)
		}
		result(ctx, r, err)
	}
}

var (
	errOverflow = &pgconv.Error{Code: "22003", Message: "overflow"}
	errDivZero  = &pgconv.Error{Code: "22012", Message: "division by zero"}
)

func addInt(a, b int64) (int64, error) {
	r := a + b
	if (a > 0 && b > 0 && r < 0) || (a < 0 && b < 0 && r >= 0) {
		return 0, errOverflow
	}
	return r, nil
}

func subInt(a, b int64) (int64, error) {
	r := a - b
	if (a >= 0 && b < 0 && r < 0) || (a < 0 && b > 0 && r >= 0) {
		return 0, errOverflow
	}
	return r, nil
}

func mulInt(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, errOverflow
	}
	return r, nil
}

// divInt truncates toward zero, as PostgreSQL's integer division.
func divInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, errDivZero
	}
	if a == math.MinInt64 && b == -1 {
		return 0, errOverflow
	}
	return a / b, nil
}

func modInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, errDivZero
	}
	if b == -1 {
		return 0, nil
	}
	return a % b, nil
}

func intAbs(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args) {
		ctx.ResultNull()
		return
	}
	typ := intTypes[args[1].Int64()]
	a := args[0].Int64()
	if a == math.MinInt64 {
		result(ctx, nil, pgconv.OutOfRange(typ))
		return
	}
	if a < 0 {
		a = -a
	}
	result(ctx, a, pgconv.CheckInt(typ, a))
}

// floatOp is a float4/float8 operator with PostgreSQL's checks: overflow
// and underflow (22003), division by zero (22012); a NaN result is
// refused (SQLite would store it as NULL).
func floatOp(op byte) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		if anyNull(args[:2]) {
			ctx.ResultNull()
			return
		}
		a, b := args[0].Float(), args[1].Float()
		r, err := floatResult(op, a, b, args[2].Int64() == 32)
		result(ctx, r, err)
	}
}

func floatResult(op byte, a, b float64, single bool) (any, error) {
	var r float64
	switch op {
	case '+':
		r = a + b
	case '-':
		r = a - b
	case '*':
		r = a * b
	case '/':
		if b == 0 {
			return nil, errDivZero
		}
		r = a / b
	}
	if single {
		r = float64(float32(r))
	}
	switch {
	case math.IsNaN(r):
		return nil, pgconv.Unsupported("NaN")
	case math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0):
		return nil, &pgconv.Error{Code: "22003", Message: "value out of range: overflow"}
	case r == 0 && (op == '*' && a != 0 && b != 0 || op == '/' && a != 0 && !math.IsInf(b, 0)):
		return nil, &pgconv.Error{Code: "22003", Message: "value out of range: underflow"}
	}
	return r, nil
}
