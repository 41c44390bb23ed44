package sqlite

import (
	"context"
	"fmt"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// dryRun lets Analyze see what the authorizer only sees once DDL has
// run (DEFAULT expressions, view and trigger bodies: see vetSchema). A
// client's CREATE TABLE / VIEW / TRIGGER or ALTER TABLE is executed, inside
// a savepoint that is always rolled back, on a private in-memory database
// holding a copy of the committed schema (no rows), and vetted there with
// the same code as on the writer. The copy is rebuilt when a block that
// changed the schema has committed. It only ever adds refusals at CheckTx;
// the writer's verdict in the block is the authoritative one.
type dryRun struct {
	mu       sync.Mutex
	c        *sqlite3.Conn
	rw       *rewriter // never evaluated (DDL on an empty copy runs no client expression)
	g        gate
	internal bool
	vetted   map[string]string
	gen      int64
	scratch  *scratch
}

func (d *dryRun) ddl() ddlConn {
	return ddlConn{c: d.c, g: &d.g, internal: &d.internal, vetted: d.vetted, scratch: d.scratch}
}

func (d *dryRun) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closeConn()
}

func (d *dryRun) closeConn() {
	if d.c != nil {
		d.c.Close()
		d.c = nil
		d.rw.close()
	}
}

// isDDLKind reports statement kinds vetSchema may refuse after they ran.
func isDDLKind(k sqlite3.AuthorizerActionCode) bool {
	switch k {
	case sqlite3.AUTH_CREATE_TABLE, sqlite3.AUTH_CREATE_VIEW, sqlite3.AUTH_CREATE_TRIGGER, sqlite3.AUTH_ALTER_TABLE:
		return true
	}
	return false
}

// dryRunDDL returns the gate's refusal of sql, a DDL statement, or nil.
// Any other failure (the object exists, a table is missing, the copy could
// not be built) is no verdict at CheckTx: the block decides.
func (b *Backend) dryRunDDL(ctx context.Context, sql string, gen int64) error {
	d := &b.dry
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.c == nil || d.gen != gen {
		if err := b.rebuildDryRun(ctx, gen); err != nil {
			return nil
		}
	}
	d.internal = true
	err := d.c.Exec("SAVEPOINT relchain_dry")
	d.internal = false
	if err != nil {
		d.closeConn()
		return nil
	}
	defer func() {
		d.internal = true
		if err := d.c.Exec("ROLLBACK TO relchain_dry; RELEASE relchain_dry"); err != nil {
			d.closeConn()
		}
		d.internal = false
	}()
	ddl := d.ddl()
	stmt, err := prepareGated(d.c, &d.g, sql)
	if err != nil {
		return nil // Analyze prepared it under the same gate already
	}
	defer stmt.Close()
	if altered := d.g.altered; altered != "" {
		if err := ddl.dropCapture(altered); err != nil {
			return nil
		}
	}
	d.g.reset()
	if _, err := run(stmt, nil, resultLimits{}); err != nil {
		if e := backend.AsError(d.g.gateError(err)); e != nil && e.Class == backend.ClassPermission && d.g.reason != "" {
			return e
		}
		return nil
	}
	if err := ddl.vetSchema(); err != nil {
		if e := backend.AsError(err); e != nil && e.Class == backend.ClassPermission {
			return e
		}
	}
	return nil
}

// rebuildDryRun copies the committed schema (every object but SQLite's
// own, in creation order) into a fresh in-memory database.
func (b *Backend) rebuildDryRun(ctx context.Context, gen int64) error {
	d := &b.dry
	d.closeConn()
	r, err := b.reader(ctx)
	if err != nil {
		return err
	}
	var ddl []string
	st, _, err := r.Prepare(`SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err == nil {
		for st.Step() {
			ddl = append(ddl, st.ColumnText(0))
		}
		err = st.Err()
		st.Close()
	}
	b.release(r)
	if err != nil {
		return err
	}
	c, err := sqlite3.OpenFlags(":memory:", sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_MEMORY|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return err
	}
	rw := newRewriter()
	if err := initConn(c, rw, b.opts.pg); err != nil {
		c.Close()
		rw.close()
		return err
	}
	for _, s := range ddl {
		if err := c.Exec(s); err != nil {
			c.Close()
			rw.close()
			return fmt.Errorf("copy schema: %s: %w", s, err)
		}
	}
	d.c, d.rw, d.gen, d.g, d.scratch = c, rw, gen, gate{modules: b.wgate.modules, off: b.opts.noGate, runtime: b.wgate.runtime}, &b.scratch
	if err := c.SetAuthorizer(func(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
		if d.internal {
			return sqlite3.AUTH_OK
		}
		return d.g.check(action, name3rd, name4th, schema, inner)
	}); err != nil {
		d.closeConn()
		return err
	}
	d.internal = true
	d.vetted, err = d.ddl().schemaObjects()
	d.internal = false
	if err != nil {
		d.closeConn()
	}
	return err
}
