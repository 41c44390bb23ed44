package pgruntime

import (
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// Param converts a parameter's value for placeholder type t
// (Translation.Params) to the value to bind: a string is the parameter's
// text form, read by t's input function as PostgreSQL reads a text-format
// parameter ("12" for int4 is 12, "t" for bool is 1, "\x01" for bytea a
// blob, a timestamptz its canonical UTC text); int64, float64, bool and
// []byte are checked and converted as PostgreSQL's binary parameters
// would be. Errors carry the SQLSTATE in the runtime's message convention
// (SQLState).
func Param(t pgdialect.Type, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int:
		v = int64(x)
	case int64:
		if t.Name == "int8" {
			return x, nil // Convert's int8 to int8: in range, as it is
		}
	case bool:
		if t.Name != "bool" {
			return nil, runtimeError("22P02", "a boolean value for a parameter of type %s", pgconv.Label(t.Name))
		}
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	}
	var src string
	switch v.(type) {
	case int64:
		src = "int8"
	case float64:
		src = "float8"
	case []byte:
		src = "bytea"
	case string:
		src = "text"
	default:
		return nil, runtimeError("22P02", "a %T value for a parameter of type %s", v, pgconv.Label(t.Name))
	}
	if _, ok := pgconv.CastContext(src, t.Name); !ok {
		return nil, runtimeError("22P02", "a %s value for a parameter of type %s", pgconv.Label(src), pgconv.Label(t.Name))
	}
	out, err := pgconv.Convert(v, src, t.Name, t.Typmod, pgconv.Assignment)
	return out, fromConv(err)
}
