package app

import (
	"errors"
	"testing"

	"github.com/cometbft/cometbft/libs/log"
)

// HaltReason shows the first halt without taking it from Halted, from
// before the error is returned to CometBFT: the divergence watcher reads
// it when consensus ends, while Start's watcher delivers Halted.
func TestHaltReasonIsTheFirstHaltAndLeavesHalted(t *testing.T) {
	a := New(nil, log.NewNopLogger())
	if a.HaltReason() != nil {
		t.Fatal("a fresh app reports a halt")
	}
	first, second := errors.New("disk full"), errors.New("later")
	if got := a.halt(first); got != first {
		t.Fatalf("halt returned %v", got)
	}
	a.halt(second)
	if got := a.HaltReason(); got != first {
		t.Errorf("HaltReason %v, want the first halt %v", got, first)
	}
	select {
	case got := <-a.Halted():
		if got != first {
			t.Errorf("Halted delivered %v, want %v", got, first)
		}
	default:
		t.Error("HaltReason took the reason from Halted")
	}
}
