package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

// probeSavepoint is the savepoint a read inside the block runs in.
const probeSavepoint = "relchain_probe"

var _ backend.BlockReader = ctxBlock{}

// ReadInBlock implements backend.BlockReader (a rehearsal's probe): sql
// gets Query's verdict and text (syntaxCache.readable: the read gate
// pggate.CheckRead, its substitution of catalogs filtered of relchain's
// objects, one read-only query) and runs on the writer's session after
// the block's statements, in one round trip:
//
//	SAVEPOINT relchain_probe; SET LOCAL transaction_read_only = on;
//	SET LOCAL statement_timeout = <the query timeout>; <read text>
//
// and then ROLLBACK TO and RELEASE of the savepoint, whatever happened:
// the settings end with it and the block's db-transaction is as before
// (a failed read included). Its rows are bounded as a query's are
// (WithQueryLimits) and sorted unless the query orders them.
//
// The writer's role, unlike the reader's, may read relchain's schema; the
// read gate refuses every reference to it, as it does on the query path,
// and the read-only transaction setting refuses any write the gate would
// have missed. The writer cannot switch to the reader's role (checkRole
// refuses a role that is a member of another).
func (c ctxBlock) ReadInBlock(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: read in block: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	rows, err := c.block.readInBlock(driverCtx, sql, args)
	stop()
	return rows, withCtx(ctx, err)
}

func (k *block) readInBlock(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	st, err := k.b.syntax.readable(sql)
	if err != nil {
		return nil, err
	}
	values, oids, formats, err := encodeArgs(args)
	if err != nil {
		return nil, err
	}
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	switch {
	case k.done:
		return nil, errBlockDone
	case k.aborted:
		return nil, errors.New("postgres: read in block: the block's db-transaction is aborted")
	}
	if err := k.flush(ctx); err != nil {
		return nil, err
	}
	pc := k.conn.PgConn()
	prefix := []string{"SAVEPOINT " + probeSavepoint, "SET LOCAL transaction_read_only = on"}
	if ms := k.b.opts.queryTimeout.Milliseconds(); ms > 0 {
		prefix = append(prefix, fmt.Sprintf("SET LOCAL statement_timeout = %d", ms))
	}
	batch := &pgconn.Batch{}
	for _, p := range prefix {
		batch.ExecParams(p, nil, nil, nil, nil)
	}
	batch.ExecParams(st.readText, values, oids, formats, nil)
	mrr := pc.ExecBatch(ctx, batch)
	bound := &resultBound{maxRows: k.b.opts.maxQueryRows, maxBytes: k.b.opts.maxQueryBytes}
	var rows *backend.Rows
	for i := 0; err == nil && mrr.NextResult(); i++ {
		rr := mrr.ResultReader()
		if i < len(prefix) {
			_, err = rr.Close()
			continue
		}
		types, mods := fieldTypes(rr.FieldDescriptions())
		if rows, err = collectBounded(rr, !st.ordered, bound); err == nil {
			rows.Types, rows.Typmods = types, mods
		}
	}
	if cerr := mrr.Close(); err == nil {
		err = cerr
	}
	if err == nil && rows == nil {
		err = errors.New("postgres: read in block: the server returned fewer results than statements sent")
	}
	if _, rbErr := pc.Exec(ctx, "ROLLBACK TO SAVEPOINT "+probeSavepoint+"; RELEASE SAVEPOINT "+probeSavepoint).ReadAll(); rbErr != nil {
		k.aborted = true
		return nil, fmt.Errorf("postgres: read in block: roll back its savepoint: %w", rbErr)
	}
	if err == nil {
		return rows, nil
	}
	if e := backend.AsError(err); e != nil {
		return nil, e // the row or size bound
	}
	var pgErr *pgconn.PgError
	if ctx.Err() != nil || !errors.As(err, &pgErr) || nodeFault(pgErr.Code) {
		return nil, fmt.Errorf("postgres: read in block: %w", err)
	}
	return nil, asBackendError(err)
}
