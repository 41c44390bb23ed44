package pgruntime

import (
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// registerJSON installs the json and jsonb functions (pgdialect's
// json.go emits their calls; the semantics live in pgconv).
func registerJSON(c *sqlite3.Conn) error {
	fns := []struct {
		name string
		args int
		fn   sqlite3.ScalarFunction
	}{
		{"pg_jsonb_key", 1, jsonbKey},
		{"pg_json_get", 4, jsonGet},
		{"pg_jsonb_op", 3, jsonbOp},
		{"pg_json_fn", 3, jsonFn},
		{"pg_json_build", -1, jsonBuild},
	}
	for _, f := range fns {
		if err := c.CreateFunction(f.name, f.args, pure, f.fn); err != nil {
			return err
		}
	}
	return nil
}

// jsonbKey is pg_jsonb_key(jsonb): the equality key (pgconv.JSONBKey).
func jsonbKey(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[0].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	k, err := pgconv.JSONBKey(args[0].Text())
	result(ctx, k, err)
}

// jsonGet is pg_json_get(kind, op, doc, key): -> ->> #> #>> on a json
// ('json') or jsonb ('jsonb') value.
func jsonGet(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[2].Type() == sqlite3.NULL || args[3].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	out, err := pgconv.JSONGet(args[0].Text() == "jsonb", args[1].Text(), args[2].Text(), goValue(args[3]))
	result(ctx, out, err)
}

// jsonbOp is pg_jsonb_op(op, l, r): @> <@ ? ?| ?& on jsonb.
func jsonbOp(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[1].Type() == sqlite3.NULL || args[2].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	r, err := pgconv.JSONBOp(args[0].Text(), args[1].Text(), args[2].Text())
	if err != nil {
		result(ctx, nil, err)
		return
	}
	ctx.ResultBool(r)
}

// jsonFn is pg_json_fn(name, kind, doc): typeof and array_length.
func jsonFn(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[2].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	jsonb := args[1].Text() == "jsonb"
	if args[0].Text() == "typeof" {
		s, err := pgconv.JSONTypeof(jsonb, args[2].Text())
		result(ctx, s, err)
		return
	}
	n, err := pgconv.JSONArrayLength(jsonb, args[2].Text())
	result(ctx, n, err)
}

// jsonBuild is pg_json_build(kind, shape, type1, value1, ...): json(b)
// _build_object ('object'), _build_array ('array') and to_json(b)
// ('value', one pair, NULL for NULL).
func jsonBuild(ctx sqlite3.Context, args ...sqlite3.Value) {
	if len(args) < 2 || len(args)%2 != 0 {
		ctx.ResultError(runtimeError("XX000", "pg_json_build: %d arguments", len(args)))
		return
	}
	jsonb, shape := args[0].Text() == "jsonb", args[1].Text()
	var vals []any
	var types []string
	for i := 2; i < len(args); i += 2 {
		types = append(types, args[i].Text())
		vals = append(vals, goValue(args[i+1]))
	}
	if shape == "value" {
		if len(vals) != 1 || vals[0] == nil {
			ctx.ResultNull()
			return
		}
		s, err := pgconv.ToJSON(vals[0], types[0])
		if err == nil && jsonb {
			s, err = canonicalJSONB(s)
		}
		result(ctx, s, err)
		return
	}
	s, err := pgconv.JSONBuild(jsonb, shape == "object", vals, types)
	result(ctx, s, err)
}

func canonicalJSONB(s string) (string, error) {
	v, err := pgconv.ParseJSON(s, true)
	if err != nil {
		return "", err
	}
	return v.JSONBText(), nil
}
