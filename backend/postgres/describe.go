package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

// Describe implements backend.Describer. After the gate's verdict (for a
// read-only query, the read policy Query applies, so a query is
// describable exactly when Query would run it, catalog queries included,
// and its text with relchain's catalog rows filtered is what is prepared;
// for anything else, the verdict a block's statement gets), the statement is prepared as
// PostgreSQL's unnamed statement on a query connection, as the reader
// role, inside the query path's read-only db-transaction, and the
// transaction is rolled back. Preparing is parse analysis only: nothing
// executes, privileges are checked only when a statement runs (so a write
// the reader could not run is still described), and the locks parse
// analysis takes end with the rollback. PostgreSQL reports the exact
// parameter and result OIDs, mapped by typeName; statement_timeout bounds
// the prepare like a query.
func (b *Backend) Describe(ctx context.Context, sql string) (*backend.Description, error) {
	info, text, err := b.syntax.describable(sql)
	if err != nil {
		return nil, err
	}
	if info.forbidden != "" {
		return nil, &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: info.forbidden}
	}
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: describe: acquire connection: %w", err)
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	unlock := b.readSnapshot()
	d, err := describeIn(ctx, pc, text)
	unlock()
	if pc.TxStatus() != 'I' {
		if _, rbErr := pc.Exec(ctx, queryEnd).ReadAll(); rbErr != nil {
			conn.Conn().Close(context.Background())
		}
	}
	if err == nil {
		return d, nil
	}
	if e := asBackendError(err); e != nil {
		return nil, e
	}
	conn.Conn().Close(context.Background()) // state unknown: do not reuse
	if ctx.Err() != nil {
		return nil, fmt.Errorf("postgres: describe: %w (%w)", ctx.Err(), err)
	}
	return nil, fmt.Errorf("postgres: describe: %w", err)
}

// describeIn opens the read-only db-transaction on pc, reads the height
// and prepares sql; the caller rolls back.
func describeIn(ctx context.Context, pc *pgconn.PgConn, sql string) (*backend.Description, error) {
	batch := &pgconn.Batch{}
	batch.ExecParams(queryBegin, nil, nil, nil, nil)
	batch.ExecParams(queryHeigh, nil, nil, nil, nil)
	results, err := pc.ExecBatch(ctx, batch).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(results) != 2 {
		return nil, fmt.Errorf("begin: %d results for 2 statements", len(results))
	}
	var height int64
	if r := results[1]; len(r.Rows) == 1 && len(r.Rows[0]) == 1 {
		v, err := convertValue(r.FieldDescriptions[0].DataTypeOID, r.Rows[0][0])
		if err != nil {
			return nil, fmt.Errorf("read height: %w", err)
		}
		if height, err = heightOf(&backend.Rows{Rows: [][]any{{v}}}); err != nil {
			return nil, err
		}
	} else {
		return nil, fmt.Errorf("read height: %d rows", len(r.Rows))
	}
	sd, err := pc.Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, err
	}
	d := &backend.Description{Height: height, Params: make([]string, len(sd.ParamOIDs))}
	for i, oid := range sd.ParamOIDs {
		d.Params[i] = typeName(oid)
	}
	for _, fd := range sd.Fields {
		d.Columns = append(d.Columns, backend.ColumnType{Name: fd.Name, Type: typeName(fd.DataTypeOID), Typmod: typmodOf(fd.TypeModifier)})
	}
	return d, nil
}

// fieldTypes maps a result's field descriptions to type names and type
// modifiers (nil when no column has one).
func fieldTypes(fds []pgconn.FieldDescription) ([]string, []int32) {
	if len(fds) == 0 {
		return nil, nil
	}
	out := make([]string, len(fds))
	var mods []int32
	for i, fd := range fds {
		out[i] = typeName(fd.DataTypeOID)
		if fd.TypeModifier >= 0 && mods == nil {
			mods = make([]int32, len(fds))
			for j := range mods {
				mods[j] = -1
			}
		}
		if mods != nil {
			mods[i] = fd.TypeModifier
		}
	}
	return out, mods
}
