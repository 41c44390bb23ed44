// Package backendtest is the conformance suite and benchmark that every
// backend.Backend runs unchanged:
//
//	func TestConformance(t *testing.T) { backendtest.Run(t, openForTest) }
//	func BenchmarkBlock(b *testing.B)  { backendtest.BenchmarkBlock(b, openForBench) }
//
// The suite's SQL is dialect-neutral; placeholders ($1 in the suite's text)
// and the few type names that differ (BLOB, DOUBLE) are rewritten for the
// backend's Dialect.
package backendtest
