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
		// The kernel's clock read just before and just after brackets
		// the patched time.Now, shifted by exactly the offset.
		k1 := kernelRealtime(t)
		before := time.Now()
		k2 := kernelRealtime(t)
		if shifted := before.Round(0).Add(-offset); shifted.Before(k1) || shifted.After(k2) {
			t.Errorf("offset %v: time.Now minus the offset is %v, outside the kernel's %v..%v", offset, shifted, k1, k2)
		}
		// The monotonic reading is untouched: a 50 ms sleep measures at
		// least 50 ms by Since (monotonic) and by the wall readings
		// (stripped), and the two agree far closer than the offset.
		time.Sleep(50 * time.Millisecond)
		mono, wall := time.Since(before), time.Now().Round(0).Sub(before.Round(0))
		if mono < 50*time.Millisecond || wall < 50*time.Millisecond || (wall-mono).Abs() >= offset.Abs()/2 {
			t.Errorf("offset %v: a 50 ms sleep took %v by the monotonic clock and %v by the wall clock", offset, mono, wall)
		}
	}
	if err := Install(0); err != nil {
		t.Fatal(err)
	}
	k1 := kernelRealtime(t)
	now := time.Now().Round(0)
	k2 := kernelRealtime(t)
	if now.Before(k1) || now.After(k2) {
		t.Errorf("Install(0): time.Now %v is outside the kernel's %v..%v", now, k1, k2)
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
