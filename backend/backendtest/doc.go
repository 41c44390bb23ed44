// Package backendtest is the conformance suite and benchmark that every
// backend.Backend runs unchanged:
//
//	func TestConformance(t *testing.T) { backendtest.Run(t, openForTest, spelling) }
//	func BenchmarkBlock(b *testing.B)  { backendtest.BenchmarkBlock(b, openForBench) }
//
// The suite names no database. Placeholders ($1 in the suite's text) are
// rewritten as package dialect says for the backend's Dialect; what else
// differs between databases (a few type names, a refused statement, the
// catalog's type names, identifier quotes) each backend's own test passes
// to Run as its Spelling.
package backendtest
