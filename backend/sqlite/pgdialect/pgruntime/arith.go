package pgruntime

import (
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// intTypes names an integer width's type for PostgreSQL's messages.
var intTypes = map[int64]string{16: "int2", 32: "int4", 64: "int8"}

// intOp is pg_int_<op>(a, b, bits): PostgreSQL's checked integer operator
// on the integer type of that width.
func intOp(op byte) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		if anyNull(args[:2]) {
			ctx.ResultNull()
			return
		}
		if args[0].Type() != sqlite3.INTEGER || args[1].Type() != sqlite3.INTEGER {
			ctx.ResultError(runtimeError("XX000", "integer operator on a non-integer value"))
			return
		}
		r, err := pgconv.IntOp(op, args[0].Int64(), args[1].Int64(), intTypes[args[2].Int64()])
		if err != nil {
			ctx.ResultError(fromConv(err))
			return
		}
		ctx.ResultInt64(r) // result's int64 case, without boxing r
	}
}

func intAbs(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args) {
		ctx.ResultNull()
		return
	}
	r, err := pgconv.IntAbs(args[0].Int64(), intTypes[args[1].Int64()])
	result(ctx, r, err)
}

// floatOp is pg_float_<op>(a, b, bits): PostgreSQL's float4 (bits 32) or
// float8 operator.
func floatOp(op byte) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		if anyNull(args[:2]) {
			ctx.ResultNull()
			return
		}
		r, err := pgconv.FloatOp(op, args[0].Float(), args[1].Float(), args[2].Int64() == 32)
		result(ctx, r, err)
	}
}
