package protocol

import (
	"errors"
	"slices"
	"testing"
)

// The build-time override can only lower the versions a binary runs; a
// malformed one means version 1 only.
func TestMaxOverrideOnlyLowers(t *testing.T) {
	defer func(old string) { maxVersionOverride = old }(maxVersionOverride)
	for _, c := range []struct {
		override string
		want     uint64
	}{{"", Latest}, {"1", V1}, {"2", V2}, {"99", V1}, {"0", V1}, {"x", V1}} {
		maxVersionOverride = c.override
		if got := Max(); got != c.want {
			t.Errorf("override %q: Max %d, want %d", c.override, got, c.want)
		}
	}
	maxVersionOverride = "1"
	restore := SetMaxForTest(Latest)
	if Max() != V1 {
		t.Errorf("SetMaxForTest raised the build's maximum to %d", Max())
	}
	restore()
	if Supported(V2) || !Supported(V1) || Supported(0) || !slices.Equal(Versions(), []uint64{1}) {
		t.Errorf("a version-1 build: Supported(2)=%v Supported(1)=%v Versions %v", Supported(V2), Supported(V1), Versions())
	}
}

func TestUnsupportedErrorNamesTheRelease(t *testing.T) {
	defer SetMaxForTest(V1)()
	err := error(&UnsupportedError{Version: 2, Height: 40, Release: "0.1.0"})
	want := "this chain runs protocol version 2 from height 40; this binary (relchain 0.1.0, protocol versions 1) cannot apply it: install a relchain that supports version 2"
	if err.Error() != want || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("%v (Is ErrUnsupported: %v), want %q", err, errors.Is(err, ErrUnsupported), want)
	}
}
