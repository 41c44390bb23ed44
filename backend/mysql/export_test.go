package mysql

import (
	"context"
	"database/sql"
)

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

// TryPublish takes b's read gate as a parallel block's Commit does, if it
// is free now.
func TryPublish(b *Backend) (unlock func(), ok bool) { return b.laneGate.TryPublish() }

// HoldInternal takes every connection of b's internal pool until release.
func HoldInternal(ctx context.Context, b *Backend) (release func(), err error) {
	var conns []*sql.Conn
	release = func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for len(conns) < b.internal.Stats().MaxOpenConnections {
		c, err := b.internal.Conn(ctx)
		if err != nil {
			release()
			return nil, err
		}
		conns = append(conns, c)
	}
	return release, nil
}
