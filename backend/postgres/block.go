package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	pgcheck "github.com/relchain/relchain/backend/postgres/pggate"
	"github.com/relchain/relchain/sqlcheck"
)

// savepoint is the one savepoint name relchain uses; RollbackTo releases it
// as well, so savepoints never nest.
const savepoint = "relchain_tx"

// beginSQL opens a block's db-transaction. SET CONSTRAINTS ALL IMMEDIATE
// makes every DEFERRABLE constraint (unique, primary key, foreign key,
// exclusion; INITIALLY DEFERRED or not, existing or created later in the
// block) be checked at the end of the statement that queued the check, as
// a non-deferrable one is, inside the tx's savepoint: a violation fails
// that tx alone. Left deferred, it would fire at the block's COMMIT and
// fail the whole block on every node: a permanent halt. Each tx defers
// the schema's INITIALLY DEFERRED constraints after its SAVEPOINT, may run
// SET CONSTRAINTS itself, and ends with SET CONSTRAINTS ALL IMMEDIATE,
// which checks what it deferred and restores this mode (deferred.go);
// ROLLBACK TO a savepoint restores the mode of the savepoint's start,
// which is this one. The gate refuses SET CONSTRAINTS in function bodies
// and constraint triggers.
const beginSQL = "BEGIN ISOLATION LEVEL READ COMMITTED; SET CONSTRAINTS ALL IMMEDIATE"

// opBefore is the operation of the record of a row's image before an
// UPDATE.
var opBefore = []byte{'B'}

var errBlockDone = errors.New("postgres: block is already committed or rolled back")

// block is the open db-transaction on the writer connection, and the
// block-wide state that its lanes (lanes.go) share: the digests' sums,
// what the block learnt of the schema. What belongs to one connection —
// its db-transaction's savepoints, its attribution tag, its prepared
// statements — is its session; the writer's is embedded (lane 0).
type block struct {
	*session // the writer's: lane 0
	b        *Backend
	// delta is the digested changes' effect on the table sums; ddl records
	// that one of them changed the schema (StateDigest then rescans).
	delta backend.TableDelta
	ddl   bool
	// migrating: the database's table sums are of row image format 1
	// (imagesJSON), so this block rescans every table with the current
	// images and records format 2; migrated, it did (see Commit).
	migrating, migrated bool
	// consumed counts the change records ChangeDigest deleted in this
	// block (see vacuumAfter).
	consumed int
	// seqsAtBegin is what the backend knew of relchain.sequences when the
	// block began: a Rollback brings the database back to that state, and
	// the knowledge with it. What the block learnt (a speculated block or
	// a rehearsal that dropped the last serial table: "none") would
	// otherwise leave the next block's sequences unflushed and out of its
	// digest on this node alone (TestSpeculationAndRestartsLeaveNoTrace).
	seqsAtBegin seqsKnown
	// canonRecs are the change records ChangeDigest consumed, kept for
	// CanonicalDelta (they name the changed keys and the schema changes);
	// truncates are the texts of the TRUNCATE statements the block ran,
	// whose 'S' records change no schema (canonSchemaRecord).
	canonRecs [][]backend.ChangeRecord
	canonLane []int // the lane that consumed each of canonRecs
	truncates map[string]bool
	// lanes are the sessions of lanes 1..n-1 (OpenLanes), nil if the
	// block has none; lanesUsed stays set once they were opened (the
	// writer's lock waits are bounded for the rest of the block).
	lanes     []*session
	lanesUsed bool
}

// session is one connection's share of a block: the writer's (lane 0) or
// a lane's (lanes.go). Its methods hold mu, the backend's mutex for the
// writer and the lane's own for a lane, so lanes run concurrently.
type session struct {
	b   *Backend
	blk *block
	// mu guards this session's state; stmts are its connection's
	// prepared block statements (the backend's for the writer).
	mu    *sync.Mutex
	stmts *blockStmts
	conn  *pgx.Conn
	lane  int
	done  bool
	// laneConn is a lane's kept connection (nil for the writer); gid is
	// the id of its prepared db-transaction while Commit has one.
	laneConn *laneConn
	gid      string
	env      sqlcheck.Env // of the current bc-transaction
	// inTx: a bc-transaction's savepoint is open. unconsumed: change
	// records tagged with a tx index may be waiting for ChangeDigest (see
	// Commit).
	inTx, unconsumed bool
	// tag is the value of the setting relchain.tx in effect on the server
	// ("": none). A SET LOCAL outlives RELEASE, and ROLLBACK TO restores
	// the value of the savepoint's start, which tagsBefore keeps for each
	// savepoint sent and not yet ended. So a wl-transaction of the same
	// bc-transaction as the one before needs no SET LOCAL of its own (see
	// pending), and a statement run outside every savepoint must clear the
	// tag first (see Exec).
	tag        string
	tagsBefore []string
	// Deferred savepoint statements (see pending): savepointDue, the
	// current tx's SAVEPOINT and SET LOCAL have not been sent yet;
	// releaseDue, the previous tx's RELEASE has not. aborted: the last
	// statement failed, so the db-transaction is in the aborted state.
	savepointDue, releaseDue, aborted bool
	// keys are the tables' keys looked up for LIMIT without ORDER BY
	// (limit.go) since the block's last DDL statement or rollback to a
	// savepoint: the schema they came from is the block's current one.
	keys map[tableRef][]string
	// deferred: the schema's INITIALLY DEFERRED constraints and whether
	// the open tx may have checks pending (deferred.go).
	deferred deferredState
}

// vacuumAfter: a block that consumed at least this many change records
// (a bulk load, say) leaves as many dead tuples in relchain.changes, which
// every later block's DELETE ... RETURNING would scan until autovacuum
// came by (measured: 600,000 after a TPC-C load made each block 20 ms
// slower). Commit then vacuums the table, outside the db-transaction. It
// changes no row.
const vacuumAfter = 10000

var _ backend.Block = (*block)(nil)

// simpleLocked runs a fixed statement (no arguments) with the simple
// protocol, after the deferred savepoint statements, in the same round
// trip; the caller holds the backend's mutex. An empty sql sends only the
// deferred statements.
func (k *session) simpleLocked(ctx context.Context, what, sql string) error {
	stmts := k.pending()
	if sql != "" {
		stmts = append(stmts, sql)
	}
	if len(stmts) == 0 {
		return nil
	}
	if _, err := k.conn.PgConn().Exec(ctx, strings.Join(stmts, "; ")).ReadAll(); err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	k.sent()
	return nil
}

// flush sends the deferred savepoint statements, if any; the caller holds
// the backend's mutex. Every statement the block sends goes after them.
func (k *session) flush(ctx context.Context) error {
	return k.simpleLocked(ctx, "deferred savepoint statements", "")
}

// pending lists the deferred savepoint statements in the order they must
// run. Savepoint and Release send nothing themselves: a tx's SAVEPOINT and
// SET LOCAL, preceded by the previous tx's RELEASE, travel with the tx's
// first statement (execAfter), so a tx of one statement costs one round
// trip instead of three. Every other statement the block sends is preceded
// by them too (flush), so the server runs exactly the sequence it ran when
// each was sent at once. Nothing runs between a deferred SAVEPOINT and its
// RELEASE or ROLLBACK TO unless the SAVEPOINT was sent first, so a tx that
// ends before its first statement can drop its savepoint unsent.
func (k *session) pending() []string {
	var stmts []string
	if k.releaseDue {
		stmts = append(stmts, "RELEASE SAVEPOINT "+savepoint)
	}
	if k.savepointDue {
		stmts = append(stmts, "SAVEPOINT "+savepoint)
		if want := strconv.Itoa(k.env.Tx); want != k.tag {
			stmts = append(stmts, "SET LOCAL "+txSetting+" = '"+want+"'")
		}
		if d := k.deferStatement(); d != "" {
			stmts = append(stmts, d)
		}
	}
	return stmts
}

// sent records that the server ran the pending statements.
func (k *session) sent() {
	if k.releaseDue {
		k.savepointEnded(false)
	}
	if k.savepointDue {
		k.tagsBefore = append(k.tagsBefore, k.tag)
		k.tag = strconv.Itoa(k.env.Tx)
		k.deferred.pending = k.deferred.pending || k.deferStatement() != ""
	}
	k.releaseDue, k.savepointDue = false, false
}

// savepointEnded records that the server released the innermost
// savepoint (keeping the tag set inside it) or rolled back to it
// (restoring the tag of its start).
func (k *session) savepointEnded(rolledBack bool) {
	n := len(k.tagsBefore)
	if n == 0 {
		return
	}
	if rolledBack {
		k.tag = k.tagsBefore[n-1]
	}
	k.tagsBefore = k.tagsBefore[:n-1]
}

// Savepoint opens the tx's savepoint; statements that read the clock or
// random numbers are rewritten with env (backend/postgres/pggate.Rewrite). It
// also sets relchain.tx to env.Tx, transaction-locally and inside the
// savepoint (SET LOCAL: a utility statement, measured at about a third of
// the cost of SELECT set_config): the change records the tx's statements
// write take it as their tx column's DEFAULT (see schemaSQL); not again
// when it holds env.Tx already (the wl-transactions of one bc-transaction
// each open a savepoint, with the same env.Tx). Both are deferred to the
// tx's first statement (see pending).
func (k *session) Savepoint(ctx context.Context, env sqlcheck.Env) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return errBlockDone
	}
	if k.savepointDue {
		// Two Savepoints without Release (never so in the executor): the
		// first one is a real, nested savepoint.
		if err := k.flush(ctx); err != nil {
			return err
		}
	}
	if err := k.loadDeferred(ctx, env); err != nil {
		return err
	}
	k.env = env
	k.savepointDue, k.inTx, k.unconsumed, k.aborted = true, true, true, false
	return nil
}

// Release releases the tx's savepoint. It is deferred (see pending) unless
// there is no open savepoint or the db-transaction is aborted: then it
// fails here, as it would have when sent at once.
func (k *session) Release(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return errBlockDone
	}
	switch {
	case k.savepointDue:
		// Nothing ran inside the savepoint: it need not exist.
		k.savepointDue, k.inTx = false, false
		return nil
	case k.inTx && !k.aborted:
		if err := k.checkDeferred(ctx); err != nil {
			return err
		}
		k.releaseDue, k.inTx = true, false
		return nil
	}
	k.inTx = false
	if err := k.simpleLocked(ctx, "release savepoint", "RELEASE SAVEPOINT "+savepoint); err != nil {
		return err
	}
	k.savepointEnded(false)
	return nil
}

// RollbackTo undoes everything since Savepoint and then releases the
// savepoint, so a block of many failed txs does not pile up nested
// savepoints.
func (k *session) RollbackTo(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return errBlockDone
	}
	if k.savepointDue {
		// Nothing ran inside the savepoint: there is nothing to undo.
		k.savepointDue, k.inTx = false, false
		return nil
	}
	k.inTx, k.aborted = false, false
	k.stmts.rolledBack(false)
	k.keys = nil // the rollback may undo DDL
	k.deferred.pending = false
	if k.deferred.ddl {
		k.deferred.known = false // the rollback may undo DDL
	}
	if err := k.simpleLocked(ctx, "rollback to savepoint", "ROLLBACK TO SAVEPOINT "+savepoint+"; RELEASE SAVEPOINT "+savepoint); err != nil {
		return err
	}
	k.savepointEnded(true)
	return nil
}

// Exec runs one statement. A statement failure is returned as a
// *backend.Error; a failure of the node (connection lost, disk full,
// context cancelled: see nodeFault) is returned as an ordinary error, since
// another node would not fail the same way.
//
// Rows of a statement without a top-level ORDER BY (RETURNING, SELECT
// without ORDER BY) are sorted by their text form: PostgreSQL returns them
// in physical order, which differs between nodes holding the same rows
// (autovacuum and HOT pruning run on each node's own schedule).
func (k *session) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	st, err := k.b.syntax.gated(sql)
	if err != nil {
		return nil, err
	}
	if st.forbidden != "" {
		return nil, &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: st.forbidden}
	}
	if st.rewrite {
		if sql, err = pgcheck.Rewrite(sql, k.env); err != nil {
			return nil, &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: err.Error()}
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return nil, errBlockDone
	}
	if st.perRow != nil && k.b.syntax.gate {
		if err := k.flush(ctx); err != nil {
			return nil, err
		}
		if err := k.checkPerRowDefaults(ctx, st.perRow); err != nil {
			return nil, err
		}
	}
	ordered := st.ordered
	if st.keyOrder {
		var keyed bool
		if sql, keyed, err = k.keyOrdered(ctx, sql); err != nil {
			return nil, err
		}
		ordered = ordered || keyed
	}
	if err := k.checkClockArgs(ctx, sql, args); err != nil {
		return nil, err
	}
	prefix := k.pending()
	clear := !k.inTx && k.tag != ""
	if clear {
		// Outside every savepoint (never so in the executor): the records
		// this statement writes belong to no tx.
		prefix = append(prefix, "SET LOCAL "+txSetting+" = ''")
	}
	ddl := st.changesSchema(k.b.syntax.gate)
	if ddl && k.blk.lanesUsed {
		// StateDigest would rescan on the writer's session, which cannot
		// see the other lanes' rows: a schema change is never parallel.
		return nil, fmt.Errorf("postgres: exec: %w: a parallel block cannot change the schema", backend.ErrLaneConflict)
	}
	if ddl {
		k.keys = nil
	}
	// A text rewritten per tx, or DDL, is never worth preparing.
	rows, err := k.execStatement(ctx, prefix, sql, args, !ordered, !st.analysis.UsesEnv && !ddl)
	var pe *prefixError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("postgres: exec: %w", err)
	}
	if e := backend.AsError(err); e != nil { // argument encoding, before anything was sent
		return nil, e
	}
	k.sent()
	if clear {
		k.tag = ""
	}
	if err == nil && ddl {
		if err = k.afterDDL(ctx, sql); err == nil && st.restart != "" {
			err = k.restartSequence(ctx, st.restart)
		}
		if err == nil && st.truncate {
			k.blk.ranTruncate(sql)
		}
		if err == nil {
			k.stmts.schemaChange()
			k.b.schemaGen++
			k.b.seqs = seqsUnknown
			k.deferred.known, k.deferred.ddl = false, true
		}
	}
	if err == nil && st.setConstraints {
		k.deferred.pending = true
	}
	if err == nil {
		return rows, nil
	}
	if ctx.Err() != nil {
		return nil, k.interrupted(ctx, "exec", err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && k.blk.lanesUsed && lockConflict(pgErr.Code) {
		return nil, fmt.Errorf("postgres: exec: %w: %w", backend.ErrLaneConflict, err)
	}
	if !errors.As(err, &pgErr) || nodeFault(pgErr.Code) || stackDependent(pgErr) {
		return nil, fmt.Errorf("postgres: exec: %w", err)
	}
	k.aborted = true
	return nil, asBackendError(err)
}

// interrupted handles a statement cut short because ctx is done (the
// app's deadline on a speculative execution, say): a node fault whose error
// wraps ctx.Err(), so that errors.Is(err, context.DeadlineExceeded) holds.
// pgx gives up on the connection when ctx is done (it closes it), but the
// server would run the statement to its end, holding the block's locks:
// interrupted asks the server to cancel it. The block can then only be
// rolled back (see rollback); the next Begin connects a new writer.
func (k *session) interrupted(ctx context.Context, what string, err error) error {
	if k.conn.IsClosed() {
		k.cancelOnServer()
	}
	if !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("postgres: %s: %w: %w", what, ctx.Err(), err)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// cancelOnServer asks the server to cancel what the writer's session is
// running (a cancel request on a connection of its own: the writer's is
// closed). A failure leaves the statement to run to its end; the session
// then ends, as its connection is gone.
func (k *session) cancelOnServer() {
	sendCancelRequest(k.conn.PgConn())
}

// ChangeDigest consumes the change records of the block so far, in one
// statement, and hashes them: all of them for the block, and each tx's own
// (by their tx column) for its effect digest.
//
// Records are hashed in canonical order, not in the order the triggers
// wrote them (a statement touching many rows visits them in physical
// order, which differs between nodes, see Exec): backend.DigestChanges,
// shared with MySQL.
func (k *block) ChangeDigest(ctx context.Context) (backend.Changes, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if k.done {
		return backend.Changes{}, errBlockDone
	}
	defer k.lockLanes()()
	// Each lane flushes and consumes its own records, in its own
	// db-transaction (it sees no other lane's); all of them are digested
	// together, in canonical order, as a serial block's would be.
	var recs []backend.ChangeRecord
	for _, s := range k.sessions() {
		if err := s.flush(ctx); err != nil {
			return backend.Changes{}, laneError(ctx, fmt.Errorf("postgres: change digest: lane %d: %w", s.lane, err))
		}
		if err := s.flushSequences(ctx); err != nil {
			return backend.Changes{}, laneError(ctx, fmt.Errorf("postgres: change digest: lane %d: %w", s.lane, err))
		}
		r, err := s.consumeRecords(ctx)
		if err != nil {
			return backend.Changes{}, laneError(ctx, fmt.Errorf("postgres: change digest: lane %d: %w", s.lane, err))
		}
		if len(k.lanes) == 0 {
			recs = r
		} else {
			// A copy: DigestChanges sorts recs in place, and each lane's
			// own records stay as they came, for CanonicalDelta.
			recs = append(recs, r...)
		}
		s.unconsumed = s.inTx
		k.canonRecs, k.canonLane = append(k.canonRecs, r), append(k.canonLane, s.lane)
	}
	k.consumed += len(recs)
	// The state digest's part (an LtHash element per image, the costly
	// part) is a sum, so its order does not matter: it runs on the other
	// cores while this goroutine sorts and hashes the records.
	changes := make([]change, len(recs))
	for i, r := range recs {
		changes[i] = change{r.Table, r.Op, r.Image}
		if len(r.Op) == 1 && (r.Op[0] == 'S' || r.Op[0] == 'X' || r.Op[0] == 'T') {
			k.ddl = true
		}
	}
	parts := deltaParts(changes)
	digest := backend.DigestChanges(recs)
	for _, part := range parts {
		for name, sum := range <-part {
			if cur, ok := k.delta[name]; ok {
				cur.Combine(sum)
			} else {
				k.delta[name] = sum
			}
		}
	}
	return digest, nil
}

// consumeRecordsSQL reads and deletes every change record, in one
// statement.
const consumeRecordsSQL = "DELETE FROM relchain.changes RETURNING tbl, op, img, tx, old"

// truncateAt: after a block that consumed this many change records, the
// next block consumes its own by TRUNCATE rather than DELETE … RETURNING.
// At thousands of records per block the DELETE, and the next Begin's
// EXISTS over the dead tuples it leaves until autovacuum comes by, cost
// tens of milliseconds per block (BENCHMARKS.md, issue 19); a TRUNCATE
// costs a few, but more than a DELETE of a handful of rows (a new file per
// block), hence the threshold. Which way records are consumed changes no
// record, digest or result: it is the node's own choice.
const truncateAt = 256

// consumeRecords deletes the change records and returns them, an UPDATE's
// as two: its record ('B', old) of the image before it, then its own (see
// schemaSQL). After a large block (truncateAt) it consumes them by
// TRUNCATE when it can lock the table at once.
func (k *session) consumeRecords(ctx context.Context) ([]backend.ChangeRecord, error) {
	// Not with lanes: the lock would wait for (or keep out) the other
	// lanes' records.
	if !k.blk.lanesUsed && (k.b.opts.truncateChanges || k.b.lastRecords >= truncateAt) {
		recs, ok, err := k.consumeByTruncate(ctx)
		if err != nil || ok {
			return recs, err
		}
	}
	res := k.conn.PgConn().ExecParams(ctx, consumeRecordsSQL, nil, nil, nil, nil)
	var recs []backend.ChangeRecord
	var arena recordArena
	var perr error
	for res.NextRow() {
		if perr == nil {
			recs, perr = appendRecord(recs, &arena, res.Values())
		}
	}
	if _, err := res.Close(); err != nil {
		return nil, err
	}
	return recs, perr
}

// consumeByTruncateSQL locks relchain.changes without waiting, reads the
// records and truncates the table, inside a savepoint, in one round trip.
// The lock comes first, so no record can be committed between the read and
// the TRUNCATE (DELETE … RETURNING gives the same guarantee in one
// statement). ACCESS EXCLUSIVE is held until the block commits, a few
// milliseconds on: a session that writes a captured table meanwhile (a
// CheckTx dry run, an out-of-band writer) waits for it.
const consumeByTruncateSQL = `SAVEPOINT relchain_consume;
LOCK TABLE relchain.changes IN ACCESS EXCLUSIVE MODE NOWAIT;
SELECT tbl, op, img, tx, old FROM relchain.changes;
TRUNCATE relchain.changes;
RELEASE SAVEPOINT relchain_consume`

// consumeByTruncate consumes the records by consumeByTruncateSQL. ok is
// false, with the block as it was, when the table is locked by another
// session (a checkpoint's pg_dump holds ACCESS SHARE for the whole dump; a
// session with an open transaction that wrote a captured table holds ROW
// EXCLUSIVE; autovacuum): the caller then deletes them as usual, so a
// block never waits for a lock here.
func (k *session) consumeByTruncate(ctx context.Context) (recs []backend.ChangeRecord, ok bool, err error) {
	recs, err = readConsumed(k.conn.PgConn().Exec(ctx, consumeByTruncateSQL))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
		if _, err := k.conn.PgConn().Exec(ctx, "ROLLBACK TO SAVEPOINT relchain_consume; RELEASE SAVEPOINT relchain_consume").ReadAll(); err != nil {
			return nil, false, fmt.Errorf("undo the TRUNCATE attempt: %w", err)
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return recs, true, nil
}

// consumedResult is the index, among consumeByTruncateSQL's results, of
// the SELECT of the records; consumeResults is how many it answers.
const consumedResult, consumeResults = 2, 5

// readConsumed reads the answer to consumeByTruncateSQL, the records as
// they arrive: each value is copied once, into the arena (reading every
// result first, as ReadAll does, allocated and copied each value of a
// NewOrder block's thousands of records once more).
func readConsumed(mrr *pgconn.MultiResultReader) ([]backend.ChangeRecord, error) {
	var recs []backend.ChangeRecord
	var arena recordArena
	var perr error
	results := 0
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		for results == consumedResult && perr == nil && rr.NextRow() {
			recs, perr = appendRecord(recs, &arena, rr.Values())
		}
		if _, err := rr.Close(); err != nil { // reads what is left of it
			break // mrr.Close returns it
		}
		results++
	}
	if err := mrr.Close(); err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, perr
	}
	if results != consumeResults {
		return nil, fmt.Errorf("consume change records: %d results, want %d", results, consumeResults)
	}
	return recs, nil
}

// appendRecord appends the records of one row of relchain.changes (tbl,
// op, img, tx, old) to recs, copying the values into arena.
func appendRecord(recs []backend.ChangeRecord, arena *recordArena, v [][]byte) ([]backend.ChangeRecord, error) {
	tx, err := strconv.Atoi(string(v[3]))
	if err != nil {
		return recs, fmt.Errorf("tx %q: %w", v[3], err)
	}
	tbl := arena.copy(v[0])
	if v[4] != nil {
		recs = append(recs, backend.ChangeRecord{Table: tbl, Op: opBefore, Image: arena.copy(v[4]), Tx: tx})
	}
	return append(recs, backend.ChangeRecord{Table: tbl, Op: arena.copy(v[1]), Image: arena.copy(v[2]), Tx: tx}), nil
}

// recordArena holds copies of a block's change records' values in shared
// chunks: one allocation per arenaChunk bytes instead of three or four
// per record (the records of a TPC-C block are ~9,000, and their garbage
// was a tenth of the executor's Go CPU).
type recordArena struct{ buf []byte }

// arenaChunk is the size of a recordArena's chunks.
const arenaChunk = 64 << 10

// copy returns a copy of b in the arena, capped at its length: appending
// to it never writes over another value.
func (a *recordArena) copy(b []byte) []byte {
	if len(b) > cap(a.buf)-len(a.buf) {
		a.buf = make([]byte, 0, max(arenaChunk, len(b)))
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// change is one change record as TableDelta.Record takes it.
type change struct{ tbl, op, img []byte }

// deltaParts records changes into TableDeltas in up to GOMAXPROCS
// goroutines, each over a slice of its own, and returns a channel per
// goroutine that delivers its delta. The sum of the deltas is what
// recording every change into one would give.
func deltaParts(changes []change) []chan backend.TableDelta {
	n := min(runtime.GOMAXPROCS(0), len(changes)/minPerPart)
	if n < 1 {
		n = 1
	}
	parts := make([]chan backend.TableDelta, n)
	for i := range parts {
		part := changes[i*len(changes)/n : (i+1)*len(changes)/n]
		ch := make(chan backend.TableDelta, 1)
		parts[i] = ch
		go func() {
			d := make(backend.TableDelta)
			for _, c := range part {
				d.Record(c.tbl, c.op, c.img)
			}
			ch <- d
		}()
	}
	return parts
}

// minPerPart: fewer change records than this per goroutine are not worth
// one more.
const minPerPart = 64

// Commit writes s into relchain.meta and commits; with synchronous_commit
// on, data and state are durable together when it returns.
//
// A parallel block (OpenLanes) commits in three steps: every lane's
// db-transaction is prepared (PREPARE TRANSACTION), the writer's records
// s and commits — the decision — and every prepared lane commits (COMMIT
// PREPARED), while reads wait to take their snapshots (readSnapshot). A
// crash in between is resolved by resolveLeftovers.
func (k *block) Commit(ctx context.Context, s backend.State) error {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if k.done {
		return errBlockDone
	}
	defer k.lockLanes()()
	appHash := s.AppHash
	if appHash == nil {
		appHash = []byte{}
	}
	if err := k.flush(ctx); err != nil {
		_ = k.rollbackLocked(ctx)
		return fmt.Errorf("postgres: commit height %d: %w", s.Height, err)
	}
	if err := k.prepareLanes(ctx, s.Height); err != nil {
		_ = k.rollbackLocked(ctx)
		return fmt.Errorf("postgres: commit height %d: %w", s.Height, err)
	}
	if k.unconsumed {
		// Records a tx wrote and no ChangeDigest consumed (never so in the
		// executor) outlive this block: like records written out of band,
		// they must belong to no tx of the block that digests them.
		if _, err := k.conn.PgConn().Exec(ctx, untagSQL).ReadAll(); err != nil {
			_ = k.rollbackLocked(ctx)
			return fmt.Errorf("postgres: commit height %d: untag change records: %w", s.Height, err)
		}
	}
	_, err := k.conn.Exec(ctx, `INSERT INTO relchain.meta (id, height, app_hash) VALUES (1, $1, $2)
		ON CONFLICT (id) DO UPDATE SET height = EXCLUDED.height, app_hash = EXCLUDED.app_hash`, s.Height, appHash)
	if err != nil {
		_ = k.rollbackLocked(ctx)
		return fmt.Errorf("postgres: commit height %d: write state: %w", s.Height, err)
	}
	parallel := len(k.lanes) > 0
	if parallel {
		defer k.b.laneGate.Publish()()
	}
	tag, err := k.conn.PgConn().Exec(ctx, "COMMIT").ReadAll()
	writer := k.conn
	k.finish(err != nil)
	if err != nil {
		k.stmts.rolledBack(true)
		// A server's answer means the COMMIT failed; a lost connection
		// leaves it unknown, and resolveLeftovers decides when the writer
		// connects again.
		var pgErr *pgconn.PgError
		_ = k.endLanes(ctx, !errors.As(err, &pgErr))
		return fmt.Errorf("postgres: commit height %d: %w", s.Height, err)
	}
	// COMMIT of a failed transaction rolls back and says so only in the tag.
	if len(tag) != 1 || tag[0].CommandTag.String() != "COMMIT" {
		k.stmts.rolledBack(true)
		_ = k.endLanes(ctx, false)
		return fmt.Errorf("postgres: commit height %d: the db-transaction had failed and was rolled back", s.Height)
	}
	if k.stmts.schemaChanged {
		k.b.schemaGen++ // the committed schema changed (ConflictCatalog)
	}
	k.stmts.committed()
	if parallel {
		laneCommitStep(CrashLanesDecided, 0)
		if err := k.commitPrepared(ctx); err != nil {
			// The block is decided: the writer's session commits what is
			// left (or a later connection of it does).
			if rerr := resolveLeftovers(ctx, writer, k.b.writerCfg.Database); rerr != nil {
				_ = k.endLanes(ctx, true)
				return fmt.Errorf("postgres: commit height %d: %w; %w", s.Height, err, rerr)
			}
		}
		if err := k.endLanes(ctx, true); err != nil {
			return fmt.Errorf("postgres: commit height %d: %w", s.Height, err)
		}
	}
	k.b.lastRecords = k.consumed
	if k.migrated {
		k.b.oldImages = false
	}
	if k.consumed >= vacuumAfter {
		// The block is committed: a failed VACUUM only leaves the dead
		// tuples to autovacuum.
		_, _ = k.conn.PgConn().Exec(ctx, "VACUUM relchain.changes").ReadAll()
	}
	k.b.ckpt.MaybeCheckpoint(s.Height, k.b.dumpSnapshot)
	return nil
}

// Rollback implements backend.Block.
func (k *block) Rollback(ctx context.Context) error {
	return sqlstore.Rollback(&k.b.mu, &k.done, func() error { return k.rollback(ctx) })
}

// rollback ends the block and its lanes; the caller holds the backend's
// mutex.
func (k *block) rollback(ctx context.Context) error {
	defer k.lockLanes()()
	return k.rollbackLocked(ctx)
}

// rollbackLocked is rollback; the caller holds every lane's mutex too. On
// a closed connection (lost, or given up when a context ended) there is
// nothing to send: the server rolls the db-transaction back when the
// session ends, which cancelOnServer hastens.
func (k *block) rollbackLocked(ctx context.Context) error {
	lerr := k.endLanes(ctx, false)
	k.stmts.rolledBack(true)
	k.b.seqs = k.seqsAtBegin
	if k.conn.IsClosed() {
		k.cancelOnServer()
		k.finish(true)
		return lerr
	}
	_, err := k.conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll()
	k.finish(err != nil)
	if err != nil {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return lerr
}

// finish marks the block done; if the writer's state is unknown (an error
// while ending the transaction) it is dropped and the next Begin
// reconnects.
func (k *block) finish(dropConn bool) {
	k.done = true
	k.b.open = nil
	k.canonRecs, k.canonLane, k.truncates = nil, nil, nil // a caller may keep the Block
	if dropConn || k.conn.IsClosed() {
		k.b.dropWriter()
	}
}
