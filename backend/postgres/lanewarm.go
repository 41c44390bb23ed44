package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/relchain/relchain/backend"
)

var _ backend.LaneWarmer = (*Backend)(nil)

// laneWarmth is what the kept lane connections were last made ready for
// (WarmLanes): the committed schema and the writer's prepared statements
// (blockStmts.next counts every statement the writer ever named).
type laneWarmth struct {
	schemaGen uint64
	stmtsNext int
	conns     int
}

// WarmLanes implements backend.LaneWarmer: between blocks it makes the
// backend keep n-1 lane connections, each with the statements the
// writer's session has prepared prepared on it too, so that a parallel
// block pays on its own path neither a connection's set-up (the server
// starts a process for it and loads its caches) nor its statements' first
// parse and analysis. It does nothing while a block is open (the executor
// asks again after the next one), when nothing changed since its last run,
// or when the server allows no prepared transactions.
//
// Whether a statement was prepared ahead changes no result: every
// statement runs under plan_cache_mode = force_generic_plan, prepared or
// not (blockStmts), and a connection whose statements were prepared under
// another committed schema drops them before its next block (openLane).
func (b *Backend) WarmLanes(ctx context.Context, n int) error {
	b.mu.Lock()
	want := min(n-1, b.maxPrepared)
	now := laneWarmth{schemaGen: b.schemaGen, stmtsNext: b.stmts.next, conns: want}
	if b.closed || b.open != nil || want < 1 || b.laneWarmth == now && len(b.laneConns) >= want {
		b.mu.Unlock()
		return nil
	}
	conns := b.laneConns
	b.laneConns = nil
	keys := make([]string, 0, len(b.stmts.names))
	for key := range b.stmts.names {
		keys = append(keys, key)
	}
	b.mu.Unlock()
	slices.Sort(keys) // the same statements, named in the same order, on every connection

	ready := conns[:0]
	for _, lc := range conns {
		if err := warmLaneConn(ctx, lc, now.schemaGen, keys); err != nil {
			closeLaneConn(lc) // lost, or its statements in doubt: a new one replaces it
			continue
		}
		ready = append(ready, lc)
	}
	var err error
	for len(ready) < want && err == nil {
		var lc *laneConn
		if lc, err = b.connectLane(ctx, now.schemaGen); err == nil {
			if err = warmLaneConn(ctx, lc, now.schemaGen, keys); err != nil {
				closeLaneConn(lc)
			} else {
				ready = append(ready, lc)
			}
		}
	}
	b.keepLaneConns(ready, want, now, err == nil)
	if err != nil {
		return fmt.Errorf("postgres: warm lanes: %w", err)
	}
	return nil
}

// keepLaneConns gives the warmed connections back to the backend, closing
// those beyond want (a block that began meanwhile connected its own) or
// all of them if the backend closed; complete records the warmth reached.
func (b *Backend) keepLaneConns(ready []*laneConn, want int, now laneWarmth, complete bool) {
	b.mu.Lock()
	var extra []*laneConn
	if b.closed {
		extra = ready
	} else {
		b.laneConns = append(b.laneConns, ready...)
		if over := len(b.laneConns) - want; over > 0 {
			extra = append(extra, b.laneConns[:over]...)
			b.laneConns = append(b.laneConns[:0], b.laneConns[over:]...)
		}
		if complete {
			b.laneWarmth = now
		}
	}
	b.mu.Unlock()
	for _, lc := range extra {
		closeLaneConn(lc)
	}
}

// warmLaneConn prepares on lc the statements keys name (stmtKey) that it
// lacks, for the committed schema of schemaGen. A statement the server refuses (its
// table is gone) is left unprepared; a lost connection is an error. lc
// belongs to no block and is in no pool: the caller has it alone.
func warmLaneConn(ctx context.Context, lc *laneConn, schemaGen uint64, keys []string) error {
	s := &lc.stmts
	pc := lc.conn.PgConn()
	if lc.schemaGen != schemaGen {
		s.invalidate()
		lc.schemaGen = schemaGen
	}
	if stale := s.takeStale(); len(stale) > 0 {
		if _, err := pc.Exec(ctx, strings.Join(stale, "; ")).ReadAll(); err != nil {
			s.invalidate()
			return fmt.Errorf("deallocate: %w", err)
		}
	}
	for _, key := range keys {
		if _, ok := s.names[key]; ok {
			continue
		}
		if len(s.names) >= maxBlockStmts {
			return nil
		}
		sql, oids, ok := splitStmtKey(key)
		if !ok {
			continue
		}
		name := s.add(key)
		if _, err := pc.Prepare(ctx, name, sql, oids); err != nil {
			s.forget(key)
			if pc.IsClosed() || ctx.Err() != nil || lostTrack(err) {
				s.invalidate()
				return fmt.Errorf("prepare: %w", err)
			}
		}
	}
	return nil
}

// splitStmtKey is stmtKey's inverse: the statement's text and argument
// types.
func splitStmtKey(key string) (sql string, oids []uint32, ok bool) {
	types, sql, ok := strings.Cut(key, "\x00")
	if !ok {
		return "", nil, false
	}
	for _, t := range strings.Split(types, ",") {
		if t == "" {
			continue
		}
		o, err := strconv.ParseUint(t, 10, 32)
		if err != nil {
			return "", nil, false
		}
		oids = append(oids, uint32(o))
	}
	return sql, oids, true
}
