package cost

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/bench/workload"
)

// blocks draws a side's blocks from one generator stream; both sides get
// their own blocks with the same seed, so they see the same
// wl-transactions in the same places.
type blocks struct {
	gen        workload.Generator
	bcPerBlock int
	wlPerBC    int
}

func newBlocks(w workload.Workload, o *Options) *blocks {
	return &blocks{gen: w.Generator(o.Backend, o.Seed, 0), bcPerBlock: o.BCPerBlock, wlPerBC: o.WLPerBC}
}

// next is the next block: bcPerBlock bc-transactions of wlPerBC
// wl-transactions. With one wl-transaction per bc-transaction read-only
// ones are skipped (an async client sends reads to the query path, not
// into blocks); a batch carries them, as pseudo-sync clients do.
func (b *blocks) next() [][]workload.WL {
	blk := make([][]workload.WL, b.bcPerBlock)
	for i := range blk {
		for range b.wlPerBC {
			wl := b.gen.Next()
			for wl.ReadOnly && b.wlPerBC == 1 {
				wl = b.gen.Next()
			}
			blk[i] = append(blk[i], wl)
		}
	}
	return blk
}

// meter reads the CPU clocks a turn is measured with.
type meter struct {
	serverPID int
	goCPU     time.Duration
	server    time.Duration
	wall      time.Time
}

func (r *runner) startMeter() (meter, error) {
	m := meter{serverPID: r.serverPID}
	if m.serverPID != 0 {
		s, err := treeCPU(m.serverPID)
		if err != nil {
			return m, err
		}
		m.server = s
	}
	m.goCPU, m.wall = selfCPU(), time.Now()
	return m, nil
}

// stop returns Go CPU, server CPU and wall time since start.
func (m meter) stop() (goCPU, server, wall time.Duration, err error) {
	goCPU, wall = selfCPU()-m.goCPU, time.Since(m.wall)
	if m.serverPID != 0 {
		s, err := treeCPU(m.serverPID)
		if err != nil {
			return 0, 0, 0, err
		}
		server = s - m.server
	}
	return goCPU, server, wall, nil
}

// execTurn runs n blocks through the executor: signing unmeasured, then
// every block's CheckTx measured, then FinalizeBlock + Commit measured.
func (r *runner) execTurn(ctx context.Context, n int) (Turn, error) {
	return r.execTurnProfiled(ctx, n, nil)
}

// execTurnProfiled is execTurn with a CPU profile of its FinalizeBlock +
// Commit loop written to profile, if not nil (the profile also holds the
// loop's small bookkeeping: counting committed wl-transactions).
func (r *runner) execTurnProfiled(ctx context.Context, n int, profile io.Writer) (Turn, error) {
	t := Turn{Side: "executor"}
	runtime.GC() // the other side's garbage is not this turn's
	prepared := make([][][]byte, n)
	for i := range prepared {
		blk := r.execGen.next()
		for _, bc := range blk {
			t.WL += len(bc)
		}
		prepared[i] = r.exec.prepare(blk)
	}
	m, err := r.startMeter()
	if err != nil {
		return t, err
	}
	for _, raws := range prepared {
		if err := r.exec.check(ctx, raws); err != nil {
			return t, err
		}
	}
	g, s, _, err := m.stop()
	if err != nil {
		return t, err
	}
	t.CheckCPU = g + s
	if profile != nil {
		if err := pprof.StartCPUProfile(profile); err != nil {
			return t, err
		}
		defer pprof.StopCPUProfile()
	}
	for _, raws := range prepared {
		if err := r.execBlock(ctx, raws, &t); err != nil {
			return t, err
		}
	}
	return t, nil
}

// execBlock executes and commits one block, adding its cost and its
// committed wl-transactions to t.
func (r *runner) execBlock(ctx context.Context, raws [][]byte, t *Turn) error {
	m, err := r.startMeter()
	if err != nil {
		return err
	}
	err = r.exec.execute(ctx, raws)
	g, s, wall, merr := m.stop()
	if err != nil {
		return err
	}
	if merr != nil {
		return merr
	}
	t.GoCPU, t.ServerCPU, t.Wall = t.GoCPU+g, t.ServerCPU+s, t.Wall+wall
	c, err := r.exec.committed()
	t.Committed += c
	return err
}

// rawTurn runs n blocks on the raw database, one db-transaction each.
func (r *runner) rawTurn(ctx context.Context, n int) (Turn, error) {
	return r.rawTurnProfiled(ctx, n, nil)
}

// rawTurnProfiled is rawTurn with a CPU profile of the turn written to
// profile, if not nil (it also holds the preparation of each block's
// statement lists, which the measured figures leave out).
func (r *runner) rawTurnProfiled(ctx context.Context, n int, profile io.Writer) (Turn, error) {
	t := Turn{Side: "raw"}
	runtime.GC()
	if profile != nil {
		if err := pprof.StartCPUProfile(profile); err != nil {
			return t, err
		}
		defer pprof.StopCPUProfile()
	}
	for range n {
		wls := r.raw.prepare(r.rawGen.next())
		t.WL += len(wls)
		m, err := r.startMeter()
		if err != nil {
			return t, err
		}
		err = r.raw.execute(ctx, wls)
		g, s, wall, merr := m.stop()
		if err != nil {
			return t, fmt.Errorf("raw block: %w", err)
		}
		if merr != nil {
			return t, merr
		}
		t.GoCPU, t.ServerCPU, t.Wall = t.GoCPU+g, t.ServerCPU+s, t.Wall+wall
		t.Committed += r.raw.committed()
	}
	return t, nil
}

// settler brings both fresh databases to a steady state after the load.
type settler struct {
	what string // for the log
	run  func(ctx context.Context, dsns ...string) error
}

// settlers is each database's settler by dialect name; nil: nothing to
// settle (a test holds that every database has an entry).
var settlers = map[string]*settler{
	workload.SQLite:   nil,
	workload.Postgres: {what: "VACUUM ANALYZE and CHECKPOINT", run: settlePostgres},
	workload.MySQL:    nil,
}

// settlePostgres vacuums, analyzes and checkpoints both fresh databases
// after the load, so that autovacuum catching up with the load does not
// run during the turns.
func settlePostgres(ctx context.Context, dsns ...string) error {
	for _, dsn := range dsns {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return fmt.Errorf("settle: %w", err)
		}
		for _, q := range []string{"VACUUM ANALYZE", "CHECKPOINT"} {
			if _, err := conn.Exec(ctx, q); err != nil {
				conn.Close(ctx)
				return fmt.Errorf("settle: %s: %w", q, err)
			}
		}
		conn.Close(ctx)
	}
	return nil
}
