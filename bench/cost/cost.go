package cost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/ycsb"
	"github.com/relchain/relchain/dialect"
)

// Workloads Run knows.
const (
	Smallbank = "smallbank" // Smallbank's default mix on Options.Accounts accounts
	// SmallbankByID is Smallbank with every customer named by id
	// (smallbank.ByID, chainifyDB's form).
	SmallbankByID = "smallbank-id"
	NewOrder      = "neworder" // TPC-C NewOrder alone on one full-scale warehouse
	YCSB          = "ycsb"     // YCSB core workload A (50 % reads, 50 % updates by key), Options.Accounts records
)

// Options configure one row: one workload on one backend.
type Options struct {
	Workload string // Smallbank or NewOrder
	Backend  string // "sqlite", "postgres" or "mysql"
	// Dir holds the two SQLite files (executor.db, raw.db).
	Dir string
	// DSNTemplate (servers) has {node}, replaced by a database name per
	// side; both databases live on the same server.
	DSNTemplate string
	// ServerPIDFile (servers) names the server's pid file; without it only
	// the Go process's CPU is measured.
	ServerPIDFile string
	Turns         int // turns per side (default 3), alternating
	Blocks        int // blocks per turn (default 10)
	BCPerBlock    int // bc-transactions per block
	WLPerBC       int // wl-transactions per bc-transaction
	Accounts      int // Smallbank accounts (default 100,000)
	// Distribution is the key choice: Smallbank's "uniform" (the default)
	// or "zipf" (smallbank.Options.Distribution); YCSB's "uniform" or
	// "zipfian" (ycsb.Options.Distribution).
	Distribution string
	// Lanes (issue 38): the executor runs blocks on this many connections
	// (app.WithLanes), and the raw baseline splits each block's
	// wl-transactions over as many connections, each committing its own
	// (PostgreSQL's own locking orders them). Default 1: both serial.
	Lanes int
	Seed  uint64
	// CPUProfile, if set, gets a CPU profile of one more executor turn
	// of ProfileBlocks blocks (default 50) after the measured ones (not
	// in the figures).
	CPUProfile    string
	ProfileBlocks int
	// RawCPUProfile, if set, gets a CPU profile of one more raw turn of
	// ProfileBlocks blocks, to set beside the executor's.
	RawCPUProfile string
	Log           io.Writer // progress lines; nil: none
}

// Turn is one side's measurement.
type Turn struct {
	Side      string        `json:"side"` // "executor" or "raw"
	WL        int           `json:"wl"`   // wl-transactions executed
	Committed int           `json:"committed"`
	GoCPU     time.Duration `json:"go_cpu_ns"`
	ServerCPU time.Duration `json:"server_cpu_ns"`
	CheckCPU  time.Duration `json:"check_cpu_ns"` // executor: CheckTx, Go + server
	Wall      time.Duration `json:"wall_ns"`
}

// PerWL is the turn's CPU per wl-transaction in µs: Go, server, total.
func (t Turn) PerWL() (goUS, serverUS, totalUS, checkUS float64) {
	n := float64(t.WL) * 1000
	return float64(t.GoCPU) / n, float64(t.ServerCPU) / n, float64(t.GoCPU+t.ServerCPU) / n, float64(t.CheckCPU) / n
}

// Result is one row.
type Result struct {
	Row   string `json:"row"`
	Turns []Turn `json:"turns"`
	// Medians over the turns, µs of CPU per wl-transaction.
	ExecGo, ExecServer, ExecTotal, ExecCheck float64
	RawGo, RawServer, RawTotal               float64
	// Ratio is ExecTotal / RawTotal (FinalizeBlock + Commit against the
	// raw block); RatioWithCheck adds CheckTx to the executor's side.
	Ratio, RatioWithCheck float64
	// PairedRatio is the median of each turn's executor/raw ratio (the
	// two sides of a turn ran back to back, under the same load).
	PairedRatio float64
	// ExecWall, RawWall: medians of the turns' wall time per
	// wl-transaction, µs (throughput is their inverse).
	ExecWall, RawWall float64
	// Lanes: the executor's blocks run on lanes and attempts abandoned
	// for the serial run, over the whole row (app.LaneStats).
	Lanes app.LaneStats
}

func (o *Options) defaults() error {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Turns, 3)
	def(&o.Blocks, 10)
	def(&o.WLPerBC, 1)
	def(&o.ProfileBlocks, 50)
	if o.Lanes < 0 || o.Lanes > 64 {
		return fmt.Errorf("cost: --lanes %d: give 1 to 64 connections", o.Lanes)
	}
	def(&o.Lanes, 1)
	switch o.Workload {
	case Smallbank, SmallbankByID:
		def(&o.BCPerBlock, 4)
	case NewOrder:
		def(&o.BCPerBlock, 200)
	case YCSB:
		def(&o.BCPerBlock, 1000)
	default:
		return fmt.Errorf("cost: unknown workload %q (smallbank, smallbank-id, neworder, ycsb)", o.Workload)
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if _, err := dialect.Lookup(o.Backend); err != nil {
		return fmt.Errorf("cost: %w", err)
	}
	if workload.Server(o.Backend) && o.DSNTemplate == "" {
		return fmt.Errorf("cost: %s needs a DSN template", o.Backend)
	}
	if workload.Server(o.Backend) && !strings.Contains(o.DSNTemplate, "{node}") {
		return errors.New("cost: the DSN template has no {node}")
	}
	return nil
}

func (o *Options) newWorkload() (workload.Workload, error) {
	switch o.Workload {
	case NewOrder:
		return tpcc.New(tpcc.Options{Warehouses: 1, Mix: map[string]int{tpcc.NewOrder: 1}})
	case YCSB:
		return ycsb.New(ycsb.Options{Records: o.Accounts, Distribution: o.Distribution})
	}
	keys := smallbank.ByName
	if o.Workload == SmallbankByID {
		keys = smallbank.ByID
	}
	return smallbank.New(smallbank.Options{Accounts: o.Accounts, Distribution: o.Distribution, Keys: keys})
}

// Row names the row, e.g. "smallbank sqlite 4x100".
func (o *Options) Row() string {
	row := fmt.Sprintf("%s %s %dx%d", o.Workload, o.Backend, o.BCPerBlock, o.WLPerBC)
	if o.Distribution != "" && o.Distribution != "uniform" {
		row += " " + o.Distribution
	}
	if o.Lanes > 1 {
		row += fmt.Sprintf(" lanes=%d", o.Lanes)
	}
	return row
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, time.Now().UTC().Format("15:04:05 ")+format+"\n", args...)
	}
}

// dsns returns the executor's and the raw baseline's DSNs (a file
// database: file paths), fresh databases named after the row and the time.
func (o *Options) dsns() (execDSN, rawDSN string, err error) {
	if !workload.Server(o.Backend) {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return "", "", err
		}
		e, r := filepath.Join(o.Dir, "executor.db"), filepath.Join(o.Dir, "raw.db")
		for _, f := range []string{e, r} {
			if _, err := os.Stat(f); err == nil {
				return "", "", fmt.Errorf("cost: %s exists; use an empty --dir", f)
			}
		}
		return e, r, nil
	}
	stamp := strconv.FormatInt(time.Now().Unix(), 36)
	name := func(side string) string {
		return strings.ReplaceAll(o.DSNTemplate, "{node}", "cost_"+strings.ReplaceAll(o.Workload, "-", "_")+"_"+side+"_"+stamp)
	}
	return name("exec"), name("raw"), nil
}

// Run measures one row.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	w, err := o.newWorkload()
	if err != nil {
		return nil, err
	}
	execDSN, rawDSN, err := o.dsns()
	if err != nil {
		return nil, err
	}
	r := &runner{o: &o}
	if o.ServerPIDFile != "" {
		if r.serverPID, err = serverPID(o.ServerPIDFile); err != nil {
			return nil, err
		}
	}
	if r.exec, err = openExecutor(ctx, o.Backend, execDSN, o.Lanes); err != nil {
		return nil, err
	}
	defer r.exec.close()
	if r.raw, err = openRaw(ctx, o.Backend, rawDSN, o.Lanes); err != nil {
		return nil, err
	}
	defer r.raw.close()
	if err := r.setup(ctx, w, execDSN, rawDSN); err != nil {
		return nil, err
	}
	r.execGen = newBlocks(w, &o)
	r.rawGen = newBlocks(w, &o)
	return r.measure(ctx)
}

// runner holds one row's two sides and their identical streams.
type runner struct {
	o               *Options
	serverPID       int
	exec            *execSide
	raw             *rawSide
	execGen, rawGen *blocks
}

func (r *runner) setup(ctx context.Context, w workload.Workload, execDSN, rawDSN string) error {
	bcs, err := w.Setup(r.o.Backend)
	if err != nil {
		return err
	}
	r.o.logf("%s: setup through the executor (%d bc-transactions)", r.o.Row(), len(bcs))
	if err := r.exec.setup(ctx, bcs); err != nil {
		return err
	}
	r.o.logf("%s: setup raw", r.o.Row())
	if err := r.raw.setup(ctx, bcs); err != nil {
		return err
	}
	if settle := workload.MustLookup(settlers, "cost's settlers", r.o.Backend); settle != nil {
		r.o.logf("%s: %s", r.o.Row(), settle.what)
		return settle.run(ctx, execDSN, rawDSN)
	}
	return nil
}

// measure runs one unmeasured warm-up block per side, then the turns,
// executor and raw alternately, then the profiled turn if asked.
func (r *runner) measure(ctx context.Context) (*Result, error) {
	if _, err := r.execTurn(ctx, 1); err != nil {
		return nil, err
	}
	if _, err := r.rawTurn(ctx, 1); err != nil {
		return nil, err
	}
	res := &Result{Row: r.o.Row()}
	for i := range r.o.Turns {
		et, err := r.execTurn(ctx, r.o.Blocks)
		if err != nil {
			return nil, err
		}
		rt, err := r.rawTurn(ctx, r.o.Blocks)
		if err != nil {
			return nil, err
		}
		// Raw on several connections may lose a wl-transaction to a
		// deadlock the serial stream would not have.
		if et.Committed != rt.Committed && r.o.Lanes == 1 {
			return nil, fmt.Errorf("turn %d: the executor committed %d of %d wl-transactions, raw %d of the same stream", i+1, et.Committed, et.WL, rt.Committed)
		}
		r.o.logf("%s: turn %d: %s", r.o.Row(), i+1, describe(et, rt))
		res.Turns = append(res.Turns, et, rt)
	}
	if err := r.profiledTurns(ctx); err != nil {
		return nil, err
	}
	res.summarize()
	res.Lanes = r.exec.ex.LaneStats()
	return res, nil
}

func describe(et, rt Turn) string {
	eg, es, e, ec := et.PerWL()
	rg, rs, rw, _ := rt.PerWL()
	return fmt.Sprintf("executor %.1f µs/wl (go %.1f + server %.1f; check %.1f), raw %.1f (go %.1f + server %.1f): %.2fx",
		e, eg, es, ec, rw, rg, rs, e/rw)
}

// profiledTurns runs the profiled executor turn and the profiled raw turn
// that were asked for.
func (r *runner) profiledTurns(ctx context.Context) error {
	if r.o.CPUProfile != "" {
		r.o.logf("%s: profiling %d executor blocks", r.o.Row(), r.o.ProfileBlocks)
		err := writeProfile(r.o.CPUProfile, func(w io.Writer) error {
			_, err := r.execTurnProfiled(ctx, r.o.ProfileBlocks, w)
			return err
		})
		if err != nil {
			return err
		}
	}
	if r.o.RawCPUProfile != "" {
		r.o.logf("%s: profiling %d raw blocks", r.o.Row(), r.o.ProfileBlocks)
		return writeProfile(r.o.RawCPUProfile, func(w io.Writer) error {
			_, err := r.rawTurnProfiled(ctx, r.o.ProfileBlocks, w)
			return err
		})
	}
	return nil
}

// writeProfile creates path and runs turn with it as the profile's writer.
func writeProfile(path string, turn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := turn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (res *Result) summarize() {
	var eg, es, e, ec, rg, rs, rw, paired, ew, rwall []float64
	for _, t := range res.Turns {
		g, s, tot, c := t.PerWL()
		wall := float64(t.Wall.Microseconds()) / float64(max(t.WL, 1))
		if t.Side == "executor" {
			eg, es, e, ec = append(eg, g), append(es, s), append(e, tot), append(ec, c)
			ew = append(ew, wall)
		} else {
			rg, rs, rw = append(rg, g), append(rs, s), append(rw, tot)
			rwall = append(rwall, wall)
			if tot > 0 && len(e) == len(rw) {
				paired = append(paired, e[len(e)-1]/tot)
			}
		}
	}
	res.PairedRatio = median(paired)
	res.ExecWall, res.RawWall = median(ew), median(rwall)
	res.ExecGo, res.ExecServer, res.ExecTotal, res.ExecCheck = median(eg), median(es), median(e), median(ec)
	res.RawGo, res.RawServer, res.RawTotal = median(rg), median(rs), median(rw)
	if res.RawTotal > 0 {
		res.Ratio = res.ExecTotal / res.RawTotal
		res.RatioWithCheck = (res.ExecTotal + res.ExecCheck) / res.RawTotal
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
