// Package racetest marks the tests whose work is long and runs in one
// stream (a benchmark's setup loaded block after block, a generator run
// over its full scale): the race detector, which slows such work five to
// ten times, has nothing there to find that shorter tests of the same
// code do not. Heavy skips such a test under -race; make test runs it
// without the detector, and CI, whose unit pass is the race pass, runs it
// in the step after (scripts/test.sh finds the tests that call Heavy).
package racetest
