package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// ctxBlock is the block Begin hands out: every method's error, when the
// method's context has ended, wraps the context's error (the app tells a
// deadline of a proposal's speculative execution from a database failure
// with errors.Is(err, context.DeadlineExceeded)). The running statement is
// cancelled on the server when the context ends (see cancelOnDone and
// watchStatement), so PostgreSQL reports "canceling statement due to user
// request", which names neither.
type ctxBlock struct{ *block }

var _ backend.Block = ctxBlock{}

// withCtx wraps ctx's error into err if ctx has ended and err does not
// already say so.
func withCtx(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if err == nil || cerr == nil || errors.Is(err, cerr) {
		return err
	}
	return fmt.Errorf("%w: %w", cerr, err)
}

func (c ctxBlock) Savepoint(ctx context.Context, env sqlcheck.Env) error {
	return withCtx(ctx, c.block.Savepoint(ctx, env))
}

func (c ctxBlock) Release(ctx context.Context) error {
	return withCtx(ctx, c.block.Release(ctx))
}

func (c ctxBlock) RollbackTo(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: rollback to savepoint: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	err := c.block.RollbackTo(driverCtx)
	stop()
	return withCtx(ctx, err)
}

// Exec runs the statement with its context watched by watchStatement (a
// tx's statements are the executor's hot path); a context that has already
// ended runs nothing.
func (c ctxBlock) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: exec: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	rows, err := c.block.Exec(driverCtx, sql, args)
	stop()
	return rows, withCtx(ctx, err)
}

func (c ctxBlock) ChangeDigest(ctx context.Context) (backend.Changes, error) {
	ch, err := c.block.ChangeDigest(ctx)
	return ch, withCtx(ctx, err)
}

func (c ctxBlock) StateDigest(ctx context.Context) ([]byte, error) {
	d, err := c.block.StateDigest(ctx)
	return d, withCtx(ctx, err)
}

func (c ctxBlock) SaveSystem(ctx context.Context, kv map[string][]byte) error {
	return withCtx(ctx, c.block.SaveSystem(ctx, kv))
}

func (c ctxBlock) Commit(ctx context.Context, s backend.State) error {
	return withCtx(ctx, c.block.Commit(ctx, s))
}

func (c ctxBlock) Rollback(ctx context.Context) error {
	return withCtx(ctx, c.block.Rollback(ctx))
}

var _ backend.CanonicalBlock = ctxBlock{}

// CanonicalDelta implements backend.CanonicalBlock: the change records
// ChangeDigest consumed since Begin name the keys (an image before or
// after each change), and the rows holding them now are read by key on
// the writer's session, one round trip per changed table, in a read-only
// savepoint rolled back at the end (canonRead). A block that changed the
// schema (a DDL statement's 'S' record, or the migration of the table
// sums' image format: what makes StateDigest rescan) reports
// SchemaChanged and reads nothing.
func (c ctxBlock) CanonicalDelta(ctx context.Context) (backend.CanonicalDelta, error) {
	if err := ctx.Err(); err != nil {
		return backend.CanonicalDelta{}, fmt.Errorf("postgres: canonical delta: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	d, err := c.block.canonicalDelta(driverCtx)
	stop()
	return d, withCtx(ctx, err)
}

// CanonicalTables implements backend.CanonicalBlock, on the writer's
// session in a read-only savepoint (see CanonicalDelta).
func (c ctxBlock) CanonicalTables(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: canonical tables: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	names, err := c.block.canonicalTables(driverCtx)
	stop()
	return names, withCtx(ctx, err)
}

// CanonicalTableRows implements backend.CanonicalBlock, on the writer's
// session in a read-only savepoint (see CanonicalDelta). fn must not
// call the block.
func (c ctxBlock) CanonicalTableRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: canonical table rows: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	err := c.block.canonicalTableRows(driverCtx, table, fn)
	stop()
	return withCtx(ctx, err)
}

var _ backend.CanonicalSequenceReader = ctxBlock{}

// CanonicalSequences implements backend.CanonicalSequenceReader, on the
// writer's session in a read-only savepoint (see CanonicalDelta).
func (c ctxBlock) CanonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: canonical sequences: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	seqs, err := c.block.canonicalSequences(driverCtx)
	stop()
	return seqs, withCtx(ctx, err)
}
