//go:build !race

package racetest

// Enabled reports whether the build has the race detector (-race).
const Enabled = false
