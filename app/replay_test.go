package app

import (
	"strings"
	"testing"
)

func TestReplayWindow(t *testing.T) {
	var s replayState
	for _, n := range []uint64{5, 3, 4, 10, 7} {
		if why := s.check(n); why != "" {
			t.Fatalf("new nonce %d refused: %s", n, why)
		}
		s.mark(n)
	}
	for _, n := range []uint64{5, 3, 4, 10, 7} {
		if why := s.check(n); !strings.Contains(why, "already executed") {
			t.Fatalf("replayed nonce %d: %q, want already executed", n, why)
		}
	}
	for _, n := range []uint64{6, 8, 9, 11, 1} {
		if why := s.check(n); why != "" {
			t.Fatalf("unused nonce %d refused: %s", n, why)
		}
	}
	if why := s.check(0); why == "" {
		t.Fatal("nonce 0 accepted")
	}
	// Move far ahead: old nonces fall out of the window and become too old.
	s.mark(10 + ReplayWindow + 70)
	if why := s.check(10); !strings.Contains(why, "too old") {
		t.Fatalf("nonce far below the window: %q, want too old", why)
	}
	if why := s.check(10 + ReplayWindow + 69); why != "" {
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
		if got := s.check(n) != ""; got != used {
			t.Fatalf("nonce %d: refused=%v, want %v", n, got, used)
		}
	}
}
