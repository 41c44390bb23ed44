// Package pghistory recognises the history relation of a PostgreSQL read,
// relchain_history('table'[, from_height]) in a FROM clause (issue 36, item
// 5), and replaces it with a relation the node builds from its row
// history: the node's read path (app/history_relation.go) reads the
// table's versions and hands back a SELECT of literal rows, which takes
// the call's place (with its alias) in the statement's tree before the
// statement goes to the backend like any other read.
//
// The name is the node's, on reads only: a block never sees a rewritten
// text, and a statement of a bc-transaction that names relchain_history
// is the database's (which has no such function).
package pghistory
