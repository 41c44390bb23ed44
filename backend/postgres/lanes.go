package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// Lanes: a block's bc-transactions on several connections at once
// (backend.Lanes; DESIGN.md, "Lanes: a parallel block"). Lane 0 is the
// writer's session; lanes 1..n-1 are sessions of their own, on connections
// the backend keeps between blocks (laneConn), each with its own
// db-transaction. Commit prepares them (PREPARE TRANSACTION), commits the
// writer's db-transaction, which records the height (the decision), and
// then commits the prepared ones; resolveLeftovers finishes what a crash
// or a lost connection left in between.

// laneLockTimeout bounds a lane's (and, while lanes are open, the
// writer's) wait for a lock: a lane that waits for another lane's lock
// would otherwise wait for ever, since the other lane may wait for the
// executor, which waits for this one. A node-local timeout is harmless
// here: it decides no tx's outcome (the error wraps
// backend.ErrLaneConflict and the executor runs the block serially).
const laneLockTimeout = 3 * time.Second

// gidPrefix starts the global id of every prepared lane:
// relchain:<database>:<height>:<lane>. Several validators may share one
// server (prepared transactions are the cluster's), so the database name
// is part of it.
const gidPrefix = "relchain:"

// laneGID is the prepared transaction id of lane i of height h.
func (b *Backend) laneGID(h int64, i int) string {
	return gidPrefix + b.writerCfg.Database + ":" + strconv.FormatInt(h, 10) + ":" + strconv.Itoa(i)
}

// laneConn is a lane's connection, kept between blocks with its prepared
// statements (blockStmts); schemaGen is the backend's schemaGen when its
// statements were last known good.
type laneConn struct {
	conn      *pgx.Conn
	stmts     blockStmts
	schemaGen uint64
}

// laneConfig is a lane's connection configuration: the writer's (the same
// role, pinned settings, plan mode and cancel handling) with bounded lock
// waits.
func laneConfig(writerCfg *pgx.ConnConfig) *pgx.ConnConfig {
	cfg := writerCfg.Copy()
	cfg.RuntimeParams["lock_timeout"] = strconv.FormatInt(laneLockTimeout.Milliseconds(), 10)
	cfg.RuntimeParams["application_name"] = "relchain-lane"
	return cfg
}

var _ backend.Lanes = ctxBlock{}

// OpenLanes implements backend.Lanes (see backend.Lanes for the contract;
// DESIGN.md for how). It fails with an error wrapping backend.ErrNoLanes
// when the server allows fewer prepared transactions than n-1
// (max_prepared_transactions) or the block must rescan its tables (a
// migration of the row image format): the executor then runs the block
// serially.
func (c ctxBlock) OpenLanes(ctx context.Context, n int) ([]backend.Lane, error) {
	lanes, err := c.block.openLanes(ctx, n)
	return lanes, withCtx(ctx, err)
}

func (k *block) openLanes(ctx context.Context, n int) ([]backend.Lane, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	switch {
	case k.done:
		return nil, errBlockDone
	case n < 2:
		return nil, fmt.Errorf("postgres: open lanes: %d lanes, want 2 or more", n)
	case k.lanesUsed:
		return nil, errors.New("postgres: open lanes: the block's lanes are open already")
	case k.inTx || k.savepointDue || k.consumed > 0 || k.unconsumed:
		return nil, errors.New("postgres: open lanes: the block ran statements already")
	case k.migrating:
		return nil, fmt.Errorf("postgres: open lanes: %w: this block migrates the row image format (a full rescan)", backend.ErrNoLanes)
	case n-1 > k.b.maxPrepared:
		return nil, fmt.Errorf("postgres: open lanes: %w: the server's max_prepared_transactions is %d, and %d lanes need %d (set max_prepared_transactions in postgresql.conf, a restart; see backend/postgres/DESIGN.md, \"Lanes\")",
			backend.ErrNoLanes, k.b.maxPrepared, n, n-1)
	}
	ms := strconv.FormatInt(laneLockTimeout.Milliseconds(), 10)
	if err := k.simpleLocked(ctx, "open lanes", "SET LOCAL lock_timeout = "+ms); err != nil {
		return nil, err
	}
	k.lanesUsed = true
	out := []backend.Lane{laneHandle{k.session}}
	for i := 1; i < n; i++ {
		s, err := k.openLane(ctx, i)
		if err != nil {
			return nil, unavailable(ctx, fmt.Errorf("postgres: open lane %d: %w", i, err))
		}
		k.lanes = append(k.lanes, s)
		out = append(out, laneHandle{s})
	}
	return out, nil
}

// openLane begins lane i's db-transaction on a kept connection or a new
// one; the caller holds the backend's mutex. A kept connection that fails
// to begin (its session lost with a server restart, which a connection
// notices only when used) is closed and the next one tried, so one outage
// costs one retry of the block, not one per kept connection.
func (k *block) openLane(ctx context.Context, i int) (*session, error) {
	b := k.b
	for {
		lc, kept, err := b.laneConn(ctx)
		if err != nil {
			return nil, err
		}
		if lc.schemaGen != b.schemaGen {
			// A block changed the schema since this connection's statements
			// were prepared: they may be stale (see blockStmts).
			lc.stmts.invalidate()
			lc.schemaGen = b.schemaGen
		}
		if _, err := lc.conn.PgConn().Exec(ctx, beginSQL).ReadAll(); err != nil {
			closeLaneConn(lc)
			if kept && ctx.Err() == nil && transient(err) {
				continue
			}
			return nil, fmt.Errorf("begin: %w", err)
		}
		return &session{b: b, blk: k, mu: new(sync.Mutex), stmts: &lc.stmts, conn: lc.conn, lane: i, laneConn: lc}, nil
	}
}

// laneConn takes a kept lane connection (kept reports so) or connects a
// new one; the caller holds the backend's mutex.
func (b *Backend) laneConn(ctx context.Context) (lc *laneConn, kept bool, err error) {
	for len(b.laneConns) > 0 {
		lc = b.laneConns[len(b.laneConns)-1]
		b.laneConns = b.laneConns[:len(b.laneConns)-1]
		if !lc.conn.IsClosed() {
			return lc, true, nil
		}
	}
	lc, err = b.connectLane(ctx, b.schemaGen)
	return lc, false, err
}

// connectLane connects a new lane connection, whose prepared statements
// (none yet) are those of the committed schema of schemaGen.
func (b *Backend) connectLane(ctx context.Context, schemaGen uint64) (*laneConn, error) {
	conn, err := pgx.ConnectConfig(ctx, laneConfig(b.writerCfg))
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	lc := &laneConn{conn: conn, schemaGen: schemaGen}
	lc.stmts.on(conn.PgConn())
	return lc, nil
}

func closeLaneConn(lc *laneConn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = lc.conn.Close(ctx)
	cancel()
}

// closeLaneConns closes the kept lane connections; the caller holds the
// backend's mutex.
func (b *Backend) closeLaneConns() {
	for _, lc := range b.laneConns {
		closeLaneConn(lc)
	}
	b.laneConns = nil
}

// lockConflict reports the SQLSTATEs of a lane that waited for another
// lane: lock_not_available (its lock_timeout) and deadlock_detected.
func lockConflict(code string) bool { return code == "55P03" || code == "40P01" }

// laneError wraps backend.ErrLaneConflict into an error of a lock wait
// given up or a deadlock, and classifies a lost connection as
// backend.ErrDatabaseUnavailable.
func laneError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && lockConflict(pgErr.Code) && !errors.Is(err, backend.ErrLaneConflict) {
		err = fmt.Errorf("%w: %w", backend.ErrLaneConflict, err)
	}
	return backend.ClassifyUnavailable(ctx, withCtx(ctx, err), transient)
}

// laneHandle is a lane as the executor drives it: the session's methods,
// with ctxBlock's handling of contexts and the errors of lock conflicts
// and lost connections.
type laneHandle struct{ s *session }

var _ backend.Lane = laneHandle{}

func (l laneHandle) Savepoint(ctx context.Context, env sqlcheck.Env) error {
	return laneError(ctx, l.s.Savepoint(ctx, env))
}

func (l laneHandle) Release(ctx context.Context) error {
	return laneError(ctx, l.s.Release(ctx))
}

func (l laneHandle) RollbackTo(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: rollback to savepoint: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, l.s.conn.PgConn())
	err := l.s.RollbackTo(driverCtx)
	stop()
	return laneError(ctx, err)
}

func (l laneHandle) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: exec: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, l.s.conn.PgConn())
	rows, err := l.s.Exec(driverCtx, sql, args)
	stop()
	return rows, laneError(ctx, err)
}

// sessions are the block's sessions, the writer's first.
func (k *block) sessions() []*session {
	return append([]*session{k.session}, k.lanes...)
}

// lockLanes locks every lane's mutex (the caller holds the backend's,
// which is the writer's) and returns the function that unlocks them.
func (k *block) lockLanes() func() {
	lanes := k.lanes
	for _, s := range lanes {
		s.mu.Lock()
	}
	return func() {
		for _, s := range lanes {
			s.mu.Unlock()
		}
	}
}

// untagSQL: records a tx wrote and no ChangeDigest consumed (never so in
// the executor) outlive the block; like records written out of band, they
// must belong to no tx of the block that digests them.
const untagSQL = "UPDATE relchain.changes SET tx = -1 WHERE tx <> -1"

// prepareLanes prepares every lane's db-transaction (PREPARE
// TRANSACTION), the lanes at once (each on its own connection, so the
// server's group commit can take their WAL flushes together); the caller
// holds every mutex. On failure the caller rolls the block back: the
// lanes prepared are rolled back by endLanes, the others with their
// db-transactions.
func (k *block) prepareLanes(ctx context.Context, h int64) error {
	return backend.EachLane(k.lanes, laneNumber, func(s *session) error {
		if err := s.flush(ctx); err != nil {
			return err
		}
		stmts := ""
		if s.unconsumed {
			stmts = untagSQL + "; "
		}
		gid := k.b.laneGID(h, s.lane)
		res, err := s.conn.PgConn().Exec(ctx, stmts+"PREPARE TRANSACTION '"+gid+"'").ReadAll()
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		// PREPARE TRANSACTION of a failed db-transaction rolls it back, as
		// COMMIT does, and says so only in its tag.
		if len(res) == 0 || res[len(res)-1].CommandTag.String() != "PREPARE TRANSACTION" {
			return errors.New("prepare: the db-transaction had failed and was rolled back")
		}
		s.gid = gid
		laneCommitStep(CrashLanePrepared, s.lane)
		return nil
	})
}

// laneNumber is a lane session's number in its block (backend.EachLane).
func laneNumber(s *session) int { return s.lane }

// commitPrepared commits the prepared lanes, each on its own connection
// (now outside a db-transaction), the lanes at once; the caller holds
// every mutex. A lane it could not commit is left to resolveLeftovers, on
// the writer's session.
func (k *block) commitPrepared(ctx context.Context) error {
	return backend.EachLane(k.lanes, laneNumber, func(s *session) error {
		if _, err := s.conn.PgConn().Exec(ctx, "COMMIT PREPARED '"+s.gid+"'").ReadAll(); err != nil {
			return fmt.Errorf("commit prepared: %w", err)
		}
		s.gid = ""
		laneCommitStep(CrashLaneCommitPrepared, s.lane)
		return nil
	})
}

// endLanes ends every lane: a db-transaction still open is rolled back
// and a prepared one is rolled back too (unless keepPrepared: the
// writer's COMMIT may have taken effect, so resolveLeftovers decides);
// the healthy connections are kept for the next block. The caller holds
// every mutex.
func (k *block) endLanes(ctx context.Context, keepPrepared bool) error {
	var errs []error
	for _, s := range k.lanes {
		s.done = true
		pc := s.conn.PgConn()
		var err error
		switch {
		case s.conn.IsClosed():
			cancelOnServerOf(pc)
		case s.gid != "" && !keepPrepared:
			_, err = pc.Exec(ctx, "ROLLBACK PREPARED '"+s.gid+"'").ReadAll()
			if err == nil {
				s.gid = ""
			}
		case s.gid == "" && pc.TxStatus() != 'I':
			_, err = pc.Exec(ctx, "ROLLBACK").ReadAll()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("lane %d: %w", s.lane, err))
		}
		if err != nil || s.conn.IsClosed() || pc.TxStatus() != 'I' || takeCancelled(pc) {
			closeLaneConn(s.laneConn) // a cancelled session may still take a stray cancel (cancelledSessions)
			continue
		}
		s.stmts.rolledBack(true)
		k.b.laneConns = append(k.b.laneConns, s.laneConn)
	}
	k.lanes = nil
	if len(errs) > 0 {
		return fmt.Errorf("postgres: end lanes: %w", errors.Join(errs...))
	}
	return nil
}

// cancelOnServerOf asks the server to cancel what pc's session runs (its
// connection is closed).
func cancelOnServerOf(pc *pgconn.PgConn) { sendCancelRequest(pc) }

// leftoversSQL lists this database's prepared lanes. The writer waits
// first for every db-transaction that wrote relchain.meta (a lost
// session's COMMIT still under way: see RecordedState), so the height it
// reads is final until the next block.
const leftoversSQL = `BEGIN; LOCK TABLE relchain.meta IN SHARE MODE;
SELECT coalesce((SELECT height FROM relchain.meta WHERE id = 1), 0)::text;
SELECT gid FROM pg_catalog.pg_prepared_xacts WHERE database = pg_catalog.current_database() AND pg_catalog.starts_with(gid, $prefix$%s$prefix$) ORDER BY gid;
COMMIT`

// resolveLeftovers finishes the lanes a crash or a lost connection left
// prepared (see Commit): a lane of a height the database records (the
// writer's db-transaction committed, which decided the block) commits, any
// other rolls back. It runs on conn, a writer's session outside a
// db-transaction: at Open, and whenever the writer connects again (before
// the next Begin or RecordedState). COMMIT PREPARED needs the role that
// prepared, which the writer is.
func resolveLeftovers(ctx context.Context, conn *pgx.Conn, database string) error {
	prefix := gidPrefix + database + ":"
	if strings.Contains(prefix, "$prefix$") {
		return errors.New("postgres: resolve prepared lanes: unexpected database name")
	}
	res, err := conn.PgConn().Exec(ctx, fmt.Sprintf(leftoversSQL, prefix)).ReadAll()
	if err != nil {
		if conn.PgConn().TxStatus() != 'I' {
			_, _ = conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll()
		}
		return fmt.Errorf("postgres: resolve prepared lanes: %w", err)
	}
	if len(res) != 5 || len(res[2].Rows) != 1 {
		return errors.New("postgres: resolve prepared lanes: unexpected answer")
	}
	recorded, err := strconv.ParseInt(string(res[2].Rows[0][0]), 10, 64)
	if err != nil {
		return fmt.Errorf("postgres: resolve prepared lanes: height: %w", err)
	}
	for _, row := range res[3].Rows {
		gid := string(row[0])
		rest := strings.Split(strings.TrimPrefix(gid, prefix), ":")
		if len(rest) != 2 {
			continue // not a lane of this database (a longer name sharing the prefix)
		}
		h, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil {
			continue
		}
		verb := "ROLLBACK PREPARED"
		if h <= recorded {
			verb = "COMMIT PREPARED"
		}
		if _, err := conn.PgConn().Exec(ctx, verb+" '"+strings.ReplaceAll(gid, "'", "''")+"'").ReadAll(); err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "42704" { // finished meanwhile
				continue
			}
			return fmt.Errorf("postgres: resolve prepared lanes: %s %s: %w", verb, gid, err)
		}
	}
	return nil
}

// Crash points of a parallel block's Commit (laneCommitStep), for tests
// that kill the process between its steps.
const (
	// CrashLanePrepared: after lane i's PREPARE TRANSACTION.
	CrashLanePrepared = "lane-prepared"
	// CrashLanesDecided: after the writer's COMMIT, before any COMMIT
	// PREPARED.
	CrashLanesDecided = "lanes-decided"
	// CrashLaneCommitPrepared: after lane i's COMMIT PREPARED.
	CrashLaneCommitPrepared = "lane-commit-prepared"
)

// laneCommitHook, when set (crash_testhooks.go, tests), is called at each
// crash point with the lane it concerns (0 for CrashLanesDecided).
var laneCommitHook func(step string, lane int)

func laneCommitStep(step string, lane int) {
	if laneCommitHook != nil {
		laneCommitHook(step, lane)
	}
}

// readSnapshot is taken by a read while it takes its snapshot, after it
// holds its connection (backend.ReadGate): a parallel block's Commit
// holds the gate from the writer's COMMIT until every lane's COMMIT
// PREPARED is done.
func (b *Backend) readSnapshot() func() { return b.laneGate.Read() }
