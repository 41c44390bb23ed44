package mysql

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/sqlcheck"
)

// savepoint is the one savepoint name relchain uses. MySQL replaces a
// savepoint by a new one of the same name, so savepoints never nest.
const savepoint = "relchain_tx"

var opBefore = []byte{'B'}

var errBlockDone = errors.New("mysql: block is already committed or rolled back")

// ErrDDLNotFirst is the *backend.Error of a DDL statement that arrives
// after the block already changed something (see block.execDDL).
var ErrDDLNotFirst = &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
	Message: "on MySQL a DDL statement must come before every other change of its block " +
		"(MySQL commits DDL implicitly, which would commit the block's earlier writes without it): " +
		"a bc-transaction with DDL must be alone in its block"}

// ErrDDLNotAlone is the *backend.Error of a statement that shares a
// bc-transaction with a DDL statement: on MySQL the DDL is committed at
// once and cannot be rolled back with the rest of its tx, so a
// bc-transaction with DDL must consist of that one statement.
var ErrDDLNotAlone = &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
	Message: "on MySQL a bc-transaction with DDL must consist of exactly that one DDL statement " +
		"(MySQL commits DDL implicitly: the rest of the tx could not be rolled back with it)"}

// block is the open db-transaction on the writer connection, and the
// block-wide state its lanes (lanes.go) share: the height, the DDL
// recovery, the digests' sums. What belongs to one connection — its
// db-transaction, savepoint, tx tag and clock — is its session; the
// writer's is embedded (lane 0). Its methods hold the backend's mutex, so
// Close cannot interleave with them.
type block struct {
	*session // the writer's: lane 0
	b        *Backend
	height   int64 // the block's height: committed height + 1
	done     bool
	// ddlSeq numbers the block's DDL statements (recovery records).
	ddlSeq int
	// delta is the digested changes' effect on the table sums; ddl
	// records that the block changed the schema (StateDigest rescans).
	delta backend.TableDelta
	ddl   bool
	// ranDDL: the block ran DDL, kept past StateDigest (which resets ddl)
	// for CanonicalDelta, which the executor calls after it.
	ranDDL bool
	// canonRecs are the images of the change records ChangeDigest
	// consumed, for CanonicalDelta (canonical_block.go), each with the
	// lane that consumed it.
	canonRecs []canonRecord
	// lanes are the sessions of lanes 1..n-1 (OpenLanes), nil if the
	// block has none; lanesUsed stays set once they were opened.
	lanes     []*session
	lanesUsed bool
}

// session is one connection's share of a block: the writer's (lane 0) or
// a lane's (lanes.go). Its methods hold mu, the backend's mutex for the
// writer and the lane's own for a lane, so lanes run concurrently.
type session struct {
	b      *Backend
	blk    *block
	mu     *sync.Mutex
	conn   *sql.Conn
	connID int64 // the connection's server thread id (see watch)
	lane   int
	// gid is a lane's XA transaction id (lanes.go); xaEnded: XA END was
	// sent, prepared: XA PREPARE succeeded.
	gid               string
	xaEnded, prepared bool
	// callCtx is the context of the method running (see watch): when it
	// ends, the server-side statement is killed and errors wrap its Err.
	callCtx context.Context
	// lost: the db-transaction is gone (deadlock, lost connection, a DDL
	// whose outcome is unknown); only Rollback is accepted.
	lost error
	env  sqlcheck.Env
	// inTx: a bc-transaction's savepoint is open. tagged: @relchain_tx may
	// hold a tx index (it outlives RELEASE). unconsumed: change records
	// tagged with a tx index may be waiting for ChangeDigest.
	inTx, tagged, unconsumed bool
	// txVars is the SET of the session's clock and tx tag the last
	// Savepoint sent ("" when start or a statement outside every
	// savepoint set them otherwise). Session variables are not
	// transactional (ROLLBACK TO keeps them) and no statement may set
	// them (the gate refuses variables), so a Savepoint whose SET would be
	// the same, as for every wl-transaction of one bc-transaction after
	// the first, skips that round trip.
	txVars string
	// dirty: something in this block changed data (a successful write, a
	// consumed change record, system state): DDL is refused from then on.
	dirty bool
	// txStmts counts the statements run in the open bc-transaction;
	// txDDL: one of them was DDL (see ErrDDLNotAlone).
	txStmts int
	txDDL   bool
	// txs are the bc-transactions a session of a parallel block ran (for
	// CanonicalDelta, which reads each key on the lane that wrote it).
	txs map[int]bool
}

var _ backend.Block = (*block)(nil)

// start opens the block's db-transaction; statements before the first
// Savepoint see the zero Env's clock (see timestampOf).
func (k *block) start(ctx context.Context) error {
	if _, err := k.conn.ExecContext(ctx, "SET timestamp = "+timestampOf(time.Time{})+", "+txVar+" = NULL"); err != nil {
		return err
	}
	k.tagged, k.txVars = false, ""
	_, err := k.conn.ExecContext(ctx, "START TRANSACTION")
	return err
}

// timestampOf is the value of the session variable timestamp for t: Unix
// seconds with microseconds. NOW(), CURRENT_TIMESTAMP, CURDATE(),
// UNIX_TIMESTAMP() & co. read it (SYSDATE() does not; the gate refuses
// it). MySQL's timestamp cannot be before 1970-01-01 00:00:01 (0 means
// "the real clock again"), so earlier times, the zero Env's included, read
// as 1970-01-01 00:00:01 UTC.
func timestampOf(t time.Time) string {
	t = t.UTC()
	if t.Unix() < 1 {
		return "1"
	}
	return strconv.FormatInt(t.Unix(), 10) + "." + fmt.Sprintf("%06d", t.Nanosecond()/1000)
}

// check returns why the block accepts no statement, or nil.
func (k *session) check() error {
	if k.blk.done {
		return errBlockDone
	}
	if k.lost != nil {
		return fmt.Errorf("mysql: the block's db-transaction is lost (%w): %v", backend.ErrBlockLost, k.lost)
	}
	return nil
}

// Savepoint opens the tx's savepoint and pins the session's clock to
// env.Time and the change records' tx to env.Tx (see txVars: not again
// when they hold those values already).
func (k *session) Savepoint(ctx context.Context, env sqlcheck.Env) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.check(); err != nil {
		return err
	}
	k.env = env
	ctx, stop := k.watch(ctx)
	defer stop()
	if _, err := k.conn.ExecContext(ctx, "SAVEPOINT "+savepoint); err != nil {
		return k.fault("savepoint", err)
	}
	if vars := "SET timestamp = " + timestampOf(env.Time) + ", " + txVar + " = " + strconv.Itoa(env.Tx); vars != k.txVars {
		if _, err := k.conn.ExecContext(ctx, vars); err != nil {
			return k.fault("savepoint", err)
		}
		k.txVars = vars
	}
	k.inTx, k.tagged, k.unconsumed = true, true, true
	k.txStmts, k.txDDL = 0, false
	if k.blk.lanesUsed {
		if k.txs == nil {
			k.txs = map[int]bool{}
		}
		k.txs[env.Tx] = true
	}
	return nil
}

// Release ends the tx's savepoint without a round trip: MySQL replaces a
// savepoint by the next one of the same name (the next tx's Savepoint),
// and COMMIT releases it, so RELEASE SAVEPOINT would change nothing the
// block can observe (measured: a quarter of a single-statement tx's round
// trips).
func (k *session) Release(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.check(); err != nil {
		return err
	}
	k.inTx, k.txStmts, k.txDDL = false, 0, false
	return nil
}

// RollbackTo undoes everything since Savepoint (except a DDL statement,
// which MySQL cannot undo: see execDDL). The savepoint stays until the
// next Savepoint replaces it.
func (k *session) RollbackTo(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.check(); err != nil {
		return err
	}
	k.inTx, k.txStmts, k.txDDL = false, 0, false
	ctx, stop := k.watch(ctx)
	defer stop()
	if _, err := k.conn.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+savepoint); err != nil {
		return k.fault("rollback to savepoint", err)
	}
	return nil
}

// fault records that the db-transaction's state is unknown and returns a
// node fault.
func (k *session) fault(what string, err error) error {
	err = k.wrapInterrupted(err)
	k.lost = err
	return fmt.Errorf("mysql: %s: %w", what, err)
}

// Exec runs one statement. A statement failure is returned as a
// *backend.Error. A deadlock or lock-wait timeout (possible only against
// a session outside relchain: the writer is alone) rolls back MySQL's
// transaction: Exec returns an error wrapping backend.ErrBlockLost without
// a *backend.Error, a node fault, since another node would not fail the
// same way; the block then accepts only Rollback. Other node faults
// (connection lost, disk full, context cancelled) likewise.
func (k *session) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	if k.b.opts.pg {
		return k.execPostgres(ctx, sql, args)
	}
	st, err := k.b.verdict.gated(sql)
	if err != nil {
		return nil, k.b.syntaxFirst(ctx, st, err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.check(); err != nil {
		return nil, err
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	if err := k.untag(ctx); err != nil {
		return nil, err
	}
	if k.inTx {
		k.txStmts++
		if k.txDDL || (st.ddl && k.txStmts > 1) {
			return nil, ErrDDLNotAlone
		}
	}
	if st.ddl {
		if err := k.refuseDDL(); err != nil {
			return nil, err
		}
		return k.blk.execDDL(ctx, st, args)
	}
	rows, err := runStmt(ctx, k.conn, st, args, limits{})
	if err == nil {
		if !st.read {
			k.dirty = true
		}
		return rows, nil
	}
	return nil, k.stmtError(err)
}

// stmtError classifies a failed statement's error.
func (k *session) stmtError(err error) error {
	if e := backend.AsError(err); e != nil { // arguments, before anything was sent
		return e
	}
	if transient(err) {
		// A lost connection is never a result, whatever its number
		// (classOf takes unlisted numbers as the statement's own).
		return k.fault("exec", err)
	}
	switch n := mysqlNumber(err); {
	case (n == errDeadlock || n == errLockWaitTimeout) && k.blk.lanesUsed:
		// Another lane held the lock (lanes.go): not the tx's failure.
		k.lost = err
		return fmt.Errorf("mysql: exec: %w: %w", backend.ErrLaneConflict, err)
	case n == errDeadlock || n == errLockWaitTimeout:
		k.lost = err
		return fmt.Errorf("mysql: exec: %w: %w", backend.ErrBlockLost, err)
	}
	be := asBackendError(err)
	if be == nil || k.interrupted() != nil {
		return k.fault("exec", err)
	}
	return be
}

// execDDL runs a DDL statement. MySQL and MariaDB commit the open
// transaction before a DDL statement and the DDL itself at once; it
// cannot be rolled back. So:
//
//  1. A DDL statement is accepted only while the block has changed
//     nothing (ErrDDLNotFirst otherwise): the executor puts a bc-transaction
//     with DDL alone in its block. The open db-transaction, which holds
//     nothing, is rolled back.
//  2. A recovery record {height, n-th DDL of the block, statement hash,
//     fingerprint of the replicated schema before it} is committed in its
//     own transaction.
//  3. The DDL runs (atomic per statement in MariaDB 10.6+ and MySQL 8), and
//     the capture triggers are brought in line with the new schema.
//  4. A new db-transaction opens (and the tx's savepoint again); the rest
//     of the block runs in it, and Commit writes the height and AppHash and
//     deletes the recovery record in it.
//
// If the node stops between 3 and Commit, CometBFT replays the block on
// restart. The DDL then finds its recovery record: if the schema
// fingerprint differs from the recorded one, the DDL took effect and is
// not run again (its result, success, is reported as before); if it is
// equal, the DDL did not happen and runs. A DDL that failed but changed
// the schema (MariaDB's DROP TABLE a, missing drops a) has its error kept
// in the record and reported again.
func (k *block) execDDL(ctx context.Context, st stmtInfo, args []any) (*backend.Rows, error) {
	if k.dirty {
		return nil, ErrDDLNotFirst
	}
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	k.ddlSeq++
	seq := k.ddlSeq
	stmtHash := sha256.Sum256([]byte(st.text))
	if _, err := k.conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		return nil, k.fault("ddl: leave the block's db-transaction", err)
	}
	k.lost = errors.New("a DDL statement is running") // until the transaction is reopened

	var recStmt, recFP []byte
	var errClass, errState, errMsg sql.NullString
	err := k.conn.QueryRowContext(ctx, `SELECT stmt, fingerprint, err_class, err_state, err_msg FROM relchain_ddl
		WHERE height = ? AND seq = ?`, k.height, seq).Scan(&recStmt, &recFP, &errClass, &errState, &errMsg)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, k.fault("ddl: read recovery record", err)
	}
	before, err := schemaFingerprint(ctx, k.conn)
	if err != nil {
		return nil, k.fault("ddl", err)
	}
	run := true
	if found {
		if !bytes.Equal(recStmt, stmtHash[:]) {
			return nil, k.fault("ddl", fmt.Errorf("recovery record for DDL %d of block %d is for another statement", seq, k.height))
		}
		if errClass.Valid {
			if err := k.reopen(ctx); err != nil {
				return nil, err
			}
			k.schemaChanged()
			return nil, &backend.Error{Class: backend.Class(errClass.String), SQLState: errState.String, Message: errMsg.String}
		}
		run = bytes.Equal(recFP, before)
	} else {
		if _, err := k.conn.ExecContext(ctx, `INSERT INTO relchain_ddl (height, seq, stmt, fingerprint) VALUES (?, ?, ?, ?)`,
			k.height, seq, stmtHash[:], before); err != nil {
			return nil, k.fault("ddl: write recovery record", err)
		}
	}
	if err := k.hook("before"); err != nil {
		return nil, err
	}
	if run {
		if _, err := k.conn.ExecContext(ctx, st.text, args...); err != nil {
			return nil, k.ddlFailed(ctx, seq, before, err)
		}
	}
	if err := syncTriggers(ctx, k.conn); err != nil {
		return nil, k.fault("ddl: sync capture triggers", err)
	}
	k.schemaChanged()
	if err := k.hook("after"); err != nil {
		return nil, err
	}
	k.txDDL = k.inTx
	if err := k.reopen(ctx); err != nil {
		return nil, err
	}
	// The schema change enters the change digest (and the tx's effect
	// digest) as an 'S' record of the statement's text; the state digest
	// rescans (k.ddl).
	if _, err := k.conn.ExecContext(ctx, `INSERT INTO relchain_changes (tbl, op, img, old, tx) VALUES ('', 'S', ?, NULL, COALESCE(`+txVar+`, -1))`,
		st.text); err != nil {
		return nil, k.fault("ddl: record schema change", err)
	}
	return &backend.Rows{}, nil
}

// ddlFailed settles DDL seq of the block, which failed with err and
// whose schema fingerprint before it ran was before, and returns the error
// for Exec: a node fault when the outcome is unknown (the recovery record
// stays and a replay decides); else the statement's own error, after the
// record is deleted (the schema did not change) or keeps the outcome (it
// did), and the block's db-transaction is reopened.
func (k *block) ddlFailed(ctx context.Context, seq int, before []byte, err error) error {
	be := asBackendError(err)
	if be == nil || transient(err) || k.interrupted() != nil {
		return k.fault("ddl", err)
	}
	after, ferr := schemaFingerprint(ctx, k.conn)
	if ferr != nil {
		return k.fault("ddl", ferr)
	}
	if bytes.Equal(after, before) {
		_, err = k.conn.ExecContext(ctx, `DELETE FROM relchain_ddl WHERE height = ? AND seq = ?`, k.height, seq)
	} else {
		// Failed, but changed the schema: keep the outcome.
		k.schemaChanged()
		_, err = k.conn.ExecContext(ctx, `UPDATE relchain_ddl SET err_class = ?, err_state = ?, err_msg = ?
			WHERE height = ? AND seq = ?`, string(be.Class), be.SQLState, be.Message, k.height, seq)
		if err == nil {
			err = syncTriggers(ctx, k.conn)
		}
	}
	if err != nil {
		return k.fault("ddl: update recovery record", err)
	}
	if err := k.reopen(ctx); err != nil {
		return err
	}
	return be
}

// schemaChanged notes that a DDL statement of the block changed the
// schema (MySQL committed it at once): the state digest rescans (k.ddl)
// and the emulated catalog reads the schema again (Backend.schemaGen).
func (k *block) schemaChanged() {
	k.ddl = true
	k.b.schemaGen.Add(1)
}

// hook runs the test hook (options.ddlHook) at stage.
func (k *block) hook(stage string) error {
	if h := k.b.opts.ddlHook; h != nil {
		if err := h(stage); err != nil {
			return k.fault("ddl: test hook at stage "+stage, err)
		}
	}
	return nil
}

// reopen starts the block's db-transaction again after a DDL statement,
// and the tx's savepoint if one was open.
func (k *block) reopen(ctx context.Context) error {
	if _, err := k.conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return k.fault("ddl: reopen the block's db-transaction", err)
	}
	if k.inTx {
		if _, err := k.conn.ExecContext(ctx, "SAVEPOINT "+savepoint); err != nil {
			return k.fault("ddl: reopen the savepoint", err)
		}
	}
	k.lost = nil
	return nil
}

// ChangeDigest consumes the change records of the block so far and hashes
// them: all of them for the block, and each tx's own (by their tx column)
// for its effect digest, in canonical order (backend.DigestChanges, the
// encoding PostgreSQL's backend uses too).
func (k *block) ChangeDigest(ctx context.Context) (backend.Changes, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		return backend.Changes{}, err
	}
	defer k.lockLanes()()
	// Each lane consumes its own records, in its own db-transaction (it
	// sees no other lane's); all of them are digested together, in
	// canonical order, as a serial block's would be.
	var recs []backend.ChangeRecord
	for _, s := range k.sessions() {
		r, err := s.consumeRecords(ctx)
		if err != nil {
			return backend.Changes{}, err
		}
		for _, rec := range r {
			if len(rec.Table) > 0 {
				k.canonRecs = append(k.canonRecs, canonRecord{rec.Table, rec.Image, rec.Tx, s.lane})
			}
		}
		recs = append(recs, r...)
	}
	// The state digest's part (an LtHash element per image, the costly
	// part) is a sum: it runs on the other cores while this goroutine
	// sorts and hashes a copy of the records (DigestChanges sorts in
	// place; backend.RecordParallel).
	wait := k.delta.RecordParallel(len(recs), 0, func(i int) (table, op, image []byte) {
		return recs[i].Table, recs[i].Op, recs[i].Image
	})
	digest := backend.DigestChanges(slices.Clone(recs))
	wait()
	return digest, nil
}

// consumeRecords reads and deletes the change records its session sees.
// Read and delete in one statement on MariaDB; on MySQL lock what is read
// and delete exactly that. Records that a session outside relchain
// commits meanwhile are then left for the next block, never deleted
// unread. With lanes, every session reads without locking (a locking read
// would wait for the other lanes' uncommitted records) and deletes what
// it read by key.
func (k *session) consumeRecords(ctx context.Context) ([]backend.ChangeRecord, error) {
	if k.lost != nil {
		return nil, fmt.Errorf("mysql: change digest: lane %d: %w: %v", k.lane, backend.ErrBlockLost, k.lost)
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	byKey := !k.b.flavor.mariadb || k.blk.lanesUsed
	q := "DELETE FROM relchain_changes RETURNING tbl, op, img, old, tx, seq"
	switch {
	case k.blk.lanesUsed:
		q = "SELECT tbl, op, img, old, tx, seq FROM relchain_changes"
	case byKey:
		q = "SELECT tbl, op, img, old, tx, seq FROM relchain_changes FOR UPDATE"
	}
	rows, err := k.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, k.fault("change digest", err)
	}
	var seqs []any
	var recs []backend.ChangeRecord
	for rows.Next() {
		var tbl, op, img []byte
		var old sql.RawBytes
		var tx int
		var seq int64
		if err := rows.Scan(&tbl, &op, &img, &old, &tx, &seq); err != nil {
			rows.Close()
			return nil, k.fault("change digest", err)
		}
		if old != nil {
			recs = append(recs, backend.ChangeRecord{Table: tbl, Op: opBefore, Image: bytes.Clone(old), Tx: tx})
		}
		recs = append(recs, backend.ChangeRecord{Table: tbl, Op: op, Image: img, Tx: tx})
		seqs = append(seqs, seq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, k.fault("change digest", err)
	}
	if len(recs) > 0 {
		for len(seqs) > 0 && byKey {
			n := min(len(seqs), 1000)
			q := "DELETE FROM relchain_changes WHERE seq IN (?" + strings.Repeat(", ?", n-1) + ")"
			if k.blk.lanesUsed {
				// Point by point (a join on the primary key, eq_ref): a
				// range read, as IN may be, reads past each key into the
				// other lanes' uncommitted records and waits for them.
				q = "DELETE c FROM (SELECT ? AS s" + strings.Repeat(" UNION ALL SELECT ?", n-1) +
					") v STRAIGHT_JOIN relchain_changes c ON c.seq = v.s"
			}
			if _, err := k.conn.ExecContext(ctx, q, seqs[:n]...); err != nil {
				return nil, k.stmtError(err)
			}
			seqs = seqs[n:]
		}
		k.dirty = true
	}
	k.unconsumed = k.inTx
	return recs, nil
}

// Commit writes s into relchain_meta, deletes the block's DDL recovery
// records and commits; with innodb_flush_log_at_trx_commit=1 data and
// state are durable together when it returns.
func (k *block) Commit(ctx context.Context, s backend.State) error {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		if !k.done {
			_ = k.rollback(ctx)
		}
		return fmt.Errorf("mysql: commit height %d: %w", s.Height, err)
	}
	appHash := s.AppHash
	if appHash == nil {
		appHash = []byte{}
	}
	defer k.lockLanes()()
	fail := func(what string, err error) error {
		_ = k.rollbackLocked(ctx)
		return fmt.Errorf("mysql: commit height %d: %s: %w", s.Height, what, err)
	}
	if err := k.prepareLanes(ctx); err != nil {
		return fail("prepare lanes", err)
	}
	if k.unconsumed {
		// Records a tx wrote and no ChangeDigest consumed (never so in the
		// executor) belong to no tx of the block that digests them.
		if _, err := k.conn.ExecContext(ctx, "UPDATE relchain_changes SET tx = -1 WHERE tx <> -1"); err != nil {
			return fail("untag change records", err)
		}
	}
	if _, err := k.conn.ExecContext(ctx, `INSERT INTO relchain_meta (id, height, app_hash) VALUES (1, ?, ?)
		ON DUPLICATE KEY UPDATE height = VALUES(height), app_hash = VALUES(app_hash)`, s.Height, appHash); err != nil {
		return fail("write state", err)
	}
	if err := k.checkAbandonedDDL(ctx); err != nil {
		return fail("check DDL recovery records", err)
	}
	if k.ddlSeq > 0 {
		if _, err := k.conn.ExecContext(ctx, "DELETE FROM relchain_ddl WHERE height <= ?", s.Height); err != nil {
			return fail("delete DDL recovery records", err)
		}
	}
	parallel := len(k.lanes) > 0
	if parallel {
		defer k.b.laneGate.Publish()()
	}
	if _, err := k.conn.ExecContext(ctx, "COMMIT"); err != nil {
		// A lost connection leaves the COMMIT's outcome unknown:
		// resolveLeftovers decides at the next Begin.
		k.endLanes(ctx, true)
		k.finish(true)
		return fmt.Errorf("mysql: commit height %d: %w", s.Height, err)
	}
	if parallel {
		laneCommitStep(CrashLanesDecided, 0)
		cerr := k.commitPrepared(ctx)
		k.endLanes(ctx, true)
		if cerr != nil {
			// The block is decided: the lanes' connections are gone, so
			// the writer's connection commits what is left.
			if rerr := resolveLeftovers(ctx, k.conn, k.b.dbName); rerr != nil {
				k.finish(true)
				return fmt.Errorf("mysql: commit height %d: %w; %w", s.Height, cerr, rerr)
			}
		}
	}
	k.finish(false)
	k.b.ckpt.MaybeCheckpoint(s.Height, k.b.dumpSnapshot)
	return nil
}

// Rollback implements backend.Block.
func (k *block) Rollback(ctx context.Context) error {
	return sqlstore.Rollback(&k.b.mu, &k.done, func() error { return k.rollback(ctx) })
}

// rollback ends the block; the caller holds the backend's mutex. A lost
// block whose connection is gone (killed after a cancellation, or lost)
// has nothing left to roll back: the server rolled its transaction back
// with the connection, and the next Begin opens a new one.
func (k *block) rollback(ctx context.Context) error {
	defer k.lockLanes()()
	return k.rollbackLocked(ctx)
}

// rollbackLocked is rollback; the caller holds every lane's mutex too.
func (k *block) rollbackLocked(ctx context.Context) error {
	k.endLanes(ctx, false)
	_, err := k.conn.ExecContext(ctx, "ROLLBACK")
	k.finish(err != nil || k.lost != nil)
	if err != nil && k.lost != nil && asBackendError(err) == nil && mysqlNumber(err) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mysql: rollback: %w", err)
	}
	return nil
}

// finish marks the block done and returns the writer connection to its
// pool, or discards it when its state is unknown.
func (k *block) finish(bad bool) {
	k.done = true
	k.b.open = nil
	if !bad && k.lanesUsed {
		_, err := k.conn.ExecContext(context.Background(), "SET SESSION innodb_lock_wait_timeout = DEFAULT")
		bad = err != nil
	}
	if bad {
		k.abandon()
		return
	}
	k.conn.Close()
}

// abandon discards the writer connection: the next Begin opens another.
func (k *block) abandon() {
	_ = k.conn.Raw(func(any) error { return driver.ErrBadConn })
	k.conn.Close()
}

// ErrAbandonedDDL is wrapped by Commit's error when an earlier execution
// of the same height, since rolled back (a speculative execution of
// another block, cancelled or rejected), ran a DDL statement that this
// block does not have: MySQL committed it at once, so this node's schema
// is no longer the network's. The node must recover (from a checkpoint).
var ErrAbandonedDDL = errors.New("a DDL statement of an abandoned execution of this height took effect (MySQL commits DDL at once): this node's schema differs from the network's; recover the node from a checkpoint")

// checkAbandonedDDL fails if recovery records of this height remain that
// this block's DDL statements did not consume.
func (k *block) checkAbandonedDDL(ctx context.Context) error {
	var n int
	if err := k.conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM relchain_ddl WHERE height = ? AND seq > ?",
		k.height, k.ddlSeq).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return ErrAbandonedDDL
	}
	return nil
}
