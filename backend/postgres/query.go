package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

// The query path's db-transaction, sent with the statement in one round
// trip (see Query).
const (
	queryBegin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	queryHeigh = "SELECT coalesce((SELECT height FROM relchain.meta WHERE id = 1), 0)"
	queryEnd   = "ROLLBACK"
)

// maxQueryStmts bounds the prepared statements one pool connection keeps;
// the oldest is deallocated to make room.
const maxQueryStmts = 256

// Query implements backend.Backend. The statement runs in a read-only,
// repeatable-read db-transaction that also reads the height, so rows and
// height describe the same snapshot.
//
// abci_query is open to anyone who reaches the node, so a read passes the
// gate's read policy (backend/postgres/pggate CheckRead: every safety
// refusal of a block's statement, no relchain schema, no function that
// reads files, signals sessions, sleeps or changes settings; not the
// determinism ones, since a read decides nothing) and runs the text it
// returns (catalogs filtered of relchain's own objects); it must be a
// single query (SELECT, VALUES,
// TABLE, WITH ... SELECT) that writes nothing. Behind the gate, the
// connection's role is the reader: it may SELECT the replicated tables and
// nothing more, and is a member of no role it could switch to. A read's
// cost is bounded node-locally: statement_timeout (WithQueryTimeout),
// work_mem and the role's temp_file_limit, and the rows and bytes it
// returns (WithQueryLimits); it runs on its own pool, never on the
// writer's connection.
//
// Unlike a block's statements (see execParams), a query runs as a named
// prepared statement cached on its pool connection, so a repeated query
// text is planned once per connection, as a client with a statement cache
// (pgx's default, and the raw baseline) would. That is safe here because a
// query decides no block: if a DDL since the statement was prepared
// changed its result type, PostgreSQL refuses the cached plan and Query
// prepares it afresh and runs it once more. The statement is prepared with
// the argument types execParams would send, so a query means the same
// prepared or not. The db-transaction's begin, the height, the statement
// and the rollback travel in one pipelined round trip.
func (b *Backend) Query(ctx context.Context, sql string, args []any) (*backend.Rows, int64, error) {
	return b.query(ctx, sql, args, runQuery)
}

// QueryLatest implements backend.LatestReader: Query without the
// db-transaction and the height. A single statement outside an explicit
// db-transaction runs on one snapshot of the latest committed state, so
// the read is one round trip (Bind, Execute, Sync of the cached prepared
// statement) and the server does no work beyond the statement itself. The
// gate, the reader role (whose default_transaction_read_only is on), the
// limits and the row order are Query's.
func (b *Backend) QueryLatest(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	rows, _, err := b.query(ctx, sql, args, runLatest)
	return rows, err
}

// queryRunner runs a prepared statement on pc and reads its rows, and the
// height when it reads one.
type queryRunner func(ctx context.Context, pc *pgconn.PgConn, name string, values [][]byte, formats []int16, sortRows bool, bound *resultBound) (*backend.Rows, int64, error)

// query is queryOnce, run once more on a fresh connection when the first
// found its connection lost (a terminated session, a restarted server:
// see transient). The pool's idle connections are then closed too (they
// were most likely ended with it), so the retry connects anew. A read
// changes nothing, so running it again is safe; a second loss is
// reported as backend.ErrDatabaseUnavailable.
func (b *Backend) query(ctx context.Context, sql string, args []any, run queryRunner) (*backend.Rows, int64, error) {
	rows, height, err := b.queryOnce(ctx, sql, args, run)
	if err == nil || !backend.IsUnavailable(err) {
		return rows, height, err
	}
	b.pool.Reset()
	return b.queryOnce(ctx, sql, args, run)
}

// queryOnce gates sql, prepares it on a pool connection (once per
// connection) and runs it with run; a plan a DDL made stale is prepared
// afresh once.
func (b *Backend) queryOnce(ctx context.Context, sql string, args []any, run queryRunner) (*backend.Rows, int64, error) {
	st, err := b.syntax.readable(sql)
	if err != nil {
		return nil, 0, err
	}
	values, oids, formats, err := encodeArgs(args)
	if err != nil {
		return nil, 0, err
	}
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return nil, 0, unavailable(ctx, fmt.Errorf("postgres: query: acquire connection: %w", err))
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	bound := &resultBound{maxRows: b.opts.maxQueryRows, maxBytes: b.opts.maxQueryBytes}
	if st.readKeyOrder {
		keyed := false
		if st.readText, keyed, err = b.readKeyOrdered(ctx, pc, st.readText); err != nil {
			if e := asBackendError(err); e != nil {
				return nil, 0, e
			}
			conn.Conn().Close(context.Background())
			return nil, 0, unavailable(ctx, fmt.Errorf("postgres: query: key lookup: %w", err))
		}
		st.ordered = st.ordered || keyed
	}

	for attempt := 0; ; attempt++ {
		name, err := b.queryStmts.prepare(ctx, pc, st.readText, oids)
		if err != nil {
			if ctx.Err() == nil && transient(err) {
				conn.Conn().Close(context.Background())
				return nil, 0, unavailable(ctx, fmt.Errorf("postgres: query: prepare: %w", err))
			}
			if e := asBackendError(err); e != nil {
				return nil, 0, e
			}
			conn.Conn().Close(context.Background()) // state unknown: do not reuse
			return nil, 0, fmt.Errorf("postgres: query: prepare: %w", err)
		}
		bound.reset()
		unlock := b.readSnapshot()
		rows, height, err := run(ctx, pc, name, values, formats, !st.ordered, bound)
		unlock()
		if e := backend.AsError(err); e != nil && e.Class == backend.ClassResource && bound.exceeded {
			return nil, 0, e // run closed the connection
		}
		if pc.TxStatus() != 'I' {
			// The statement failed, so the batch's ROLLBACK was skipped.
			if _, rbErr := pc.Exec(ctx, queryEnd).ReadAll(); rbErr != nil {
				conn.Conn().Close(context.Background())
			}
		}
		if err == nil {
			return rows, height, nil
		}
		if attempt == 0 && stalePlan(err) {
			b.queryStmts.drop(ctx, pc, st.readText, oids)
			continue
		}
		if ctx.Err() != nil { // also when the server answered the cancel
			conn.Conn().Close(context.Background())
			return nil, 0, fmt.Errorf("postgres: query: %w (%w)", ctx.Err(), err)
		}
		if transient(err) {
			conn.Conn().Close(context.Background())
			return nil, 0, unavailable(ctx, fmt.Errorf("postgres: query: %w", err))
		}
		if e := asBackendError(err); e != nil {
			return nil, 0, e
		}
		conn.Conn().Close(context.Background())
		return nil, 0, fmt.Errorf("postgres: query: %w", err)
	}
}

// runLatest runs the prepared statement alone (QueryLatest): no height.
//
// A cancelled ctx cancels the statement on the server (a CancelRequest,
// which the server answers with SQLSTATE 57014) instead of through pgconn's
// context watcher, which starts a goroutine for every call: on a point
// SELECT that goroutine costs more than the rest of the read path. A cancel
// that fires after the statement finished could hit the next statement on
// this connection, so the connection is then closed, not reused.
func runLatest(ctx context.Context, pc *pgconn.PgConn, name string, values [][]byte, formats []int16, sortRows bool, bound *resultBound) (*backend.Rows, int64, error) {
	stop := context.AfterFunc(ctx, func() { sendCancelRequest(pc) })
	rr := pc.ExecPrepared(context.Background(), name, values, formats, nil)
	types, mods := fieldTypes(rr.FieldDescriptions())
	rows, err := collectBounded(rr, sortRows, bound)
	if !stop() || bound.exceeded {
		closeConn(pc)
	}
	if err != nil {
		return nil, 0, err
	}
	rows.Types, rows.Typmods = types, mods
	return rows, 0, nil
}

// runQuery sends begin, height, the prepared statement and rollback in
// one batch and reads their results. If the statement's result exceeds
// bound, it closes the connection rather than reading the rest.
func runQuery(ctx context.Context, pc *pgconn.PgConn, name string, values [][]byte, formats []int16, sortRows bool, bound *resultBound) (*backend.Rows, int64, error) {
	batch := &pgconn.Batch{}
	batch.ExecParams(queryBegin, nil, nil, nil, nil)
	batch.ExecParams(queryHeigh, nil, nil, nil, nil)
	batch.ExecPrepared(name, values, formats, nil)
	batch.ExecParams(queryEnd, nil, nil, nil, nil)
	mrr := pc.ExecBatch(ctx, batch)
	var (
		rows   *backend.Rows
		height int64
		err    error
	)
	for i := 0; err == nil && mrr.NextResult(); i++ {
		rr := mrr.ResultReader()
		switch i {
		case 1:
			var r *backend.Rows
			if r, err = collect(rr, false); err == nil {
				height, err = heightOf(r)
			}
		case 2:
			types, mods := fieldTypes(rr.FieldDescriptions())
			if rows, err = collectBounded(rr, sortRows, bound); err == nil {
				rows.Types, rows.Typmods = types, mods
			}
		default:
			_, err = rr.Close()
		}
	}
	if bound.exceeded {
		closeConn(pc)
		return nil, 0, err
	}
	if cerr := mrr.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	if rows == nil {
		return nil, 0, errors.New("the server returned fewer results than statements sent")
	}
	return rows, height, nil
}

// closeConn closes a connection that must not be reused: its result
// exceeded its bound (rather than reading the rest of it), or a cancel may
// still be on its way to it.
func closeConn(pc *pgconn.PgConn) {
	closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = pc.Close(closeCtx)
	cancel()
}

// resultBound counts the rows and bytes (text form) of a query's result.
type resultBound struct {
	maxRows, maxBytes int
	rows, bytes       int
	exceeded          bool
}

func (r *resultBound) reset() { r.rows, r.bytes, r.exceeded = 0, 0, false }

// add counts one row; nil bounds nothing.
func (r *resultBound) add(vals [][]byte) error {
	if r == nil {
		return nil
	}
	r.rows++
	for _, v := range vals {
		r.bytes += len(v)
	}
	switch {
	case r.maxRows > 0 && r.rows > r.maxRows:
		r.exceeded = true
		return &backend.Error{Class: backend.ClassResource, SQLState: "54000", Message: fmt.Sprintf(
			"the query returns more than %d rows, this node's limit for one query: add a WHERE or LIMIT, or page with ORDER BY ... LIMIT", r.maxRows)}
	case r.maxBytes > 0 && r.bytes > r.maxBytes:
		r.exceeded = true
		return &backend.Error{Class: backend.ClassResource, SQLState: "54000", Message: fmt.Sprintf(
			"the query returns more than %d bytes, this node's limit for one query: select fewer columns or rows, or page with ORDER BY ... LIMIT", r.maxBytes)}
	}
	return nil
}

func heightOf(r *backend.Rows) (int64, error) {
	if len(r.Rows) != 1 || len(r.Rows[0]) != 1 {
		return 0, errors.New("read height: not one value")
	}
	h, ok := r.Rows[0][0].(int64)
	if !ok {
		return 0, fmt.Errorf("read height: %T, want an integer", r.Rows[0][0])
	}
	return h, nil
}

// stalePlan reports PostgreSQL's refusal of a cached plan whose result
// type a DDL changed (SQLSTATE 0A000, "cached plan must not change result
// type").
func stalePlan(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "0A000" && strings.Contains(pgErr.Message, "cached plan")
}

// queryStmts are the prepared statements of the query pool's connections,
// by statement text and argument types.
type queryStmts struct {
	mu    sync.Mutex
	conns map[*pgconn.PgConn]*connStmts
}

type connStmts struct {
	names map[string]string // key (text and argument types) -> name
	order []string          // keys, oldest first
	next  int
}

func stmtKey(sql string, oids []uint32) string {
	var b strings.Builder
	for _, o := range oids {
		b.WriteString(strconv.FormatUint(uint64(o), 10))
		b.WriteByte(',')
	}
	b.WriteByte(0)
	b.WriteString(sql)
	return b.String()
}

// prepare returns the name of sql prepared with oids on pc, preparing it
// (and deallocating the connection's oldest statement when it holds
// maxQueryStmts) if needed. Only the goroutine holding pc calls it for pc.
func (q *queryStmts) prepare(ctx context.Context, pc *pgconn.PgConn, sql string, oids []uint32) (string, error) {
	key := stmtKey(sql, oids)
	q.mu.Lock()
	if q.conns == nil {
		q.conns = make(map[*pgconn.PgConn]*connStmts)
	}
	cs := q.conns[pc]
	if cs == nil {
		cs = &connStmts{names: make(map[string]string)}
		q.conns[pc] = cs
	}
	name, ok := cs.names[key]
	q.mu.Unlock()
	if ok {
		return name, nil
	}
	if len(cs.order) >= maxQueryStmts {
		oldest := cs.order[0]
		if err := pc.Deallocate(ctx, cs.names[oldest]); err != nil {
			return "", err
		}
		q.mu.Lock()
		delete(cs.names, oldest)
		cs.order = cs.order[1:]
		q.mu.Unlock()
	}
	cs.next++
	name = "relchain_q" + strconv.Itoa(cs.next)
	if _, err := pc.Prepare(ctx, name, sql, oids); err != nil {
		return "", err
	}
	q.mu.Lock()
	cs.names[key] = name
	cs.order = append(cs.order, key)
	q.mu.Unlock()
	return name, nil
}

// drop deallocates sql's statement on pc and forgets it.
func (q *queryStmts) drop(ctx context.Context, pc *pgconn.PgConn, sql string, oids []uint32) {
	key := stmtKey(sql, oids)
	q.mu.Lock()
	cs := q.conns[pc]
	var name string
	if cs != nil {
		name = cs.names[key]
		delete(cs.names, key)
		for i, k := range cs.order {
			if k == key {
				cs.order = append(cs.order[:i], cs.order[i+1:]...)
				break
			}
		}
	}
	q.mu.Unlock()
	if name != "" {
		_ = pc.Deallocate(ctx, name) // a failure leaves an unused statement behind
	}
}

// forget drops a closed connection's statements.
func (q *queryStmts) forget(pc *pgconn.PgConn) {
	q.mu.Lock()
	delete(q.conns, pc)
	q.mu.Unlock()
}
