package sqlite

import (
	"context"
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pggate"
)

// Describe implements backend.Describer. It compiles sql on a read
// connection, inside a read transaction on committed state, and never
// steps it: SQLite's compiled statement knows its parameter count, its
// columns' names and their declared types (declaredType), and nothing a
// run would add.
//
// A column without a declaration (an expression such as count(*)) is
// reported unknown, not typed by stepping the statement once: the first
// row's storage class is not the column's type (it may be NULL, or differ
// from the next row's), it depends on the parameters (unknown here) and on
// the data, and one step may cost as much as the whole query (an
// aggregate scans its table). Query, which has the rows, does type such
// columns by their values (valueTypes). Parameters are unknown too: SQLite
// does not type them.
//
// The statement is compiled first as Query compiles it (the read
// authorizer: reads only, relchain's tables hidden), and when that refuses
// it (a write), under the gate, as CheckTx judges a block's statement:
// INSERT, UPDATE and DELETE ... RETURNING are describable, relchain's
// tables are not, and what the gate refuses comes back as its refusal.
func (b *Backend) Describe(ctx context.Context, sql string) (*backend.Description, error) {
	rctx, cancel := b.readContext(ctx)
	defer cancel()
	select {
	case b.querySlots <- struct{}{}:
		defer func() { <-b.querySlots }()
	case <-rctx.Done():
		return nil, b.readInterrupted(ctx, rctx.Err())
	}
	r, err := b.reader(rctx)
	if err != nil {
		return nil, b.readInterrupted(ctx, err)
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		return nil, fmt.Errorf("describe: begin: %w", err)
	}
	defer closeQuietly(func() error { return rc.exec("ROLLBACK") })
	st, err := rc.state()
	if err != nil {
		return nil, err
	}
	if b.opts.pg {
		return b.describePostgres(r, sql, st.Height)
	}
	f := newFuel(rctx, ReadWorkLimit)
	old := r.SetInterrupt(f)
	stmt, err := b.compileForDescribe(r, sql)
	r.SetInterrupt(old)
	switch {
	case f.cancelled != nil:
		if stmt != nil {
			stmt.Close()
		}
		return nil, b.readInterrupted(ctx, f.cancelled)
	case err != nil:
		return nil, err
	}
	defer stmt.Close()
	d := &backend.Description{Height: st.Height, Params: make([]string, stmt.BindCount())}
	for i, t := range declaredTypes(stmt) {
		d.Columns = append(d.Columns, backend.ColumnType{Name: stmt.ColumnName(i), Type: t})
	}
	return d, nil
}

// compileForDescribe compiles sql on the read connection r under the read
// authorizer, or, when that fails, under the gate (see Describe). The
// caller closes the statement, which is never cached: the read cache holds
// only what the read authorizer compiled.
func (b *Backend) compileForDescribe(r *sqlite3.Conn, sql string) (*sqlite3.Stmt, error) {
	restricted := b.restricted[r]
	restricted.Store(true)
	stmt, err := prepareOne(r, sql)
	restricted.Store(false)
	if err == nil {
		return stmt, nil
	}
	if e := backend.AsError(err); e != nil && (e.Class == backend.ClassSyntax || e.Class == backend.ClassInvalid) {
		return nil, err
	}
	rg := b.gating[r]
	rg.on.Store(true)
	defer rg.on.Store(false)
	return prepareGated(r, &rg.g, sql)
}

// describePostgres is Describe in the postgres dialect, on the read
// connection r inside its read transaction: a catalog query's description
// by the catalog Engine (pgcatalog.go), else PostgreSQL's read policy for a
// query (its gate for any other statement), the translation on committed
// state, whose Params and Columns are the description, and SQLite's
// compile of a one-statement translation under the same authorizers as in
// the sqlite dialect (a backstop: what they refuse is refused).
func (b *Backend) describePostgres(r *sqlite3.Conn, sql string, height int64) (*backend.Description, error) {
	if isCatalogQuery(sql) {
		return b.catalogDescribe(r, sql, height)
	}
	if err := catalogRead(sql); err != nil {
		return nil, err
	}
	if _, ok := parseSetConstraints(sql); ok {
		return describeSetConstraints(height), nil
	}
	read, err := pggate.CheckRead(sql)
	if err != nil {
		return nil, pgGateError(err)
	}
	tr, err := translateOn(r, read.Text, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(tr.Statements) == 1 {
		stmt, err := b.compileForDescribe(r, tr.Statements[0])
		if err != nil {
			return nil, err
		}
		stmt.Close()
	}
	return describeTranslation(tr, height), nil
}
