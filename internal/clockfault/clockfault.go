//go:build e2e_clock && linux && amd64

package clockfault

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// EnvOffset names the environment variable InstallFromEnv reads: a signed
// Go duration such as "+1h" or "-90m".
const EnvOffset = "RELCHAIN_E2E_CLOCK_OFFSET"

// realNow is the runtime's reading of CLOCK_REALTIME and CLOCK_MONOTONIC
// (the vDSO), which runtimeNow calls unpatched.
//
//go:linkname realNow time.now
func realNow() (sec int64, nsec int32, mono int64)

var (
	offsetNanos atomic.Int64
	patchOnce   sync.Once
	patchErr    error
	// The closure the patch jumps through: a package variable, so that
	// it lives as long as the process.
	skewedFunc = skewedNow
	nowFunc    = time.Now
)

// Install shifts every wall-clock reading of the process by offset from
// now on; Install(0) puts the true clock back (the patch stays, adding
// nothing). Monotonic readings are not shifted.
func Install(offset time.Duration) error {
	patchOnce.Do(func() { patchErr = patch() })
	if patchErr != nil {
		return patchErr
	}
	offsetNanos.Store(int64(offset))
	return nil
}

// InstallFromEnv installs the offset EnvOffset names, if it is set, and
// returns it.
func InstallFromEnv() (time.Duration, error) {
	s := os.Getenv(EnvOffset)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w", EnvOffset, s, err)
	}
	if err := Install(d); err != nil {
		return 0, err
	}
	return d, nil
}

// Offset is the offset in force.
func Offset() time.Duration { return time.Duration(offsetNanos.Load()) }

// skewedNow replaces runtimeNow: the real readings, the wall one shifted.
func skewedNow() (sec int64, nsec int32, mono int64) {
	sec, nsec, mono = realNow()
	off := offsetNanos.Load()
	ns := int64(nsec) + off%1e9
	sec += off / 1e9
	switch {
	case ns < 0:
		ns += 1e9
		sec--
	case ns >= 1e9:
		ns -= 1e9
		sec++
	}
	return sec, int32(ns), mono
}

// runtimeNowName is the symbol time.Now calls for its readings (the
// runtime's time_runtimeNow, declared in package time without a body, so
// no caller can inline it): the function patch overwrites. The linker
// refuses a //go:linkname reference to it, so findRuntimeNow finds it as
// the target of a call in time.Now's code.
const runtimeNowName = "time.runtimeNow"

// findRuntimeNow scans the first bytes of time.Now for a CALL rel32 (E8)
// whose target is the entry of the function named runtimeNowName. A byte
// E8 that is not a call cannot pass that test. (The call comes within
// time.Now's first few instructions; the bytes scanned are text either
// way.)
func findRuntimeNow() (unsafe.Pointer, error) {
	const scan = 128
	code := **(**unsafe.Pointer)(unsafe.Pointer(&nowFunc))
	text := unsafe.Slice((*byte)(code), scan)
	for i := 0; i+5 <= len(text); i++ {
		if text[i] != 0xE8 {
			continue
		}
		rel := int32(binary.LittleEndian.Uint32(text[i+1 : i+5]))
		target := unsafe.Add(code, i+5+int(rel))
		if f := runtime.FuncForPC(uintptr(target)); f != nil && f.Entry() == uintptr(target) && f.Name() == runtimeNowName {
			return target, nil
		}
	}
	return nil, fmt.Errorf("clockfault: no call to %s in the first %d bytes of time.Now", runtimeNowName, scan)
}

// patch writes over runtimeNow's first instructions
//
//	MOVQ $closure, DX  (48 BA imm64)
//	JMP  (DX)          (FF 22)
//
// which enters skewedNow as a call of its closure would (DX holds the
// closure in Go's calling convention); the caller's return address stays
// on the stack, so skewedNow returns straight to time.Now.
func patch() error {
	closure := *(*unsafe.Pointer)(unsafe.Pointer(&skewedFunc))
	target, err := findRuntimeNow()
	if err != nil {
		return err
	}
	code := make([]byte, 12)
	code[0], code[1] = 0x48, 0xBA
	binary.LittleEndian.PutUint64(code[2:10], uint64(uintptr(closure)))
	code[10], code[11] = 0xFF, 0x22

	page := uintptr(syscall.Getpagesize())
	start := unsafe.Add(target, -int(uintptr(target)%page))
	span := int((uintptr(target)%page + uintptr(len(code)) + page - 1) / page * page)
	pages := unsafe.Slice((*byte)(start), span)
	if err := syscall.Mprotect(pages, syscall.PROT_READ|syscall.PROT_WRITE|syscall.PROT_EXEC); err != nil {
		return fmt.Errorf("clockfault: make time.runtimeNow writable: %w", err)
	}
	copy(unsafe.Slice((*byte)(target), len(code)), code)
	if err := syscall.Mprotect(pages, syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
		return fmt.Errorf("clockfault: protect time.runtimeNow again: %w", err)
	}
	return nil
}
