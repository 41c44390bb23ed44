//go:build !race

package sqlchecktest

// raceDetector is set in builds with -race (make race).
const raceDetector = false
