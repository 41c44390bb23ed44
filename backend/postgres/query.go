package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

// The query path's db-transaction, sent with the statement in one round
// trip (see Query).
const (
	queryBegin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	queryRole  = "SELECT CASE WHEN current_setting('server_version_num')::int >= 140000 THEN set_config('role', 'pg_read_all_data', true) END"
	queryHeigh = "SELECT coalesce((SELECT height FROM relchain.meta WHERE id = 1), 0)"
	queryEnd   = "ROLLBACK"
)

// maxQueryStmts bounds the prepared statements one pool connection keeps;
// the oldest is deallocated to make room.
const maxQueryStmts = 256

// Query implements backend.Backend. The statement runs in a read-only,
// repeatable-read db-transaction that also reads the height, so rows and
// height describe the same snapshot. It runs as the predefined role
// pg_read_all_data (PostgreSQL 14 and later), which can read every table
// but holds none of the superuser's other powers (signalling backends,
// reading server files): defence in depth behind the statement gate.
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
	st, err := b.syntax.check(sql)
	if err != nil {
		return nil, 0, err
	}
	if st.forbidden != "" {
		return nil, 0, &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: st.forbidden}
	}
	values, oids, formats, err := encodeArgs(args)
	if err != nil {
		return nil, 0, err
	}
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: query: acquire connection: %w", err)
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()

	for attempt := 0; ; attempt++ {
		name, err := b.queryStmts.prepare(ctx, pc, sql, oids)
		if err != nil {
			if e := asBackendError(err); e != nil {
				return nil, 0, e
			}
			conn.Conn().Close(context.Background()) // state unknown: do not reuse
			return nil, 0, fmt.Errorf("postgres: query: prepare: %w", err)
		}
		rows, height, err := runQuery(ctx, pc, name, values, formats, !st.ordered)
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
			b.queryStmts.drop(ctx, pc, sql, oids)
			continue
		}
		if e := asBackendError(err); e != nil {
			return nil, 0, e
		}
		conn.Conn().Close(context.Background())
		return nil, 0, fmt.Errorf("postgres: query: %w", err)
	}
}

// runQuery sends begin, role, height, the prepared statement and rollback
// in one batch and reads their results.
func runQuery(ctx context.Context, pc *pgconn.PgConn, name string, values [][]byte, formats []int16, sortRows bool) (*backend.Rows, int64, error) {
	batch := &pgconn.Batch{}
	batch.ExecParams(queryBegin, nil, nil, nil, nil)
	batch.ExecParams(queryRole, nil, nil, nil, nil)
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
		case 2:
			var r *backend.Rows
			if r, err = collect(rr, false); err == nil {
				height, err = heightOf(r)
			}
		case 3:
			rows, err = collect(rr, sortRows)
		default:
			_, err = rr.Close()
		}
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
