package backendtest

import "runtime"

// GateHeldWhile reports whether a read gate was ever found held (try
// failed) before done closed: the caller starts a read that must wait for
// something (a pooled connection held by the test) without holding the
// gate, and try is the backend's TryPublish. It returns once done closes.
func GateHeldWhile(done <-chan struct{}, try func() (unlock func(), ok bool)) bool {
	held := false
	for {
		select {
		case <-done:
			return held
		default:
		}
		if unlock, ok := try(); ok {
			unlock()
		} else {
			held = true
		}
		runtime.Gosched()
	}
}
