package sqlite

import (
	"errors"
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// readQueries bounds each read connection's cache of compiled queries.
const readQueries = 64

// readCache keeps a read connection's statements compiled across queries:
// Query's BEGIN, ROLLBACK and height read, and clients' queries by text.
// Compiling a 3-table join costs tens of microseconds, more than running
// it, and a read-heavy client sends the same few texts again and again.
//
// The cache holds statements compiled on one schema version only: Query
// reads the version in its read transaction (schemaVersion) and empties the
// cache when it moved. SQLite would recompile a stale statement by itself,
// but only inside the first Step, after run read the column names and
// count: a cached "SELECT *" would then drop a column added since.
//
// A cached query was compiled under the read authorizer (restricted, see
// authorizeRead) and only ever runs under it, so when SQLite recompiles it
// after a schema change, the same authorizer judges it again. A query that
// failed is not kept. Statements are reset after every use, so a cached one
// holds no read snapshot between queries (checkpoints can proceed).
type readCache struct {
	c       *sqlite3.Conn
	policy  *readPolicy // the connection's read policy (its refusals' reasons)
	stmts   map[string]*sqlite3.Stmt
	order   []string
	control map[string]*sqlite3.Stmt // BEGIN, ROLLBACK, readState's, the schema version's
	ver     int64                    // the schema version stmts were compiled on
}

func newReadCache(c *sqlite3.Conn, policy *readPolicy) *readCache {
	return &readCache{c: c, policy: policy, stmts: make(map[string]*sqlite3.Stmt), control: make(map[string]*sqlite3.Stmt), ver: -1}
}

// sync empties the cache of queries when the schema version seen by the
// open read transaction differs from the one they were compiled on.
func (rc *readCache) sync() error {
	st, err := rc.own("PRAGMA schema_version")
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	v, err := schemaVersionOf(st, -1)
	if err != nil {
		return err
	}
	if v != rc.ver {
		for _, st := range rc.stmts {
			st.Close()
		}
		clear(rc.stmts)
		rc.order = rc.order[:0]
		rc.ver = v
	}
	return nil
}

// exec runs one of Query's own statements (BEGIN, ROLLBACK).
func (rc *readCache) exec(sql string) error {
	st, err := rc.own(sql)
	if err != nil {
		return err
	}
	return st.Exec()
}

func (rc *readCache) own(sql string) (*sqlite3.Stmt, error) {
	if st := rc.control[sql]; st != nil {
		return st, nil
	}
	st, _, err := rc.c.Prepare(sql)
	if err != nil {
		return nil, err
	}
	rc.control[sql] = st
	return st, nil
}

// state reads the committed height and AppHash, as readState does.
func (rc *readCache) state() (backend.State, error) {
	st, err := rc.own(stateSQL)
	if err != nil {
		return backend.State{}, fmt.Errorf("read state: %w", err)
	}
	var s backend.State
	if st.Step() {
		s.Height = st.ColumnInt64(0)
		s.AppHash = st.ColumnBlob(1, nil)
	}
	err = st.Err()
	if rerr := st.Reset(); err == nil {
		err = rerr
	}
	if err != nil {
		return backend.State{}, fmt.Errorf("read state: %w", err)
	}
	return s, nil
}

// query returns the compiled statement for a client's text, from the cache
// or compiled now (prepareOne: exactly one statement). The caller hands it
// back with done.
func (rc *readCache) query(sql string) (*sqlite3.Stmt, error) {
	if st := rc.stmts[sql]; st != nil {
		return st, nil
	}
	st, err := prepareOne(rc.c, sql)
	if err != nil {
		return nil, rc.policy.explain(err)
	}
	if len(rc.order) >= readQueries {
		old := rc.order[0]
		rc.order = rc.order[1:]
		rc.stmts[old].Close()
		delete(rc.stmts, old)
	}
	rc.stmts[sql] = st
	rc.order = append(rc.order, sql)
	return st, nil
}

// done resets st after a run; a statement that failed (or must not run
// here) leaves the cache.
// Resetting or closing a statement that ran out of memory reports it again
// (the driver panics): that is recovered here, the statement dropped.
func (rc *readCache) done(sql string, st *sqlite3.Stmt, failed bool) {
	rerr := closeQuietly(func() error {
		rerr := st.Reset()
		if cerr := st.ClearBindings(); rerr == nil {
			rerr = cerr
		}
		return rerr
	})
	if !failed && rerr == nil {
		return
	}
	closeQuietly(st.Close)
	delete(rc.stmts, sql)
	for i, s := range rc.order {
		if s == sql {
			rc.order = append(rc.order[:i], rc.order[i+1:]...)
			break
		}
	}
}

func (rc *readCache) close() error {
	var errs []error
	for _, st := range rc.stmts {
		errs = append(errs, st.Close())
	}
	for _, st := range rc.control {
		errs = append(errs, st.Close())
	}
	rc.stmts, rc.order, rc.control = nil, nil, nil
	return errors.Join(errs...)
}
