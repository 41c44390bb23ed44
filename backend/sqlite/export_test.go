package sqlite

// SetWorkLimit lowers b's work limit, for tests only (the fuzzer must not
// spend 10^8 instructions, instrumented, on every unbounded statement it
// tries). Production code has no way to change WorkLimit.
func SetWorkLimit(b *Backend, units int64) { b.workLimit = units }
