package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// begin opens an explicit transaction (a second BEGIN keeps the first,
// as PostgreSQL does).
func (s *session) begin(sql string) (*pgwire.Result, error) {
	if s.tx == nil {
		upper := strings.ToUpper(strings.Join(strings.Fields(stripLiterals(sql)), " "))
		if i := strings.Index(upper, "ISOLATION LEVEL "); i >= 0 {
			level := strings.ToLower(strings.TrimSpace(strings.NewReplacer(";", " ", ",", " ").Replace(upper[i+len("ISOLATION LEVEL "):])))
			for _, m := range []string{" read only", " read write", " deferrable", " not deferrable"} {
				if j := strings.Index(level, m); j >= 0 {
					level = level[:j]
				}
			}
			if _, err := checkIsolation(level); err != nil {
				return nil, err
			}
		}
		s.tx = &transaction{readOnly: strings.Contains(upper, "READ ONLY") || s.defaultReadOnly && !strings.Contains(upper, "READ WRITE"),
			saved: s.saveSettings()}
	}
	if words(sql, 1)[0] == "START" {
		return &pgwire.Result{Tag: "START TRANSACTION"}, nil
	}
	return &pgwire.Result{Tag: "BEGIN"}, nil
}

// commit ends the transaction. A failed one is rolled back; one that only
// read never reaches the chain (its reads were one snapshot: every
// rehearsal reproduced the first observations); otherwise all its
// statements go in one bc-transaction with what the client observed.
func (s *session) commit(ctx context.Context) (*pgwire.Result, error) {
	tx := s.tx
	s.tx = nil
	switch {
	case tx == nil:
		return &pgwire.Result{Tag: "COMMIT"}, nil
	case tx.failed:
		return &pgwire.Result{Tag: "ROLLBACK"}, nil
	case !tx.writes:
		return &pgwire.Result{Tag: "COMMIT"}, nil
	}
	res, err := s.g.nodes.Commit(ctx, s.user.Key, tx.stmts, tx.seen)
	if err != nil {
		return nil, writeError(err)
	}
	s.committed(res.Height, tx.ddl)
	if !res.OK() {
		return nil, txFailure(res)
	}
	return &pgwire.Result{Tag: "COMMIT"}, nil
}

// inTransaction rehearses the transaction's statements so far plus stmt
// on committed state and returns stmt's results. Any error fails the
// transaction (PostgreSQL's rule: only ROLLBACK or COMMIT ends it).
func (s *session) inTransaction(ctx context.Context, sql string, stmt txn.Statement, k kind) (*pgwire.Result, error) {
	tx := s.tx
	if tx.failed {
		return nil, &pgwire.Error{Code: stateInFailedTx, Message: "current transaction is aborted, commands ignored until end of transaction block"}
	}
	res, err := s.rehearseNext(ctx, tx, sql, stmt, k)
	if err != nil {
		tx.failed = true
		return nil, err
	}
	return res, nil
}

func (s *session) rehearseNext(ctx context.Context, tx *transaction, sql string, stmt txn.Statement, k kind) (*pgwire.Result, error) {
	if tx.readOnly && k == kindWrite {
		return nil, &pgwire.Error{Code: stateReadOnlyTx, Message: "cannot execute " + words(stmt.SQL, 1)[0] + " in a read-only transaction"}
	}
	if !tx.pinned {
		tx.height, tx.pinned = max(s.minHeight, s.lastCommit), true
	}
	if err := s.awaitHeight(ctx, tx); err != nil {
		return nil, err
	}
	stmts := append(tx.stmts[:len(tx.stmts):len(tx.stmts)], stmt)
	resp, err := s.rehearse(ctx, stmts, nil)
	if err != nil {
		return nil, nodeError(err)
	}
	if resp.Code != api.CodeOK {
		if s.catalogRead(resp, len(stmts), k, stmt.SQL) {
			return s.readInTransaction(ctx, tx, sql, stmt, resp)
		}
		return nil, rehearsalFailure(resp, len(stmts))
	}
	if len(resp.Statements) != len(stmts) {
		return nil, &pgwire.Error{Code: stateInternal, Message: fmt.Sprintf("the rehearsal returned %d results for %d statements", len(resp.Statements), len(stmts))}
	}
	for i, seen := range tx.seen {
		if !bytes.Equal(seen, resp.Statements[i].Observation) {
			return nil, conflictError(fmt.Sprintf("statement %d of the transaction now returns other results than it did (a block changed what it read)", i+1))
		}
	}
	last := resp.Statements[len(stmts)-1]
	tx.stmts, tx.seen = stmts, append(tx.seen, last.Observation)
	tx.writes = tx.writes || k == kindWrite
	tx.ddl = tx.ddl || isDDL(sql)
	return s.result(ctx, sql, last.Columns, last.Rows, last.RowsAffected)
}

// catalogRead reports a rehearsal that the block gate refused at its
// last statement, a read of catalogs only (Classifier.CatalogOnly): the gate's
// refusals of such a statement are determinism refusals (catalog values,
// object ids, session functions differ between nodes), which the read
// path does not make, so the statement is answered there instead
// (readInTransaction). A read of user data stays refused: answered
// outside the bc-transaction, it would escape the commit's validation.
func (s *session) catalogRead(resp *api.RehearseResponse, n int, k kind, sql string) bool {
	return resp.Code == api.CodeForbidden && resp.Failure != nil && resp.Failure.Statement == n &&
		k == kindRead && s.g.wire.PGCatalog && s.g.classifier().CatalogOnly(sql)
}

// readInTransaction answers a catalog read of a transaction on the read
// path, at a height of at least the transaction's snapshot height (the
// session's at its first statement). It does not join the bc-transaction
// or its observations: it is not validated at commit. After the
// transaction changed the schema the read path cannot see the change: the
// read is then the rehearsal's probe (probeInTransaction).
func (s *session) readInTransaction(ctx context.Context, tx *transaction, sql string, stmt txn.Statement, resp *api.RehearseResponse) (*pgwire.Result, error) {
	if tx.ddl {
		return s.probeInTransaction(ctx, tx, sql, stmt, resp)
	}
	return s.readAt(ctx, sql, stmt, tx.height, false)
}

// probeInTransaction answers a catalog read of a transaction that changed
// the schema: the node rehearses the transaction's statements and then
// runs the read after them, in the same rolled-back db-transaction, under
// the read policy (the rehearsal's probe, api.RehearsePath), so it sees
// the transaction's own DDL. Like a read-path answer it is not part of the
// bc-transaction; the rehearsal of the statements before it still checks
// their observations (a block that changed them is a conflict). A node
// that runs no probe (a database without it) leaves the block gate's
// refusal standing, resp's.
func (s *session) probeInTransaction(ctx context.Context, tx *transaction, sql string, stmt txn.Statement, refusal *api.RehearseResponse) (*pgwire.Result, error) {
	n := len(tx.stmts) + 1
	resp, err := s.rehearse(ctx, tx.stmts, &stmt)
	if err != nil {
		return nil, nodeError(err)
	}
	if resp.Code != api.CodeOK {
		return nil, rehearsalFailure(resp, n)
	}
	if len(resp.Statements) != len(tx.stmts) {
		return nil, &pgwire.Error{Code: stateInternal, Message: fmt.Sprintf("the rehearsal returned %d results for %d statements", len(resp.Statements), len(tx.stmts))}
	}
	for i, seen := range tx.seen {
		if !bytes.Equal(seen, resp.Statements[i].Observation) {
			return nil, conflictError(fmt.Sprintf("statement %d of the transaction now returns other results than it did (a block changed what it read)", i+1))
		}
	}
	p := resp.Probe
	switch {
	case p == nil || p.Code == api.CodeUnknownPath:
		e := rehearsalFailure(refusal, n)
		e.Hint = "This transaction changed the schema, and this network's nodes cannot answer a catalog query inside it before COMMIT. Ask it before the schema change or after COMMIT."
		return nil, e
	case p.Code != api.CodeOK:
		return nil, s.g.readError(sql, &client.QueryError{Code: p.Code, Message: p.Log, Failure: p.Failure})
	}
	cols := s.columns(sql, p.Columns, p.Types, p.Typmods)
	if err := wireRows(cols, p.Rows); err != nil {
		return nil, &pgwire.Error{Code: stateInternal, Message: err.Error()}
	}
	return &pgwire.Result{Columns: cols, Rows: p.Rows, Tag: fmt.Sprintf("SELECT %d", len(p.Rows))}, nil
}

// awaitHeight makes a transaction's first rehearsal run on a node that
// has the session's last commit (read-your-writes holds inside
// transactions too, read-only ones included): a read at that height
// first, on the node the rehearsals then go to.
func (s *session) awaitHeight(ctx context.Context, tx *transaction) error {
	h := max(s.minHeight, s.lastCommit)
	if len(tx.stmts) > 0 || h == 0 {
		return nil
	}
	if _, err := s.g.nodes.Query(ctx, h, "SELECT 1", nil); err != nil {
		return nodeError(err)
	}
	return nil
}

// rehearse asks the node, retrying while the node's block slot is busy;
// probe (nil: none) is the rehearsal's probe (api.RehearsePath).
func (s *session) rehearse(ctx context.Context, stmts []txn.Statement, probe *txn.Statement) (*api.RehearseResponse, error) {
	wait := 5 * time.Millisecond
	for attempt := 0; ; attempt++ {
		resp, err := s.g.nodes.Rehearse(ctx, s.user.Key, stmts, probe)
		var qe *client.QueryError
		if err == nil || !errors.As(err, &qe) || qe.Code != api.CodeQueryBusy || attempt == 5 {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// rehearsalFailure is the error of a rehearsal that failed: an earlier
// statement failing now means a block changed the state under the
// transaction (a conflict); the new statement failing is its own error.
func rehearsalFailure(resp *api.RehearseResponse, n int) *pgwire.Error {
	if resp.Failure != nil && resp.Failure.Statement > 0 && resp.Failure.Statement < n {
		return conflictError(fmt.Sprintf("statement %d of the transaction now fails: %s", resp.Failure.Statement, resp.Log))
	}
	return txFailure(&client.Result{Code: resp.Code, Error: resp.Log, Failure: resp.Failure})
}

func conflictError(why string) *pgwire.Error {
	return &pgwire.Error{Code: stateSerialization, Message: "could not serialize access: " + why,
		Hint: "Nothing was applied. Roll back and retry the whole transaction."}
}

// commandTag is CommandComplete's tag for a statement that returned rows
// or affected them.
func commandTag(sql string, affected int64, rows int) string {
	w := words(sql, 6)
	if len(w) == 0 {
		return "SELECT 0"
	}
	switch w[0] {
	case "INSERT":
		return fmt.Sprintf("INSERT 0 %d", affected)
	case "UPDATE", "DELETE", "MERGE":
		return fmt.Sprintf("%s %d", w[0], affected)
	case "SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "PRAGMA":
		return fmt.Sprintf("SELECT %d", rows)
	case "CREATE", "DROP", "ALTER":
		return ddlTag(w)
	case "SET":
		if len(w) > 1 && w[1] == "CONSTRAINTS" {
			return "SET CONSTRAINTS"
		}
	}
	return w[0]
}

// ddlTag is "CREATE TABLE", "DROP INDEX", … skipping modifiers.
func ddlTag(w []string) string {
	for _, obj := range w[1:] {
		switch obj {
		case "OR", "REPLACE", "UNIQUE", "TEMP", "TEMPORARY", "UNLOGGED", "GLOBAL", "LOCAL", "IF", "NOT", "EXISTS":
			continue
		}
		return w[0] + " " + obj
	}
	return w[0]
}

// describeAfterDDL describes a write of a transaction that changed the
// schema when the node, which describes on committed state, does not know
// a table or column the transaction created (42P01, 42703; knex's insert
// into the table its migration just created): every parameter unknown
// (the client sends text, which the database types as it types a quoted
// literal) and no result columns. Only a plain INSERT, UPDATE or DELETE
// without RETURNING qualifies, since it returns no rows; anything else
// keeps the node's error. The description is not remembered: after
// COMMIT the node describes the statement.
func (s *session) describeAfterDDL(sql string, declared []uint32, err error) (pgwire.Description, bool) {
	var pe *pgwire.Error
	if s.tx == nil || !s.tx.ddl || !errors.As(err, &pe) || pe.Code != "42P01" && pe.Code != "42703" || !s.g.classifier().PlainWrite(sql) {
		return pgwire.Description{}, false
	}
	n := 0
	stripped := stripLiteralsKeepLength(sql)
	for _, l := range dollarParam.FindAllStringSubmatchIndex(stripped, -1) {
		if l[0] > 0 && isWordByte(stripped[l[0]-1]) {
			continue
		}
		k, _ := strconv.Atoi(stripped[l[2]:l[3]])
		n = max(n, k)
	}
	d := pgwire.Description{Params: make([]uint32, max(n, len(declared)))}
	copy(d.Params, declared)
	return d, true
}
