package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/relchain/relchain/backend"
)

// errDescribeReturning is Describe's answer for MariaDB's RETURNING.
var errDescribeReturning = &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
	Message: "the columns of INSERT, REPLACE or DELETE ... RETURNING cannot be described on MySQL/MariaDB without running the write"}

// Describe implements backend.Describer, within what go-sql-driver
// reaches. The server's prepare (COM_STMT_PREPARE) knows the result's
// column definitions, but the driver reads and discards them, keeping only
// the parameter count; so:
//
//   - Params: the server prepares the statement (parse and name
//     resolution, nothing executed) on the internal pool, whose account
//     may prepare writes the reader account may not; one unknown type per
//     parameter, as the protocol gives no parameter types.
//   - Columns of a read (SELECT, WITH, VALUES, TABLE): the statement runs
//     as Query runs it (the gate, the readers' read-only consistent
//     snapshot, max_statement_time) with every parameter NULL, and the
//     column definitions are taken from the result's header; rows the
//     NULLs still select are not read (the connection is dropped rather
//     than drained). An expression's type may differ with NULL
//     arguments from what real arguments give.
//   - Writes and DDL return no rows: Columns empty, nothing run.
//     MariaDB's RETURNING does return rows, whose columns only a run
//     would tell: ClassNotImplemented rather than a wrong answer.
//
// A PostgreSQL catalog query (pgcatalog.Wants, catalogText) is described by the
// emulated catalog (catalogDescribe), before the gate, as Query answers it.
func (b *Backend) Describe(ctx context.Context, sql string) (*backend.Description, error) {
	if b.opts.pg {
		return b.describePostgres(ctx, sql)
	}
	if text, ok := catalogText(sql); ok {
		return b.catalogDescribe(ctx, text)
	}
	st, err := b.verdict.gated(sql)
	if err != nil {
		return nil, b.syntaxFirst(ctx, st, err)
	}
	if st.returning {
		return nil, errDescribeReturning
	}
	params, err := b.paramCount(ctx, st.text)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn, height, err := b.snapshot(ctx, b.readers)
	if err != nil {
		return nil, fmt.Errorf("mysql: describe: %w", err)
	}
	defer b.endSnapshot(conn)
	d := &backend.Description{Height: height, Params: make([]string, params)}
	if !st.read {
		return d, nil
	}
	if d.Columns, err = resultColumns(ctx, conn, st.text, params, cancel); err != nil {
		if be := asBackendError(err); be != nil {
			return nil, be
		}
		return nil, fmt.Errorf("mysql: describe: %w", err)
	}
	return d, nil
}

// paramCount prepares text on the server and returns its parameter count.
func (b *Backend) paramCount(ctx context.Context, text string) (int, error) {
	conn, err := b.internal.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("mysql: describe: %w", err)
	}
	defer conn.Close()
	n := 0
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot prepare", dc)
		}
		stmt, err := pc.PrepareContext(ctx, text)
		if err != nil {
			return err
		}
		n = stmt.NumInput()
		return stmt.Close()
	})
	if err != nil {
		if be := asBackendError(err); be != nil {
			return 0, be
		}
		return 0, fmt.Errorf("mysql: describe: prepare: %w", err)
	}
	return n, nil
}

// resultColumns runs the read text with params NULL arguments on conn and
// returns its columns; cancel drops the connection when rows remain.
func resultColumns(ctx context.Context, conn *sql.Conn, text string, params int, cancel func()) ([]backend.ColumnType, error) {
	rows, err := conn.QueryContext(ctx, text, make([]any, params)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	if rows.Next() {
		cancel() // the driver drops the connection instead of reading the rest
	}
	types := columnTypes(cts)
	cols := make([]backend.ColumnType, len(cts))
	for i, ct := range cts {
		cols[i] = backend.ColumnType{Name: ct.Name(), Type: types[i]}
	}
	return cols, nil
}
