package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// Lanes: a block's bc-transactions on several connections at once
// (backend.Lanes; DESIGN.md, "Lanes"). Lane 0 is the writer's session and
// its ordinary db-transaction; lanes 1..n-1 are sessions of their own, on
// connections of the lane pool (the writer's account and session
// settings), each inside an XA transaction (XA START 'gid'). Commit ends
// and prepares them (XA END, XA PREPARE), commits the writer's
// db-transaction, which records the height (the decision), and then
// commits the prepared ones (XA COMMIT); resolveLeftovers finishes what a
// crash or a lost connection left in between. MariaDB only (10.5+: a
// prepared XA transaction survives its session's end); MySQL is untested
// and gets backend.ErrNoLanes.

// laneLockWait is the innodb_lock_wait_timeout, in seconds, of a lane
// and, while lanes are open, of the writer: a lane that waits for another
// lane's lock would otherwise wait up to the server's default (50 s). A
// node-local timeout is harmless here: it decides no tx's outcome (the
// error wraps backend.ErrLaneConflict and the executor runs the block
// serially).
const laneLockWait = 3

// maxLaneConns bounds the lane pool's connections.
const maxLaneConns = 64

// gidPrefix starts the XA id of every lane:
// relchain:<database>:<height>:<lane>. Several validators may share one
// server (XA RECOVER lists the server's), so the database name is part of
// it; a name too long for MariaDB's 64-byte gtrid is replaced by a hash
// of it.
const gidPrefix = "relchain:"

// lanePrefix is the prefix of this database's lane gids.
func lanePrefix(db string) string {
	if len(db) > 32 {
		h := sha256.Sum256([]byte(db))
		db = "#" + hex.EncodeToString(h[:8])
	}
	return gidPrefix + db + ":"
}

// laneGID is the XA id of lane i of height h.
func (b *Backend) laneGID(h int64, i int) string {
	return lanePrefix(b.dbName) + strconv.FormatInt(h, 10) + ":" + strconv.Itoa(i)
}

var _ backend.Lanes = (*block)(nil)

// OpenLanes implements backend.Lanes (see backend.Lanes for the contract;
// DESIGN.md for how). It fails with an error wrapping backend.ErrNoLanes
// on MySQL, and when the account cannot list prepared XA transactions
// (XA RECOVER), which recovery needs.
func (k *block) OpenLanes(ctx context.Context, n int) ([]backend.Lane, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		return nil, err
	}
	switch {
	case n < 2:
		return nil, fmt.Errorf("mysql: open lanes: %d lanes, want 2 or more", n)
	case k.lanesUsed:
		return nil, errors.New("mysql: open lanes: the block's lanes are open already")
	case k.inTx || k.dirty || k.unconsumed || k.ddlSeq > 0:
		return nil, errors.New("mysql: open lanes: the block ran statements already")
	case !k.b.flavor.mariadb:
		return nil, fmt.Errorf("mysql: open lanes: %w: lanes (XA transactions) are implemented for MariaDB only", backend.ErrNoLanes)
	}
	if err := k.b.xaUsable(ctx); err != nil {
		return nil, fmt.Errorf("mysql: open lanes: %w: %w", backend.ErrNoLanes, err)
	}
	dctx, stop := k.watch(ctx)
	_, err := k.conn.ExecContext(dctx, "SET SESSION innodb_lock_wait_timeout = "+strconv.Itoa(laneLockWait))
	stop()
	if err != nil {
		return nil, unavailable(ctx, k.fault("open lanes", err))
	}
	k.lanesUsed = true
	out := []backend.Lane{laneHandle{k.session}}
	for i := 1; i < n; i++ {
		s, err := k.openLane(ctx, i)
		if err != nil {
			return nil, unavailable(ctx, fmt.Errorf("mysql: open lane %d: %w", i, err))
		}
		k.lanes = append(k.lanes, s)
		out = append(out, laneHandle{s})
	}
	return out, nil
}

// xaUsable checks, once per backend, that the account may run XA RECOVER
// (MySQL 8 wants XA_RECOVER_ADMIN; MariaDB lets every account).
func (b *Backend) xaUsable(ctx context.Context) error {
	b.xaOnce.Do(func() {
		rows, err := b.internal.QueryContext(ctx, "XA RECOVER")
		if err == nil {
			rows.Close()
			return
		}
		if n := mysqlNumber(err); n == 1227 || n == 1044 || n == 1045 {
			b.xaErr = fmt.Errorf("the account may not run XA RECOVER (MySQL 8: grant XA_RECOVER_ADMIN; see backend/mysql/DESIGN.md, \"Lanes\"): %w", err)
		}
	})
	return b.xaErr
}

// openLane begins lane i's XA transaction on a connection of the lane
// pool; the caller holds the backend's mutex.
func (k *block) openLane(ctx context.Context, i int) (*session, error) {
	conn, err := k.b.lanePool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	s := &session{b: k.b, blk: k, mu: new(sync.Mutex), conn: conn, lane: i, gid: k.b.laneGID(k.height, i)}
	err = conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&s.connID)
	if err == nil {
		_, err = conn.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = "+strconv.Itoa(laneLockWait)+
			", timestamp = "+timestampOf(time.Time{})+", "+txVar+" = NULL")
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, "XA START '"+s.gid+"'")
	}
	if err != nil {
		discard(conn)
		return nil, err
	}
	return s, nil
}

// refuseDDL refuses a schema change on a parallel block: StateDigest
// rescans on the writer's session, which cannot see the other lanes'
// rows, and MariaDB commits DDL at once.
func (k *session) refuseDDL() error {
	if k.blk.lanesUsed {
		return fmt.Errorf("mysql: exec: %w: a parallel block cannot change the schema", backend.ErrLaneConflict)
	}
	return nil
}

// laneHandle is a lane as the executor drives it: the session's methods
// with lost connections classified as backend.ErrDatabaseUnavailable.
type laneHandle struct{ s *session }

var _ backend.Lane = laneHandle{}

func (l laneHandle) Savepoint(ctx context.Context, env sqlcheck.Env) error {
	return unavailable(ctx, l.s.Savepoint(ctx, env))
}

func (l laneHandle) Release(ctx context.Context) error {
	return unavailable(ctx, l.s.Release(ctx))
}

func (l laneHandle) RollbackTo(ctx context.Context) error {
	return unavailable(ctx, l.s.RollbackTo(ctx))
}

func (l laneHandle) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	rows, err := l.s.Exec(ctx, sql, args)
	if err != nil && backend.AsError(err) == nil {
		return nil, unavailable(ctx, err)
	}
	return rows, err
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

// prepareLanes ends and prepares every lane's XA transaction, the lanes
// at once (each on its own connection, so the server's group commit can
// take their redo flushes together); the caller holds every mutex. On
// failure the caller rolls the block back.
func (k *block) prepareLanes(ctx context.Context) error {
	return backend.EachLane(k.lanes, laneNumber, func(s *session) error {
		if s.lost != nil {
			return s.lost
		}
		if s.unconsumed {
			if _, err := s.conn.ExecContext(ctx, untagSQL); err != nil {
				return fmt.Errorf("untag change records: %w", err)
			}
		}
		if _, err := s.conn.ExecContext(ctx, "XA END '"+s.gid+"'"); err != nil {
			return fmt.Errorf("xa end: %w", err)
		}
		s.xaEnded = true
		if _, err := s.conn.ExecContext(ctx, "XA PREPARE '"+s.gid+"'"); err != nil {
			return fmt.Errorf("xa prepare: %w", err)
		}
		s.prepared = true
		laneCommitStep(CrashLanePrepared, s.lane)
		return nil
	})
}

// laneNumber is a lane session's number in its block (backend.EachLane).
func laneNumber(s *session) int { return s.lane }

// commitPrepared commits the prepared lanes, each on its own connection,
// the lanes at once; the caller holds every mutex. A lane it could not
// commit is left to resolveLeftovers (its connection is dropped first:
// MariaDB lets no other session finish a prepared XA transaction while
// its own lives).
func (k *block) commitPrepared(ctx context.Context) error {
	return backend.EachLane(k.lanes, laneNumber, func(s *session) error {
		if _, err := s.conn.ExecContext(ctx, "XA COMMIT '"+s.gid+"'"); err != nil {
			return fmt.Errorf("xa commit: %w", err)
		}
		s.prepared = false
		laneCommitStep(CrashLaneCommitPrepared, s.lane)
		return nil
	})
}

// endLanes ends every lane: an XA transaction not prepared is rolled
// back, a prepared one too unless keepPrepared (the writer's COMMIT may
// have taken effect: resolveLeftovers decides). Healthy connections go
// back to the lane pool with the server's lock wait; the others are
// dropped. The caller holds every mutex.
func (k *block) endLanes(ctx context.Context, keepPrepared bool) {
	for _, s := range k.lanes {
		var err error
		switch {
		case s.prepared && keepPrepared:
			err = errors.New("left prepared")
			k.b.xaLeftovers.Store(true)
		case s.prepared || s.xaEnded:
			_, err = s.conn.ExecContext(ctx, "XA ROLLBACK '"+s.gid+"'")
		default:
			if _, err = s.conn.ExecContext(ctx, "XA END '"+s.gid+"'"); err == nil || mysqlNumber(err) == errXARBDeadlock {
				_, err = s.conn.ExecContext(ctx, "XA ROLLBACK '"+s.gid+"'")
			}
		}
		if err == nil {
			_, err = s.conn.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = DEFAULT")
		}
		if err != nil {
			// A prepared XA transaction outlives its session: the next
			// Begin resolves it.
			if s.prepared {
				k.b.xaLeftovers.Store(true)
			}
			discard(s.conn)
			continue
		}
		s.conn.Close()
	}
	k.lanes = nil
}

// errXARBDeadlock: XA END of a transaction a deadlock rolled back.
const errXARBDeadlock = 1614

// untagSQL: records a tx wrote and no ChangeDigest consumed (never so in
// the executor) outlive the block: like records written out of band,
// they belong to no tx of the block that digests them.
const untagSQL = "UPDATE relchain_changes SET tx = -1 WHERE tx <> -1"

// resolveLeftovers finishes the lanes a crash or a lost connection left
// prepared (see Commit): a lane of a height the database records (the
// writer's db-transaction committed, which decided the block) commits, any
// other rolls back. It runs on conn, a writer's connection outside a
// db-transaction: at Open, and at Begin after a parallel block left one.
// The recorded height is read with a locking read (readRecordedState),
// which waits for a lost session's COMMIT still under way.
func resolveLeftovers(ctx context.Context, conn *sql.Conn, db string) error {
	prefix := lanePrefix(db)
	rows, err := conn.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		if n := mysqlNumber(err); n == 1227 || n == 1044 {
			return nil // no XA for this account: OpenLanes refuses lanes
		}
		return fmt.Errorf("mysql: resolve prepared lanes: %w", err)
	}
	var gids []string
	for rows.Next() {
		var format, glen, blen int64
		var data []byte
		if err := rows.Scan(&format, &glen, &blen, &data); err != nil {
			rows.Close()
			return fmt.Errorf("mysql: resolve prepared lanes: %w", err)
		}
		if format == 1 && blen == 0 && strings.HasPrefix(string(data), prefix) {
			gids = append(gids, string(data))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mysql: resolve prepared lanes: %w", err)
	}
	if len(gids) == 0 {
		return nil
	}
	st, err := readRecordedState(ctx, conn)
	if err != nil {
		return fmt.Errorf("mysql: resolve prepared lanes: height: %w", err)
	}
	for _, gid := range gids {
		rest := strings.Split(strings.TrimPrefix(gid, prefix), ":")
		if len(rest) != 2 {
			continue // not a lane of this database (a longer name sharing the prefix)
		}
		h, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil {
			continue
		}
		verb := "XA ROLLBACK"
		if h <= st.Height {
			verb = "XA COMMIT"
		}
		if err := finishXA(ctx, conn, verb, gid); err != nil {
			return fmt.Errorf("mysql: resolve prepared lanes: %s %s: %w", verb, gid, err)
		}
	}
	return nil
}

// ownerWait bounds how long finishXA waits for the session that prepared
// an XA transaction to end: a process killed a moment ago may still have
// its session on the server.
const ownerWait = 30 * time.Second

// finishXA runs verb (XA COMMIT or XA ROLLBACK) on the prepared XA
// transaction gid. MariaDB answers XAER_NOTA both when gid is gone
// (finished meanwhile) and when the session that prepared it still
// lives (only that session may finish it then): while XA RECOVER still
// lists gid, finishXA waits for the session to end and tries again, as
// skipping it would leave a decided lane prepared, its rows missing and
// locked.
func finishXA(ctx context.Context, conn *sql.Conn, verb, gid string) error {
	deadline := time.Now().Add(ownerWait)
	for {
		_, err := conn.ExecContext(ctx, verb+" '"+gid+"'")
		if err == nil || mysqlNumber(err) != 1397 { // XAER_NOTA
			return err
		}
		listed, lerr := xaListed(ctx, conn, gid)
		if lerr != nil {
			return lerr
		}
		if !listed {
			return nil // finished meanwhile
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the session that prepared it still lives after %v: %w", ownerWait, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// xaListed reports whether XA RECOVER lists gid.
func xaListed(ctx context.Context, conn *sql.Conn, gid string) (bool, error) {
	rows, err := conn.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var format, glen, blen int64
		var data []byte
		if err := rows.Scan(&format, &glen, &blen, &data); err != nil {
			return false, err
		}
		if format == 1 && blen == 0 && string(data) == gid {
			found = true
		}
	}
	return found, rows.Err()
}

// Crash points of a parallel block's Commit (laneCommitStep), for tests
// that kill the process between its steps.
const (
	// CrashLanePrepared: after lane i's XA PREPARE.
	CrashLanePrepared = "lane-prepared"
	// CrashLanesDecided: after the writer's COMMIT, before any XA COMMIT.
	CrashLanesDecided = "lanes-decided"
	// CrashLaneCommitPrepared: after lane i's XA COMMIT.
	CrashLaneCommitPrepared = "lane-commit-prepared"
)

// laneCommitHook, when set (tests), is called at each crash point with
// the lane it concerns (0 for CrashLanesDecided).
var laneCommitHook func(step string, lane int)

func laneCommitStep(step string, lane int) {
	if laneCommitHook != nil {
		laneCommitHook(step, lane)
	}
}

// readGate is taken by a read while it takes its snapshot, after it holds
// its connection (backend.ReadGate): a parallel block's Commit holds the
// gate from the writer's COMMIT until every lane's XA COMMIT is done.
func (b *Backend) readGate() func() { return b.laneGate.Read() }

var _ backend.Lanes = canonBlock{}

// OpenLanes implements backend.Lanes on the Block Begin hands out.
func (c canonBlock) OpenLanes(ctx context.Context, n int) ([]backend.Lane, error) {
	lanes, err := c.k.OpenLanes(ctx, n)
	if err != nil && !errors.Is(err, backend.ErrNoLanes) {
		err = unavailable(ctx, err)
	}
	return lanes, err
}
