package app

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func TestReplayWindow(t *testing.T) {
	var s replayState
	for _, n := range []uint64{5, 3, 4, 10, 7} {
		if why := s.check(n, time.Time{}); why != "" {
			t.Fatalf("new nonce %d refused: %s", n, why)
		}
		s.mark(n)
	}
	for _, n := range []uint64{5, 3, 4, 10, 7} {
		if why := s.check(n, time.Time{}); !strings.Contains(why, "already executed") {
			t.Fatalf("replayed nonce %d: %q, want already executed", n, why)
		}
	}
	for _, n := range []uint64{6, 8, 9, 11, 1} {
		if why := s.check(n, time.Time{}); why != "" {
			t.Fatalf("unused nonce %d refused: %s", n, why)
		}
	}
	if why := s.check(0, time.Time{}); why == "" {
		t.Fatal("nonce 0 accepted")
	}
	// Move far ahead: old nonces fall out of the window and become too old.
	s.mark(10 + ReplayWindow + 70)
	if why := s.check(10, time.Time{}); !strings.Contains(why, "too old") {
		t.Fatalf("nonce far below the window: %q, want too old", why)
	}
	if why := s.check(10+ReplayWindow+69, time.Time{}); why != "" {
		t.Fatalf("unused nonce inside the window refused: %s", why)
	}
	// Round trip through the stored form.
	d, err := decodeReplayState(s.encode())
	if err != nil || *d != s {
		t.Fatalf("decode(encode) = %+v, %v", d, err)
	}
}

func TestReplayWindowShiftKeepsBitsAcrossWords(t *testing.T) {
	var s replayState
	for n := uint64(1); n <= 200; n += 3 {
		s.mark(n)
	}
	s.mark(300)
	for n := uint64(1); n <= 200; n++ {
		used := (n-1)%3 == 0
		if got := s.check(n, time.Time{}) != ""; got != used {
			t.Fatalf("nonce %d: refused=%v, want %v", n, got, used)
		}
	}
}

func TestReplayWindowRefusesNoncesFarAhead(t *testing.T) {
	var s replayState
	if why := s.check(math.MaxUint64, time.Time{}); !strings.Contains(why, "too far ahead") {
		t.Fatalf("nonce 2^64-1 of a new key: %q, want too far ahead", why)
	}
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	first := uint64(clock.UnixNano()) + 1 // client.Client's first nonce
	if why := (*replayState)(nil).check(first, clock); why != "" {
		t.Fatalf("a new key's clock-based first nonce: %s", why)
	}
	if why := s.check(MaxNonceStep, time.Time{}); why != "" {
		t.Fatalf("nonce at Max+MaxNonceStep: %s", why)
	}
	if why := s.check(MaxNonceStep+1, time.Time{}); !strings.Contains(why, "too far ahead") {
		t.Fatalf("nonce past Max+MaxNonceStep: %q", why)
	}
	s.mark(math.MaxUint64 - 5) // a window already near the top (an old chain): no overflow
	if why := s.check(math.MaxUint64, clock); why != "" {
		t.Fatalf("nonce 2^64-1 within MaxNonceStep of Max: %s", why)
	}
}

// A "too old" refusal names the key's executed nonce in the form the
// client's signer reads to re-sign above it (client.ExecutedNonce).
func TestReplayTooOldNamesTheExecutedNonceForSigners(t *testing.T) {
	var s replayState
	const max = 1796166725430575943
	s.mark(max)
	why := s.check(max-ReplayWindow-5, time.Time{})
	// The form client.ExecutedNonce parses (its own test holds it to this
	// text; app does not import client).
	if want := fmt.Sprintf("this key has executed nonce %d", uint64(max)); !strings.Contains(why, want) {
		t.Fatalf("the refusal %q does not say %q", why, want)
	}
}
