package pgruntime

import (
	"errors"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// An array is stored as PostgreSQL's array text (pgconv.FormatArray), its
// elements as their output texts; these functions read and write it.

// registerArrays installs the array functions and pg_array_agg.
func registerArrays(c *sqlite3.Conn) error {
	fns := []struct {
		name string
		args int
		fn   sqlite3.ScalarFunction
	}{
		{"pg_array_make", -1, arrayMake},
		{"pg_array_get", 3, arrayGet},
		{"pg_array_fn", 3, arrayFn},
		{"pg_array_any", 3, arrayAny},
		{"pg_array_op", 3, arrayOp},
		{"pg_array_to_string", 3, arrayToString},
		{"pg_array_edit", 4, arrayEdit},
	}
	for _, f := range fns {
		if err := c.CreateFunction(f.name, f.args, pure, f.fn); err != nil {
			return err
		}
	}
	return c.CreateWindowFunction("pg_array_agg", 2, pure, func() sqlite3.AggregateFunction { return &arrayAgg{} })
}

// elements reads a stored array.
func elements(v sqlite3.Value) ([]*string, error) {
	return pgconv.ParseArrayText(v.Text())
}

// elemText is an element's output text from its stored value (nil for
// NULL).
func elemText(v sqlite3.Value, elem string) (*string, error) {
	x := goValue(v)
	if x == nil {
		return nil, nil
	}
	s, err := pgconv.ElemText(x, elem)
	return &s, err
}

// arrayMake is pg_array_make(elem, v1, ... vn): ARRAY[v1, ... vn].
func arrayMake(ctx sqlite3.Context, args ...sqlite3.Value) {
	elem := args[0].Text()
	out := make([]*string, 0, len(args)-1)
	for _, a := range args[1:] {
		s, err := elemText(a, elem)
		if err != nil {
			result(ctx, nil, err)
			return
		}
		out = append(out, s)
	}
	ctx.ResultText(pgconv.FormatArray(out))
}

// arrayGet is pg_array_get(arr, i, elem): arr[i], NULL out of range.
func arrayGet(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[0].Type() == sqlite3.NULL || args[1].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	elems, err := elements(args[0])
	i := args[1].Int64()
	if err != nil || i < 1 || i > int64(len(elems)) || elems[i-1] == nil {
		result(ctx, nil, err)
		return
	}
	v, err := pgconv.ElemValue(*elems[i-1], args[2].Text())
	result(ctx, v, err)
}

// arrayFn is pg_array_fn(name, arr, dim): array_length, array_upper,
// array_lower (of dimension dim) and cardinality.
func arrayFn(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[1].Type() == sqlite3.NULL || args[2].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	elems, err := elements(args[1])
	if err != nil {
		result(ctx, nil, err)
		return
	}
	n := int64(len(elems))
	switch name := args[0].Text(); {
	case name == "cardinality":
		ctx.ResultInt64(n)
	case n == 0 || args[2].Int64() != 1:
		ctx.ResultNull()
	case name == "array_lower":
		ctx.ResultInt64(1)
	default:
		ctx.ResultInt64(n)
	}
}

// arrayAny is pg_array_any(x, arr, elem): x = ANY(arr) — true when an
// element equals x, else NULL when x or an element is NULL, else false
// (an empty array is false).
func arrayAny(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[1].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	elems, err := elements(args[1])
	if err != nil {
		result(ctx, nil, err)
		return
	}
	x, err := elemText(args[0], args[2].Text())
	if err != nil {
		result(ctx, nil, err)
		return
	}
	sawNull := false
	for _, e := range elems {
		switch {
		case e == nil || x == nil:
			sawNull = true
		case *e == *x:
			ctx.ResultInt64(1)
			return
		}
	}
	if sawNull {
		ctx.ResultNull()
		return
	}
	ctx.ResultInt64(0)
}

// arrayOp is pg_array_op(op, a, b): a @> b (every non-NULL element of b
// is in a; a NULL element of b is in nothing), a <@ b, a && b (a common
// non-NULL element).
func arrayOp(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[1].Type() == sqlite3.NULL || args[2].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	a, errA := elements(args[1])
	b, errB := elements(args[2])
	if errA != nil || errB != nil {
		result(ctx, nil, errors.Join(errA, errB))
		return
	}
	var r bool
	switch args[0].Text() {
	case "@>":
		r = contains(a, b)
	case "<@":
		r = contains(b, a)
	default:
		r = overlaps(a, b)
	}
	ctx.ResultBool(r)
}

func contains(a, b []*string) bool {
	for _, y := range b {
		if y == nil || !member(a, *y) {
			return false
		}
	}
	return true
}

func overlaps(a, b []*string) bool {
	for _, y := range b {
		if y != nil && member(a, *y) {
			return true
		}
	}
	return false
}

func member(a []*string, s string) bool {
	for _, x := range a {
		if x != nil && *x == s {
			return true
		}
	}
	return false
}

// arrayToString is pg_array_to_string(arr, delim, nullText):
// array_to_string, NULL elements skipped when nullText is NULL.
func arrayToString(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[0].Type() == sqlite3.NULL || args[1].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	elems, err := elements(args[0])
	if err != nil {
		result(ctx, nil, err)
		return
	}
	var parts []string
	for _, e := range elems {
		switch {
		case e != nil:
			parts = append(parts, *e)
		case args[2].Type() != sqlite3.NULL:
			parts = append(parts, args[2].Text())
		}
	}
	ctx.ResultText(strings.Join(parts, args[1].Text()))
}

// arrayAgg is pg_array_agg(x, elem): array_agg, NULL inputs kept as
// NULL elements, NULL for no rows.
type arrayAgg struct {
	elems []*string
	n     int
	err   error
}

func (a *arrayAgg) Step(ctx sqlite3.Context, arg ...sqlite3.Value) {
	if a.err != nil {
		return
	}
	s, err := elemText(arg[0], arg[1].Text())
	a.elems, a.err = append(a.elems, s), err
	a.n++
}

func (a *arrayAgg) Value(ctx sqlite3.Context) {
	switch {
	case a.err != nil:
		ctx.ResultError(fromConv(a.err))
	case a.n == 0:
		ctx.ResultNull()
	default:
		ctx.ResultText(pgconv.FormatArray(a.elems))
	}
}

// arrayEdit is pg_array_edit(op, arr, x, elem): array_append (op
// append), array_prepend (prepend), array_cat and || of two arrays (cat:
// x is an array), array_remove (remove: every element equal to x, NULL
// removing NULLs) and array_position (position: the first index of x,
// NULL matching NULL).
func arrayEdit(ctx sqlite3.Context, args ...sqlite3.Value) {
	op, elem := args[0].Text(), args[3].Text()
	if op == "cat" {
		arrayCat(ctx, args[1], args[2])
		return
	}
	x, err := elemText(args[2], elem)
	var a []*string
	if err == nil && args[1].Type() != sqlite3.NULL {
		a, err = elements(args[1])
	}
	if err != nil {
		result(ctx, nil, err)
		return
	}
	if args[1].Type() == sqlite3.NULL && op != "append" && op != "prepend" {
		ctx.ResultNull()
		return
	}
	switch op {
	case "append":
		ctx.ResultText(pgconv.FormatArray(append(a, x)))
	case "prepend":
		ctx.ResultText(pgconv.FormatArray(append([]*string{x}, a...)))
	case "remove":
		kept := []*string{}
		for _, e := range a {
			if !sameElem(e, x) {
				kept = append(kept, e)
			}
		}
		ctx.ResultText(pgconv.FormatArray(kept))
	default:
		for i, e := range a {
			if sameElem(e, x) {
				ctx.ResultInt64(int64(i + 1))
				return
			}
		}
		ctx.ResultNull()
	}
}

// sameElem is IS NOT DISTINCT FROM between two elements' texts.
func sameElem(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// arrayCat is array_cat(a, b): NULL when both are, else the elements of
// both.
func arrayCat(ctx sqlite3.Context, a, b sqlite3.Value) {
	var out []*string
	for _, v := range []sqlite3.Value{a, b} {
		if v.Type() == sqlite3.NULL {
			continue
		}
		e, err := elements(v)
		if err != nil {
			result(ctx, nil, err)
			return
		}
		out = append(out, e...)
	}
	if a.Type() == sqlite3.NULL && b.Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	ctx.ResultText(pgconv.FormatArray(out))
}
