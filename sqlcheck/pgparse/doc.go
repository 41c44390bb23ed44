// Package pgparse parses PostgreSQL statement texts with libpg_query once
// for all the passes that read them: in the postgres dialect on SQLite a
// new statement text is parsed by PostgreSQL's gate (backend/postgres/pggate)
// and again by the translation (backend/sqlite/pgdialect), and libpg_query's
// parse, a cgo call that also encodes the tree as protobuf, is most of
// either's cost.
//
// Parse returns what pg_query.Parse returns, a tree decoded afresh from the
// protobuf encoding libpg_query produced for the text, so every caller owns
// its tree and may change it (the gate's rewrites do). The encodings of the
// texts parsed last are kept, by text: the encoding is a pure function of
// the text (and of the pg_query_go version, fixed per protocol version),
// so what the cache holds never changes an answer, on any node. Texts must
// have passed sqlcheck/prescan (package lint checks every caller).
package pgparse
