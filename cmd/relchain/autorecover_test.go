package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/node"
)

// Automatic recovery gives up when the node diverges again at a height it
// already recovered from, and reports a recovery that fails; either way
// the error is the divergence report plus the reason.
func TestRecoverAndRestartGivesUp(t *testing.T) {
	home := filepath.Join(t.TempDir(), "missing")
	d := &node.DivergenceError{Height: 10, Expected: []byte{1}, Local: []byte{2}, SameResults: true}

	t.Setenv(recoveredAtEnv, "10")
	err := recoverAndRestart(context.Background(), home, d)
	if err == nil || !errors.Is(err, d) || !strings.Contains(err.Error(), "giving up: this node already recovered from a divergence at height 10 and diverged again at height 10") {
		t.Fatalf("the same height twice: %v", err)
	}
	t.Setenv(recoveredAtEnv, "12")
	if err := recoverAndRestart(context.Background(), home, d); err == nil || !strings.Contains(err.Error(), "giving up") {
		t.Fatalf("a lower height after a recovery: %v", err)
	}

	t.Setenv(recoveredAtEnv, "9")
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if err := recoverAndRestart(stopped, home, d); err == nil || !errors.Is(err, d) || !strings.Contains(err.Error(), "not recovering: the node was asked to stop") {
		t.Fatalf("asked to stop: %v", err)
	}
	err = recoverAndRestart(context.Background(), home, d)
	if err == nil || !errors.Is(err, d) || !strings.Contains(err.Error(), "automatic recovery failed: ") || !strings.Contains(err.Error(), "no node at") {
		t.Fatalf("a recovery that fails: %v", err)
	}
}

func TestWithoutEnv(t *testing.T) {
	got := withoutEnv([]string{"A=1", recoveredAtEnv + "=5", "B=2", recoveredAtEnv + "X=3"}, recoveredAtEnv)
	if strings.Join(got, " ") != "A=1 B=2 "+recoveredAtEnv+"X=3" {
		t.Fatalf("withoutEnv: %v", got)
	}
}
