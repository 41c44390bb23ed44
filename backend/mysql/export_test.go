package mysql

// WithDDLHook sets a hook run at the stages of every DDL statement
// ("before": recovery record committed, DDL not run; "after": DDL and
// capture triggers done, the block's db-transaction not reopened). An
// error from it fails the statement as a node fault, as a crash there
// would.
func WithDDLHook(f func(stage string) error) Option {
	return func(o *options) { o.ddlHook = f }
}

// IsTxResult reports whether server error number n is taken as the
// statement's own (deterministic) failure rather than a node fault.
func IsTxResult(n uint16) bool {
	_, _, ok := classOf(n)
	return ok
}

// WithoutGate turns the gate off, for tests (withoutGate).
func WithoutGate() Option { return withoutGate() }
