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

// CatalogSchemaReads is how often b's emulated catalog read the schema.
func CatalogSchemaReads(b *Backend) int {
	c := b.catalog()
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	return c.reads
}

// AgeCatalog makes b's cached catalog older than catalogMaxAge.
func AgeCatalog(b *Backend) {
	c := b.catalog()
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	c.readAt = c.readAt.Add(-2 * catalogMaxAge)
}

// LanePrefix is the prefix of database db's lane XA ids.
func LanePrefix(db string) string { return lanePrefix(db) }

// SetLaneCommitHook sets the function a parallel block's Commit calls at
// each of its crash points (laneCommitStep), for tests that die there.
func SetLaneCommitHook(f func(step string, lane int)) { laneCommitHook = f }
