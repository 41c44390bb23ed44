package pggate

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Clock words in run-time casts (issue 33). PostgreSQL's date/time input
// reads the node's own clock for the words now, today, tomorrow and
// yesterday. The gate refuses them in a statement's constants (checkConst,
// checkTypeCast) and the backend in bound arguments (clockargs.go), but a
// text computed at run time reaches the same parser through an explicit
// cast: ('no' || 'w')::timestamptz, $1::text::date, s::timestamptz of a
// text column. So every explicit cast to a date/time type (date, time,
// timetz, timestamp, timestamptz, with precision or zone spelled out,
// pg_catalog.-qualified or not, arrays of them, and the range and
// multirange types over them, and a table's row type public.t, whose
// input parses each column) whose argument is neither a constant nor a
// bound parameter (nor a clock function, which becomes a literal of the
// block's time) is rewritten to cast relchain.clock_guard(argument):
//
//	s::timestamptz          relchain.clock_guard(s)::timestamptz
//	CAST(lower(x) AS date)  CAST(relchain.clock_guard(lower(x)) AS date)
//
// relchain.clock_guard (backend/postgres, clockcast.go) returns its
// argument unchanged, except that a string (text, varchar, char, name or
// an array of them) holding a clock word as a word of its own fails with
// SQLSTATE 22007. Its verdict depends on the value only, and the rewrite
// on the text only, so every node decides alike. For other argument types
// it is an inlined SQL function (SELECT v): ts::date of a timestamptz
// column plans as before.
//
// Not rewritten: the read path (a read may use 'now'), CREATE INDEX (an
// index expression must be immutable, which a text to date/time
// conversion is not, and the read path's queries must keep matching it),
// and PL/pgSQL bodies, whose text PostgreSQL stores as written: a PL/pgSQL
// cast or assignment of text to a date/time variable still reads the
// node's clock for a clock word (see "Clock words in arguments" in
// backend/postgres/DESIGN.md). The functions that parse text into
// date/time record fields (json_populate_record and the like) are not on
// the gate's allowlist.

// clockCastTypes are the target types whose input function reads a clock
// word.
var clockCastTypes = setOf("date", "time", "timetz", "timestamp", "timestamptz",
	"tsrange", "tstzrange", "daterange", "tsmultirange", "tstzmultirange", "datemultirange")

// clockCastTarget reports whether a cast to t may parse date/time input:
// a date/time type, or a table's row type (public.t), whose text input
// parses each column's ('(1,now)'::public.t): guarding every row type
// costs a false refusal of a text that says now without any date/time
// column, a rare cast.
func clockCastTarget(t *pg_query.TypeName) bool {
	names := stringsOf(t.GetNames())
	return clockCastTypes[typeName(t)] || len(names) == 2 && names[0] == "public"
}

// clockCast records a cast the rewrite guards (applied by guardClockCasts
// once the walk is done, so the walk never sees relchain's function).
func (w *walker) clockCast(tc *pg_query.TypeCast) {
	if w.policy == readPolicy || w.ctx == stmtPL || !clockCastTarget(tc.GetTypeName()) {
		return
	}
	switch tc.GetArg().GetNode().(type) {
	case *pg_query.Node_AConst, *pg_query.Node_ParamRef, nil:
		return // constants: checkTypeCast; parameters: the backend's clockargs.go
	}
	if isEnvCall(tc.GetArg()) {
		return // now()::date: the rewrite makes it a literal of the block's time
	}
	w.clockCasts = append(w.clockCasts, tc)
}

// guardClockCasts wraps the recorded casts' arguments in
// relchain.clock_guard.
func guardClockCasts(casts []*pg_query.TypeCast) {
	for _, tc := range casts {
		tc.Arg = &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
			Funcname:   []*pg_query.Node{pg_query.MakeStrNode("relchain"), pg_query.MakeStrNode("clock_guard")},
			Args:       []*pg_query.Node{tc.Arg},
			Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL,
			Location:   -1,
		}}}
	}
}
