//go:build race

package sqlite_test

// raceDetector is set when the tests run with -race (make race).
const raceDetector = true
