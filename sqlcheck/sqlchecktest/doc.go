// Package sqlchecktest holds the gate corpora's shared file format: each
// dialect's unit tests keep a table of statements with the verdict the gate
// must reach, export it as a JSON file beside them (kept current by a golden
// test), and the black-box network tests in test/ read that file to send the
// same statements to a real network over RPC. It also holds the tests every
// text gate runs against the text gates' contract (package sqlcheck):
// corpus, cache, analysis, fuzz and benchmark drivers, parameterised by the
// gate's functions and its dialect's corpus. It depends on the standard
// library and package sqlcheck only (no database), so black-box tests may
// import it.
package sqlchecktest
