package sqlite

// SetWorkLimit lowers b's work limit, for tests only (the fuzzer must not
// spend 10^8 instructions, instrumented, on every unbounded statement it
// tries). Production code has no way to change WorkLimit.
func SetWorkLimit(b *Backend, units int64) { b.workLimit = units }

// SetHeapLimit sets the writer's SQLite hard heap limit (0: none), for
// tests only: it makes SQLite run out of memory on demand.
func SetHeapLimit(b *Backend, n int64) { b.w.HardHeapLimit(n) }

// SetReadHeapLimit sets every read connection's SQLite hard heap limit (0:
// none), for tests only. No query may be running.
func SetReadHeapLimit(b *Backend, n int64) {
	for r := range b.restricted {
		r.HardHeapLimit(n)
	}
}
