// Package pgconv holds PostgreSQL's value conversions as the postgres
// dialect on SQLite stores values: the input functions of the supported
// types (text to int4, bool, date, timestamptz ...), the casts between
// them and the range checks, on the Go values SQLite stores (nil, int64,
// float64, string, []byte). The translator uses it to coerce literals at
// translation time and the runtime functions (pgruntime) at execution
// time, so a literal and a parameter convert alike. Every error is an
// *Error carrying PostgreSQL's SQLSTATE.
package pgconv
