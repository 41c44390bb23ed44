package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// COPY … FROM STDIN becomes bounded batches of multi-row INSERTs, each batch one
// bc-transaction signed by the session's key; COPY … TO STDOUT is a read. See DESIGN.md
// ("COPY").
//
// Bounds (the defaults of app.Params are max_tx_bytes 1 MiB and max_statements 256;
// txn.MaxArgs is 4096 arguments per statement):
//   - a statement carries at most copyStmtRows rows and txn.MaxArgs arguments;
//   - a batch (one bc-transaction) at most copyBatchBytes of argument data and
//     copyBatchStmts statements: half the default max_tx_bytes leaves room for the
//     envelope's framing.
//
// One batch is in flight while the next is read: batch k+1 is submitted only once batch k
// committed, so what committed when a batch fails is exactly the batches before it.
const (
	copyStmtRows   = 1000
	copyBatchBytes = 512 << 10
	copyBatchStmts = 64
	// copyTxBytes bounds a COPY that joins a client transaction (its rows are rehearsed
	// with the transaction and commit with it, atomically). A COPY inside a transaction
	// that outgrows it splits the transaction (splitTransaction).
	copyTxBytes = 256 << 10
)

// copyStatement answers a COPY statement.
func (s *session) copyStatement(ctx context.Context, sql string) (*pgwire.Result, error) {
	st, err := parseCopy(sql)
	if err != nil {
		return nil, err
	}
	if st.target == "file" || st.target == "program" {
		return nil, &pgwire.Error{Code: statePrivilege,
			Message: "COPY to or from a file or a program is not allowed: relchain's nodes read and write no client files",
			Hint:    `Anyone can COPY to stdout or from stdin. psql's \copy command also works for anyone.`}
	}
	if s.tx != nil && s.tx.failed {
		return nil, &pgwire.Error{Code: stateInFailedTx, Message: "current transaction is aborted, commands ignored until end of transaction block"}
	}
	if st.from {
		return s.copyFrom(ctx, st)
	}
	return s.copyTo(ctx, st)
}

// copyColumns are the names and node types of the columns a COPY reads or writes.
func (s *session) copyColumns(ctx context.Context, st *copyStmt) (names, types []string, err error) {
	list := "*"
	if st.columns != nil {
		list = strings.Join(st.columns, ", ")
	}
	resp, err := s.g.nodes.Describe(ctx, "SELECT "+list+" FROM "+st.table)
	if err != nil {
		return nil, nil, s.g.readError("SELECT "+list+" FROM "+st.table, err)
	}
	for _, c := range resp.Columns {
		names = append(names, c.Name)
		types = append(types, c.Type)
	}
	return names, types, nil
}

// copyTo runs COPY … TO STDOUT as a read (a rehearsal inside a transaction).
func (s *session) copyTo(ctx context.Context, st *copyStmt) (*pgwire.Result, error) {
	query := st.query
	if query == "" {
		list := "*"
		if st.columns != nil {
			list = strings.Join(st.columns, ", ")
		}
		query = "SELECT " + list + " FROM " + st.table
	}
	stmt, err := s.statementOf(query, nil)
	if err != nil {
		return nil, err
	}
	var res *pgwire.Result
	if s.tx != nil {
		res, err = s.inTransaction(ctx, query, stmt, kindRead)
	} else {
		res, err = s.read(ctx, query, stmt)
	}
	if err != nil {
		return nil, err
	}
	enc := &copyEncoder{o: &st.opts, codec: pgwire.NewCodec()}
	for _, c := range res.Columns {
		enc.oids = append(enc.oids, c.OID)
		enc.names = append(enc.names, c.Name)
	}
	out := &pgwire.CopyOut{Binary: st.opts.format == "binary", Columns: len(res.Columns)}
	if h := enc.header(); h != nil {
		out.Data = append(out.Data, h)
	}
	for i, row := range res.Rows {
		b, err := enc.row(row)
		if err != nil {
			return nil, &pgwire.Error{Code: stateInternal, Message: fmt.Sprintf("COPY row %d: %v", i+1, err)}
		}
		out.Data = append(out.Data, b)
	}
	if t := enc.trailer(); t != nil {
		out.Data = append(out.Data, t)
	}
	return &pgwire.Result{CopyOut: out, Tag: fmt.Sprintf("COPY %d", len(res.Rows))}, nil
}

// copyFrom starts a COPY … FROM STDIN.
func (s *session) copyFrom(ctx context.Context, st *copyStmt) (*pgwire.Result, error) {
	if s.defaultReadOnly || (s.tx != nil && s.tx.readOnly) {
		return nil, &pgwire.Error{Code: stateReadOnlyTx, Message: "cannot execute COPY FROM in a read-only transaction"}
	}
	names, types, err := s.copyColumns(ctx, st)
	if err != nil {
		return nil, err
	}
	oids := make([]uint32, len(types))
	for i, t := range types {
		oids[i] = oidOf[t]
		if st.opts.format == "binary" && !sentAsItself[oids[i]] {
			return nil, refused("binary COPY into column %q of type %s is not supported; use the text or CSV format", names[i], t)
		}
	}
	k := &copySink{s: s, st: st, names: names, types: types, inTx: s.tx != nil}
	k.rowsPerStmt = copyStmtRows
	if len(names) > 0 {
		k.rowsPerStmt = max(1, min(copyStmtRows, txn.MaxArgs/len(names)))
	}
	// Without the client's column list, every column in the table's order: no name needs
	// quoting in any dialect's style.
	k.head = "INSERT INTO " + st.table + " VALUES "
	if st.columns != nil {
		k.head = "INSERT INTO " + st.table + " (" + strings.Join(st.columns, ", ") + ") VALUES "
	}
	limit := copyBatchBytes
	if k.inTx {
		limit = copyTxBytes
	}
	k.dec = newRowDecoder(&st.opts, len(names), oids, limit)
	if td, ok := k.dec.(*textDecoder); ok {
		td.names = lowerNames(names)
	}
	k.ctx, k.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return &pgwire.Result{CopyIn: k}, nil
}

func lowerNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToLower(n)
	}
	return out
}

// copySink receives a COPY FROM STDIN stream (pgwire.CopyIn).
type copySink struct {
	s     *session
	st    *copyStmt
	names []string
	types []string
	head  string // INSERT INTO t (cols) VALUES
	inTx  bool
	dec   rowDecoder

	rowsPerStmt int

	// The statement being built.
	args      []txn.Arg
	stmtRows  int
	stmtFirst int // its first row's line

	// The batch being built.
	batch      []txn.Statement
	batchBytes int
	batchRows  int64
	batchFirst int
	batchLast  int
	stmtLines  [][2]int // each statement's first and last line

	// The batch in flight, and what committed.
	ctx       context.Context // the commits' (they outlive one Data call)
	cancel    context.CancelFunc
	inflight  chan copyOutcome
	sent      copyProgress // the batch in flight
	committed copyProgress // every batch that committed, together
	rows      int64        // rows read so far
	finished  bool
	// split is the client's transaction once a COPY inside it outgrew one bc-transaction
	// and its statements committed (splitTransaction), at splitHeight.
	split       *transaction
	splitHeight int64
}

// copyProgress counts batches, rows and lines.
type copyProgress struct {
	batches   int
	rows      int64
	lastLine  int
	height    int64
	stmtLines [][2]int
}

type copyOutcome struct {
	height    int64
	err       error
	statement int // the failed statement (1-based), when the chain says
}

// Format is CopyInResponse's.
func (k *copySink) Format() (bool, int) { return k.st.opts.format == "binary", len(k.names) }

// Data reads the rows in p, submitting each batch that fills up.
func (k *copySink) Data(ctx context.Context, p []byte) error {
	if err := k.dec.feed(p, func(row []any, line int) error { return k.row(ctx, row, line) }); err != nil {
		return k.fail(err, k.dec.line())
	}
	return nil
}

// Done submits the last batch and waits for every batch: COPY n.
func (k *copySink) Done(ctx context.Context) (*pgwire.Result, error) {
	if err := k.dec.finish(func(row []any, line int) error { return k.row(ctx, row, line) }); err != nil {
		return nil, k.fail(err, k.dec.line())
	}
	if err := k.endStatement(); err != nil {
		return nil, k.fail(err, k.stmtFirst)
	}
	if k.inTx {
		return k.joinTransaction(ctx)
	}
	if err := k.submit(ctx); err != nil {
		return nil, err
	}
	if err := k.wait(ctx); err != nil {
		return nil, err
	}
	k.finished = true
	k.cancel()
	k.reopen(false)
	return &pgwire.Result{Tag: fmt.Sprintf("COPY %d", k.committed.rows)}, nil
}

// splitTransaction commits the client's transaction so far when a COPY inside it outgrows
// one bc-transaction: its statements commit first (as COMMIT would, conflicts included),
// then the COPY's batches, and a new transaction opens after the COPY for the client's
// next statements and COMMIT. pgbench -i loads pgbench_accounts that way (BEGIN, TRUNCATE,
// INSERTs, COPY of 100,000 rows, COMMIT). A failure says what committed.
func (k *copySink) splitTransaction(ctx context.Context) error {
	tx := k.s.tx
	if !k.s.copySplit {
		e := copyRowError(stateProgramLimit, "a COPY inside a transaction may hold at most %d bytes of values: a larger one does not fit the one bc-transaction the transaction commits as", copyTxBytes)
		e.Hint = "Nothing was applied. Run the COPY outside a transaction (it then commits in batches), or SET " + SettingCopySplit +
			" = on (for a tool such as pgbench -i: PGOPTIONS='-c " + SettingCopySplit + "=on') to commit the transaction so far and then the COPY in batches, giving up its atomicity."
		return e
	}
	res, err := k.s.commit(ctx)
	if err == nil && res.Tag != "COMMIT" {
		err = &pgwire.Error{Code: stateInFailedTx, Message: "current transaction is aborted, commands ignored until end of transaction block"}
	}
	if err != nil {
		k.s.tx = tx
		tx.failed = true
		return err
	}
	k.inTx, k.split = false, tx
	k.splitHeight = k.s.lastCommit
	return nil
}

// reopen opens the transaction a split COPY continues in (failed: it is aborted).
func (k *copySink) reopen(failed bool) {
	if k.split == nil || k.s.tx != nil {
		return
	}
	k.s.tx = &transaction{saved: k.split.saved, local: k.split.local, failed: failed}
}

// Abort ends the COPY early: the batch in flight is waited for, so that the error can
// say what committed.
func (k *copySink) Abort(reason string) error {
	if k.finished {
		return nil
	}
	k.finished = true
	defer k.cancel()
	if k.inflight != nil {
		_ = k.wait(k.ctx)
	}
	if k.inTx {
		k.s.tx.failed = true
	}
	k.reopen(true)
	if k.committed.batches == 0 && k.split == nil {
		return nil
	}
	e := &pgwire.Error{Code: stateQueryCanceled, Message: "COPY from stdin failed: " + reason}
	k.describeCommitted(e)
	return e
}

// row adds one decoded row.
func (k *copySink) row(ctx context.Context, row []any, line int) error {
	if k.stmtRows == 0 {
		k.stmtFirst = line
	}
	if k.batchRows == 0 && k.stmtRows == 0 {
		k.batchFirst = line
	}
	size := 0
	for i, v := range row {
		a, err := copyArg(k.types[i], v)
		if err != nil {
			e := copyRowError("22P02", "%v", err)
			e.Message = fmt.Sprintf("%s (column %s)", e.Message, k.names[i])
			return e
		}
		size += argSize(a)
		k.args = append(k.args, a)
	}
	limit := copyBatchBytes
	if k.inTx {
		limit = copyTxBytes
	}
	if size > limit {
		return copyRowError(stateProgramLimit, "a COPY row of %d bytes does not fit one bc-transaction (at most %d bytes of values)", size, limit)
	}
	k.stmtRows++
	k.rows++
	k.batchRows++
	k.batchBytes += size
	k.batchLast = line
	if k.stmtRows >= k.rowsPerStmt {
		if err := k.endStatement(); err != nil {
			return err
		}
	}
	if k.batchBytes >= limit || len(k.batch) >= copyBatchStmts {
		if k.inTx {
			if err := k.splitTransaction(ctx); err != nil {
				return err
			}
		}
		if err := k.endStatement(); err != nil {
			return err
		}
		return k.submit(ctx)
	}
	return nil
}

// argSize estimates an argument's bytes in the envelope.
func argSize(a txn.Arg) int {
	return 10 + len(a.Text) + len(a.Bytes)
}

// endStatement turns the rows read into one INSERT of the batch.
func (k *copySink) endStatement() error {
	if k.stmtRows == 0 {
		return nil
	}
	ncols := len(k.names)
	var b strings.Builder
	b.WriteString(k.head)
	n := 1
	for r := range k.stmtRows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range ncols {
			if c > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", n)
			n++
		}
		b.WriteByte(')')
	}
	sql, _ := placeholders(b.String(), k.s.g.wire.Placeholders)
	k.batch = append(k.batch, txn.Statement{SQL: sql, Args: k.args})
	k.stmtLines = append(k.stmtLines, [2]int{k.stmtFirst, k.batchLast})
	k.args, k.stmtRows = nil, 0
	return nil
}

// submit waits for the batch in flight, then sends the batch built.
func (k *copySink) submit(ctx context.Context) error {
	if len(k.batch) == 0 {
		return nil
	}
	if err := k.wait(ctx); err != nil {
		return err
	}
	stmts := k.batch
	k.sent = copyProgress{batches: k.committed.batches + 1, rows: k.batchRows, lastLine: k.batchLast, stmtLines: k.stmtLines}
	k.stmtLines = nil
	k.sent.height = int64(k.batchFirst) // the batch's first line, until it commits
	k.batch, k.batchBytes, k.batchRows = nil, 0, 0
	done := make(chan copyOutcome, 1)
	k.inflight = done
	s, key := k.s, k.s.user.Key
	go func() {
		res, err := s.g.nodes.Commit(k.ctx, key, stmts, nil)
		switch {
		case err != nil:
			done <- copyOutcome{err: writeError(err)}
		case !res.OK():
			out := copyOutcome{height: res.Height, err: txFailure(res)}
			if res.Failure != nil {
				out.statement = res.Failure.Statement
			}
			done <- out
		default:
			done <- copyOutcome{height: res.Height}
		}
	}()
	return nil
}

// wait waits for the batch in flight; its failure ends the COPY.
func (k *copySink) wait(ctx context.Context) error {
	if k.inflight == nil {
		return nil
	}
	var out copyOutcome
	select {
	case out = <-k.inflight:
	case <-ctx.Done():
		e := &pgwire.Error{Code: stateQueryCanceled, Message: "canceling statement due to user request"}
		k.describeCommitted(e)
		e.Detail += fmt.Sprintf(" Batch %d (lines %d–%d) was submitted and may still commit.", k.sent.batches, k.sent.height, k.sent.lastLine)
		return e
	}
	k.inflight = nil
	if out.height > 0 {
		k.s.committed(out.height, false)
	}
	if out.err != nil {
		e := *out.err.(*pgwire.Error)
		first, last := int(k.sent.height), k.sent.lastLine
		where := fmt.Sprintf("batch %d, lines %d–%d", k.sent.batches, first, last)
		if i := out.statement - 1; i >= 0 && i < len(k.sent.stmtLines) {
			// The chain names the failing INSERT: its rows' lines.
			where = fmt.Sprintf("batch %d (lines %d–%d), INSERT %d of it, lines %d–%d", k.sent.batches, first, last,
				out.statement, k.sent.stmtLines[i][0], k.sent.stmtLines[i][1])
		}
		e.Where = fmt.Sprintf("COPY %s, %s", k.st.table, where)
		e.Message = fmt.Sprintf("%s (COPY %s)", e.Message, where)
		if e.Detail != "" {
			e.Detail += ". "
		}
		k.describeCommitted(&e)
		k.finished = true
		k.reopen(true)
		return &e
	}
	k.committed.batches++
	k.committed.rows += k.sent.rows
	k.committed.lastLine = k.sent.lastLine
	k.committed.height = out.height
	return nil
}

// describeCommitted says in e's Detail and Hint what the COPY committed.
func (k *copySink) describeCommitted(e *pgwire.Error) {
	c := k.committed
	if k.inTx {
		e.Detail += "Nothing was applied: the COPY was part of the transaction, which is now aborted."
		return
	}
	if k.split != nil {
		e.Detail += fmt.Sprintf("The COPY outgrew one bc-transaction, so the transaction's statements before it committed first (block %d). ", k.splitHeight)
		if c.batches == 0 {
			e.Detail += "No batch of the COPY committed."
			return
		}
	}
	if c.batches == 0 {
		e.Detail += "Nothing was committed: no batch of this COPY was applied."
		return
	}
	e.Detail += fmt.Sprintf("Batches 1–%d of this COPY committed (%d rows, lines 1–%d, the last in block %d); nothing after line %d was applied.",
		c.batches, c.rows, c.lastLine, c.height, c.lastLine)
	e.Hint = fmt.Sprintf("Resume with the rows after line %d.", c.lastLine)
}

// fail ends the COPY with err at line: the batch in flight is waited for.
func (k *copySink) fail(err error, line int) error {
	if k.finished {
		return err
	}
	e, ok := err.(*pgwire.Error)
	if !ok {
		e = &pgwire.Error{Code: stateInternal, Message: err.Error()}
	}
	if e.Where != "" { // a batch's failure: already described
		return e
	}
	out := *e
	out.Where = fmt.Sprintf("COPY %s, line %d", k.st.table, line)
	out.Message = fmt.Sprintf("%s (COPY %s, line %d)", out.Message, k.st.table, line)
	if k.inflight != nil {
		if werr := k.wait(k.ctx); werr != nil {
			return werr
		}
	}
	k.describeCommitted(&out)
	k.finished = true
	k.cancel()
	if k.inTx {
		k.s.tx.failed = true
	}
	k.reopen(true)
	return &out
}

// joinTransaction adds a small COPY to the client's transaction: each INSERT is rehearsed
// with it and commits with it.
func (k *copySink) joinTransaction(ctx context.Context) (*pgwire.Result, error) {
	k.finished = true
	defer k.cancel()
	for _, stmt := range k.batch {
		if _, err := k.s.inTransaction(ctx, stmt.SQL, stmt, kindWrite); err != nil {
			return nil, err
		}
	}
	return &pgwire.Result{Tag: fmt.Sprintf("COPY %d", k.rows)}, nil
}
