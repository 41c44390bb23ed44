// Package longtest marks the tests of unit packages that are really
// networks or soaks: the benchmark lab's end-to-end checks and the e2e
// runner's in-process manifest. make test (the fast loop) skips them and
// says so; make test-e2e runs them (RELCHAIN_LONG_TESTS=1), finding them
// by their call of Require (scripts/test.sh).
package longtest
