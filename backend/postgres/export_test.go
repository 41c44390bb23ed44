package postgres

// WithoutGate turns the gate off, for tests (withoutGate).
func WithoutGate() Option { return withoutGate() }

// WithTruncatedChanges is withTruncatedChanges, for BenchmarkCapture.
func WithTruncatedChanges() Option { return withTruncatedChanges() }
