// Package pgclass answers, with PostgreSQL's own parser (libpg_query,
// cgo), the two questions the gateway asks about a statement's text to
// pick its path: is it a read of PostgreSQL's catalogs only
// (Classifier.CatalogOnly), and is it one plain INSERT, UPDATE or DELETE
// that returns no rows (Classifier.PlainWrite). Classifier implements
// gateway.Classifier; whoever starts a gateway (the node's in-process
// listener, `relchain gateway`) passes it in gateway.Config.Classifier, so
// package gateway itself links no parser and no cgo
// (internal/lint: client-side packages link no driver, parser, backend or
// cgo).
//
// # Why here
//
// Not in package gateway or below it: gateway/... is the client side and
// must stay parser-free. Not in backend/postgres/pggate, which parses the
// same text for the block gate: that is a backend package, which the
// black-box tests in test/ may not import and which the gateway command
// need not link; these questions route a client's statement, they judge
// nothing for consensus. Beside sqlcheck/prescan, which every text passes
// here before the parser sees it (internal/lint: parser calls behind the
// pre-scan).
//
// # Policy
//
// Both questions FAIL CLOSED: a text beyond the pre-scan's bounds, one
// the parser refuses, more than one statement, or a construct the walk
// does not accept answers false, which keeps the gateway on its ordinary
// path (the gate's refusal, the node's error). Both are pure functions of
// the text.
package pgclass
