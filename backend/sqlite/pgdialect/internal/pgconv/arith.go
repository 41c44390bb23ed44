package pgconv

import "math"

// IntOp is PostgreSQL's checked integer operator op (+ - * / %) on a and
// b of the integer type typ: overflow 22003, division by zero 22012.
func IntOp(op byte, a, b int64, typ string) (int64, error) {
	r, err := intOp(op, a, b)
	if err == errOverflow {
		return 0, OutOfRange(typ)
	}
	if err != nil {
		return 0, err
	}
	return r, CheckInt(typ, r)
}

var (
	errOverflow = &Error{Code: "22003", Message: "overflow"}
	errDivZero  = &Error{Code: "22012", Message: "division by zero"}
)

func intOp(op byte, a, b int64) (int64, error) {
	switch op {
	case '+':
		r := a + b
		if (a > 0 && b > 0 && r < 0) || (a < 0 && b < 0 && r >= 0) {
			return 0, errOverflow
		}
		return r, nil
	case '-':
		r := a - b
		if (a >= 0 && b < 0 && r < 0) || (a < 0 && b > 0 && r >= 0) {
			return 0, errOverflow
		}
		return r, nil
	case '*':
		return mulInt(a, b)
	}
	if b == 0 {
		return 0, errDivZero
	}
	if op == '%' {
		if b == -1 {
			return 0, nil
		}
		return a % b, nil
	}
	if a == math.MinInt64 && b == -1 {
		return 0, errOverflow
	}
	return a / b, nil
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

// IntAbs is abs on the integer type typ.
func IntAbs(a int64, typ string) (int64, error) {
	if a == math.MinInt64 {
		return 0, OutOfRange(typ)
	}
	if a < 0 {
		a = -a
	}
	return a, CheckInt(typ, a)
}

// FloatOp is PostgreSQL's float4 (single) or float8 operator op (+ - * /):
// overflow and underflow 22003, division by zero 22012; a NaN result is
// refused (SQLite would store it as NULL).
func FloatOp(op byte, a, b float64, single bool) (float64, error) {
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
			return 0, errDivZero
		}
		r = a / b
	}
	if single {
		r = float64(float32(r))
	}
	switch {
	case math.IsNaN(r):
		return 0, Unsupported("NaN")
	case math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0):
		return 0, &Error{Code: "22003", Message: "value out of range: overflow"}
	case r == 0 && (op == '*' && a != 0 && b != 0 || op == '/' && a != 0 && !math.IsInf(b, 0)):
		return 0, &Error{Code: "22003", Message: "value out of range: underflow"}
	}
	return r, nil
}
