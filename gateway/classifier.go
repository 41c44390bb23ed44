package gateway

import "errors"

// Classifier answers the two questions about a statement's PostgreSQL
// text that take a parser to answer safely. Package gateway links no
// parser (libpg_query is cgo; internal/lint keeps the client side free of
// drivers, parsers and cgo), so whoever starts a gateway passes one in
// Config.Classifier: sqlcheck/pgclass.Classifier, libpg_query behind the
// pre-scan, which the node's listener and `relchain gateway` pass, or
// Conservative. Both methods must be pure functions of the text, safe
// for concurrent use, and answer false when unsure (fail closed).
type Classifier interface {
	// CatalogOnly reports whether sql, one PostgreSQL SELECT, reads no
	// user data: every relation it names is a catalog of PostgreSQL
	// (pg_catalog.x, information_schema.x, an unqualified pg_x) or a WITH
	// query in scope, and every function it calls is built in. A
	// transaction's statement that the block gate refused answers on the
	// read path only if this is true (DESIGN.md, Catalog reads inside
	// transactions): a true for a read of user data would take that
	// read out of the transaction's validation.
	CatalogOnly(sql string) bool
	// PlainWrite reports whether sql is one INSERT, UPDATE or DELETE
	// without RETURNING and without WITH: a statement that returns no
	// rows. After the transaction's own DDL, Describe answers such a
	// statement itself when the node does not know its table yet
	// (describeAfterDDL): a true for a statement that returns rows would
	// describe it with no result columns.
	PlainWrite(sql string) bool
}

// Conservative is the Classifier that parses nothing: no statement is
// catalog-only and none is a plain write. A gateway given it keeps every
// guarantee and loses two conveniences: inside a transaction a read of
// PostgreSQL's catalogs that the block gate refuses stays refused
// (SQLAlchemy's dialect probe, knex's hasTable inside a transaction
// fail), and Describe of a write into a table the transaction created
// keeps the node's 42P01/42703 (knex's insert after its migration's
// CREATE TABLE fails). For gateways of networks whose clients need
// neither, and for tests that do not exercise them.
type Conservative struct{}

// CatalogOnly is false: nothing is known to read catalogs only.
func (Conservative) CatalogOnly(string) bool { return false }

// PlainWrite is false: nothing is known to return no rows.
func (Conservative) PlainWrite(string) bool { return false }

// errNoClassifier refuses a Config without a Classifier: going without
// the parser's answers must be chosen (Conservative), not fallen into.
var errNoClassifier = errors.New("gateway: Config.Classifier is nil: pass sqlcheck/pgclass.Classifier{} (PostgreSQL's parser) or gateway.Conservative{} (no catalog reads inside transactions, no Describe after the transaction's DDL)")

// classifier is g's Classifier; a Gateway not made by Start (this
// package's tests) has Conservative's.
func (g *Gateway) classifier() Classifier {
	if g.classify == nil {
		return Conservative{}
	}
	return g.classify
}
