//go:build e2e_clock && linux && amd64

package clockfault

import (
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// kernelRealtime reads CLOCK_REALTIME by a system call, past the vDSO and
// past the patch.
func kernelRealtime(t *testing.T) time.Time {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 0 /* CLOCK_REALTIME */, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		t.Fatalf("clock_gettime: %v", errno)
	}
	return time.Unix(ts.Unix())
}

func TestInstallShiftsWallClockOnly(t *testing.T) {
	for _, offset := range []time.Duration{time.Hour, -time.Hour, 1500 * time.Millisecond, -1500 * time.Millisecond} {
		if err := Install(offset); err != nil {
			t.Fatal(err)
		}
		before := time.Now()
		real := kernelRealtime(t)
		if got := before.Sub(real) - offset; got < -time.Second || got > time.Second {
			t.Errorf("offset %v: time.Now is %v off the kernel's clock plus the offset", offset, got)
		}
		// The monotonic reading is untouched: a 50 ms sleep measures 50 ms
		// by Since (monotonic) and by the wall readings (stripped).
		time.Sleep(50 * time.Millisecond)
		mono, wall := time.Since(before), time.Now().Round(0).Sub(before.Round(0))
		for name, d := range map[string]time.Duration{"monotonic": mono, "wall": wall} {
			if d < 50*time.Millisecond || d > time.Second {
				t.Errorf("offset %v: a 50 ms sleep took %v by the %s clock", offset, d, name)
			}
		}
	}
	if err := Install(0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(kernelRealtime(t)); d < -time.Second || d > time.Second {
		t.Errorf("Install(0): time.Now is %v off the kernel's clock", d)
	}
}

func TestInstallFromEnvParsesSignedDurations(t *testing.T) {
	t.Setenv(EnvOffset, "+1h")
	if d, err := InstallFromEnv(); err != nil || d != time.Hour || Offset() != time.Hour {
		t.Fatalf("+1h: got %v, %v (offset %v)", d, err, Offset())
	}
	t.Setenv(EnvOffset, "an hour")
	if _, err := InstallFromEnv(); err == nil {
		t.Fatal("a malformed offset was accepted")
	}
	if err := Install(0); err != nil {
		t.Fatal(err)
	}
}
