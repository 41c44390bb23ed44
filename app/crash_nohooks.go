//go:build !testhooks

package app

// crashAt is a test-hooks build's crash point (crash_testhooks.go); a
// release build never stops there.
func crashAt(string) {}
