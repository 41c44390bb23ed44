package pgcatalog

import (
	"fmt"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// registerAggregates registers array_agg, string_agg, bool_and and
// bool_or: NULL over no rows, as in PostgreSQL.
func registerAggregates(db *sqlite3.Conn) error {
	aggs := []struct {
		name string
		nArg int
		make func() sqlite3.AggregateFunction
	}{
		{"array_agg", 1, func() sqlite3.AggregateFunction { return &arrayAgg{} }},
		{"string_agg", 2, func() sqlite3.AggregateFunction { return &stringAgg{} }},
		{"bool_and", 1, func() sqlite3.AggregateFunction { return &boolAgg{and: true} }},
		{"bool_or", 1, func() sqlite3.AggregateFunction { return &boolAgg{} }},
	}
	for _, a := range aggs {
		if err := db.CreateWindowFunction(a.name, a.nArg, 0, a.make); err != nil {
			return fmt.Errorf("register %s: %w", a.name, err)
		}
	}
	return nil
}

// arrayAgg collects its input in order into a JSON array.
type arrayAgg struct{ vals []any }

func (a *arrayAgg) Step(_ sqlite3.Context, arg ...sqlite3.Value) {
	v := value(arg[0])
	if arg[0].Type() == sqlite3.TEXT && strings.HasPrefix(arg[0].Text(), "[") {
		if inner, err := decodeArray(arg[0].Text()); err == nil {
			v = inner // an array of arrays
		}
	}
	a.vals = append(a.vals, v)
}

func (a *arrayAgg) Value(ctx sqlite3.Context) {
	if a.vals == nil {
		ctx.ResultNull()
		return
	}
	ctx.ResultText(encodeArray(a.vals))
}

// stringAgg joins its non-NULL inputs, each after the first preceded by
// its separator.
type stringAgg struct {
	b   strings.Builder
	any bool
}

func (s *stringAgg) Step(_ sqlite3.Context, arg ...sqlite3.Value) {
	if arg[0].Type() == sqlite3.NULL {
		return
	}
	if s.any && arg[1].Type() != sqlite3.NULL {
		s.b.WriteString(arg[1].Text())
	}
	s.any = true
	s.b.WriteString(arg[0].Text())
}

func (s *stringAgg) Value(ctx sqlite3.Context) {
	if !s.any {
		ctx.ResultNull()
		return
	}
	ctx.ResultText(s.b.String())
}

// boolAgg is bool_and (and) or bool_or over its non-NULL inputs.
type boolAgg struct {
	and, seen, acc bool
}

func (b *boolAgg) Step(_ sqlite3.Context, arg ...sqlite3.Value) {
	if arg[0].Type() == sqlite3.NULL {
		return
	}
	v := arg[0].Bool()
	switch {
	case !b.seen:
		b.acc = v
	case b.and:
		b.acc = b.acc && v
	default:
		b.acc = b.acc || v
	}
	b.seen = true
}

func (b *boolAgg) Value(ctx sqlite3.Context) {
	if !b.seen {
		ctx.ResultNull()
		return
	}
	ctx.ResultBool(b.acc)
}
