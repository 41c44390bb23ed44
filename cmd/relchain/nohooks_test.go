//go:build !testhooks

package main

import (
	"strings"
	"testing"
)

// The release binary has no relchain debug: debug tamper (SQL run on a
// validator's database outside the chain) exists in a test-hooks build
// only (debug_testhooks.go). Asking for it fails as an unknown command.
func TestReleaseBuildHasNoDebugTamper(t *testing.T) {
	root := rootCmd()
	for _, c := range root.Commands() {
		if c.Name() == "debug" {
			t.Fatalf("the default build has a %q command", c.CommandPath())
		}
	}
	root.SetArgs([]string{"debug", "tamper", "--home", t.TempDir(), "--sql", "SELECT 1"})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), `unknown command "debug"`) {
		t.Fatalf("relchain debug tamper in a default build: %v, want an unknown command", err)
	}
}
