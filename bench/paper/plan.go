package paper

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/bench"
)

// Point is one measurement of an experiment.
type Point struct {
	// Label names the point within its experiment, e.g. "k=64".
	Label string
	// Config is the measurement's input: Workload, Mode, WLPerBC,
	// Clients, Txs, Scale, Mix, Seed (the runner fills Nodes, Dialect).
	Config     bench.Config
	Validators int
	// Backend is "sqlite", "postgres" or "mysql".
	Backend string
	// ABCI is how CometBFT reaches the app: "" or "builtin" (in-process),
	// "socket" (the paper's server variant, Fig. 3).
	ABCI string
	// TimeoutCommit is CometBFT's timeout_commit for the network; Plan
	// always sets it (0 is a real value: propose as soon as there are
	// txs).
	TimeoutCommit time.Duration
	// RelayLinks runs every p2p link through a relay in the runner that
	// adds LinkDelay one way (bench.NetworkOptions): WAN latency where
	// the kernel has no netem (Fig. 11b).
	RelayLinks bool
	LinkDelay  time.Duration
	// Baseline also runs the raw-DBMS baseline (Result.Baseline and
	// Result.Overhead).
	Baseline bool
	// BaselineReplicas > 0 runs that baseline on a PostgreSQL primary
	// with this many synchronous streaming standbys (remote_apply): the
	// replicated database of Fig. 12.
	BaselineReplicas int
	// Ceiling also runs CometBFT's kvstore on an identical network
	// (Result.Ceiling, Result.RatioToCeiling).
	Ceiling bool
	// Paper is the paper's number for the comparable measurement, where
	// the text gives one; the report prints it beside ours.
	Paper string
}

// Experiment is one figure of the paper, scaled to this machine.
type Experiment struct {
	// ID is the figure, e.g. "fig4-5".
	ID    string `json:"id"`
	Title string `json:"title"`
	// Paper says what the paper found, in words and numbers.
	Paper string `json:"paper"`
	// Notes say how our setup differs (scale, skipped points).
	Notes  []string `json:"notes,omitempty"`
	Points []Point  `json:"points"`
}

// RunFunc measures one point: it starts the network the point describes,
// sets the workload up, runs it (plus baseline and ceiling when asked) and
// stops the network.
type RunFunc func(ctx context.Context, p Point) (*bench.Result, error)

// Options select a plan.
type Options struct {
	// Quick scales every experiment down to finish in under 10 minutes.
	Quick bool
	// Backends available: "sqlite" always, "postgres" and "mysql" when a
	// server is available. Empty means sqlite only.
	Backends []string
	// Only keeps the experiments with these IDs; empty keeps all.
	Only []string
}

// Experiment IDs, in the paper's order.
const (
	Fig2   = "fig2"
	Fig3   = "fig3"
	Fig45  = "fig4-5"
	Fig67  = "fig6-7"
	Fig8   = "fig8"
	Fig9   = "fig9"
	Fig10  = "fig10"
	Fig11a = "fig11a"
	Fig11b = "fig11b"
	Fig12  = "fig12"
	// Study is the latency study after Bergman, Asplund and
	// Nadjm-Tehrani, "Permissioned Blockchains and Distributed
	// Databases: A Performance Study" (Fabric against Cassandra).
	Study = "latency-study"
)

// IDs lists every experiment Plan knows.
var IDs = []string{Fig2, Fig3, Fig45, Fig67, Fig8, Fig9, Fig10, Fig11a, Fig11b, Fig12, Study}

// Defaults of every point unless an experiment varies them.
const (
	DefaultTimeoutCommit = 10 * time.Millisecond // relchain's node default
	DefaultValidators    = 4                     // the paper's network
	DefaultBackend       = "sqlite"
	Seed                 = 1
)

// sizes scale the paper's experiments.
type sizes struct {
	sbScale, tpccScale          int // Smallbank accounts, TPC-C warehouses
	sbSync, sbAsync, sbPseudo   int // wl-transactions per point
	tpccSync, tpccAsync, tpccPs int
	// syncCap bounds how long a sync point may run: at a long
	// timeout_commit it gets fewer transactions (rates stay comparable).
	syncCap    time.Duration
	ks, tpccKs []int
	tcs        []time.Duration
	clients    []int
	clientTxs  int // sync wl-transactions per client in fig9
	clientCap  int
	asyncMixes bool            // TPC-C async per transaction type as in Fig. 7b
	asyncFig9  bool            // fig9 also asynchronous
	delays     []time.Duration // fig11b's added one-way link latencies
	asyncDelay bool            // fig11b also asynchronous
	replicaKs  []int           // fig12's wl-transactions per bc-transaction
	study      bool            // the latency study (full plan only)
}

var quickSizes = sizes{
	sbScale: 1000, tpccScale: 1,
	sbSync: 100, sbAsync: 2000, sbPseudo: 1000,
	tpccSync: 30, tpccAsync: 300, tpccPs: 256,
	syncCap: 8 * time.Second,
	ks:      []int{4, 16, 64, 256, 1024, 2048},
	tpccKs:  []int{16, 256},
	tcs:     []time.Duration{0, 10 * time.Millisecond, 100 * time.Millisecond, time.Second},
	clients: []int{1, 2, 4, 8, 16, 32}, clientTxs: 100, clientCap: 1600,
	delays:    []time.Duration{0, 100 * time.Millisecond},
	replicaKs: []int{16, 1024},
}

var fullSizes = sizes{
	sbScale: 100000, tpccScale: 1,
	sbSync: 1000, sbAsync: 10000, sbPseudo: 1000,
	tpccSync: 200, tpccAsync: 2000, tpccPs: 1000,
	syncCap: 40 * time.Second,
	ks:      []int{1, 4, 16, 64, 256, 1024, 2048},
	tpccKs:  []int{1, 4, 16, 64, 256, 1024},
	tcs: []time.Duration{0, time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond,
		100 * time.Millisecond, 250 * time.Millisecond, time.Second},
	clients: []int{1, 2, 4, 8, 16, 32}, clientTxs: 250, clientCap: 4000,
	asyncMixes: true, asyncFig9: true,
	asyncDelay: true,
	delays:     []time.Duration{0, 5 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond},
	replicaKs:  []int{1, 16, 64, 256, 1024},
	study:      true,
}

// builder makes the points of a plan with consistent defaults, so that
// identical measurements of different figures coincide (Run measures them
// once).
type builder struct{ s sizes }

func (b builder) scale(workload string) int {
	if workload == "tpcc" {
		return b.s.tpccScale
	}
	return b.s.sbScale
}

func (b builder) point(label, workload, mode string, k, clients, txs int) Point {
	if mode == bench.ModeSync {
		k = 1
	}
	return Point{
		Label: label,
		Config: bench.Config{
			Workload: workload, Mode: mode, WLPerBC: k, Clients: clients,
			Txs: txs, Scale: b.scale(workload), Seed: Seed,
		},
		Validators: DefaultValidators, Backend: DefaultBackend,
		TimeoutCommit: DefaultTimeoutCommit, Baseline: true,
	}
}

// sync is a synchronous point, its transaction count cut so that it runs
// for at most syncCap.
func (b builder) sync(label, workload string, clients, txs int, tc time.Duration, validators int, backend string) Point {
	p := b.point(label, workload, bench.ModeSync, 1, clients, txs)
	p.TimeoutCommit, p.Validators, p.Backend = tc, validators, backend
	lat := syncLatency(tc, validators)
	if n := int(b.s.syncCap/lat) * clients; n < p.Config.Txs {
		p.Config.Txs = max(n, 10*clients)
	}
	return p
}

func (b builder) async(label, workload string, txs int, tc time.Duration, validators int, backend string) Point {
	p := b.point(label, workload, bench.ModeAsync, 1, 1, txs)
	p.TimeoutCommit, p.Validators, p.Backend = tc, validators, backend
	return p
}

// The points several figures share.
func (b builder) sbSyncDefault(label string) Point {
	p := b.sync(label, "smallbank", 1, b.s.sbSync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
	p.Ceiling = true
	return p
}

func (b builder) sbAsyncDefault(label string) Point {
	p := b.async(label, "smallbank", b.s.sbAsync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
	p.Ceiling = true
	return p
}

func (b builder) sbPseudo(k int) Point {
	return b.point(fmt.Sprintf("smallbank pseudo k=%d", k), "smallbank", bench.ModePseudo, k, 1, b.s.sbPseudo)
}

func (b builder) tpccSync(label string) Point {
	return b.sync(label, "tpcc", 1, b.s.tpccSync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
}

func (b builder) tpccAsync(label string, mix ...string) Point {
	p := b.async(label, "tpcc", b.s.tpccAsync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
	p.Config.Mix = mix
	return p
}

// Plan returns the experiments, scaled to a 2-core machine: o.Quick
// finishes in under 10 minutes (Estimate), the full plan in about an hour.
func Plan(o Options) []Experiment {
	s := fullSizes
	if o.Quick {
		s = quickSizes
	}
	p := planner{b: builder{s}, o: o, note: fmt.Sprintf("Smallbank with %s accounts (paper: 100,000), TPC-C with %d warehouse(s) (paper: 10); SQLite backend unless stated (paper: PostgreSQL 14.5); 4 validators on one 2-core machine (paper: 4 Docker nodes on a 16-core i9-12900K); default timeout_commit %v (paper: 100 ms, chosen by its Fig. 2).",
		thousands(s.sbScale), s.tpccScale, DefaultTimeoutCommit)}
	all := []Experiment{p.fig2(), p.fig3(), p.fig45(), p.fig67(), p.fig8(), p.fig9(), p.fig10(), p.fig11a(), p.fig11b(), p.fig12(), p.study()}
	if len(o.Only) == 0 {
		return all
	}
	var out []Experiment
	for _, e := range all {
		if slices.Contains(o.Only, e.ID) {
			out = append(out, e)
		}
	}
	return out
}

// planner builds the experiments of one plan, one method per figure.
type planner struct {
	b    builder
	o    Options
	note string // how the plan is scaled, a note of every experiment
}

// fig2 is Fig. 2: timeout_commit.
func (pl planner) fig2() Experiment {
	b, s := pl.b, pl.b.s
	scaleNote := pl.note
	e := Experiment{ID: Fig2, Title: "Fig. 2: varying timeout_commit (Smallbank, sync latency and async throughput)",
		Paper: "timeout_commit varied from 25 ms to 1000 ms for 1,000 synchronous and 10,000 asynchronous Smallbank transactions; 100 ms gave the best end-to-end runtime in both cases, so the paper uses 100 ms everywhere else. The text gives no per-value numbers.",
		Notes: []string{scaleNote, "Sync points at long timeout_commit run fewer transactions (each point is capped in time); tps and latency stay comparable."}}
	for _, tc := range s.tcs {
		var sp, ap Point
		if tc == DefaultTimeoutCommit {
			sp, ap = b.sbSyncDefault(""), b.sbAsyncDefault("")
		} else {
			sp = b.sync("", "smallbank", 1, s.sbSync, tc, DefaultValidators, DefaultBackend)
			ap = b.async("", "smallbank", s.sbAsync, tc, DefaultValidators, DefaultBackend)
		}
		sp.Label = "sync timeout_commit=" + fmtDur(tc)
		ap.Label = "async timeout_commit=" + fmtDur(tc)
		if tc == 100*time.Millisecond {
			sp.Paper, ap.Paper = "best runtime (chosen)", "best runtime (chosen)"
		}
		e.Points = append(e.Points, sp, ap)
	}
	return e
}

// fig3 is Fig. 3: builtin vs server variant.
func (pl planner) fig3() Experiment {
	b, s := pl.b, pl.b.s
	scaleNote := pl.note
	e := Experiment{ID: Fig3, Title: "Fig. 3: builtin vs server variant (Smallbank, async and sync)",
		Paper: "The application linked into the consensus process (builtin) against the same application behind ABCI's socket protocol (server variant): builtin was 1.53x faster for asynchronous Smallbank.",
		Notes: []string{scaleNote, "relchain's server variant (relchain node --abci socket) runs both sides in one process and talks over loopback TCP; 'relchain abci-server' runs the app in a separate process for a stock cometbft."}}
	ab, sb := b.sbAsyncDefault("async builtin"), b.sbSyncDefault("sync builtin")
	as := b.async("async socket", "smallbank", s.sbAsync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
	ss := b.sync("sync socket", "smallbank", 1, s.sbSync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
	as.ABCI, ss.ABCI = "socket", "socket"
	ab.Paper, as.Paper = "builtin 1.53x faster than server", "server variant"
	e.Points = append(e.Points, ab, as, sb, ss)
	return e
}

// fig45 is Figs. 4 and 5: sync and pseudo-sync.
func (pl planner) fig45() Experiment {
	b, s := pl.b, pl.b.s
	scaleNote := pl.note
	e := Experiment{ID: Fig45, Title: "Figs. 4/5: synchronous and pseudo-synchronous, k wl-transactions per bc-transaction (Smallbank, TPC-C)",
		Paper: "1,000 writing wl-transactions, k = 1..2,048 per bc-transaction, one client, 4 nodes. Smallbank: fully synchronous 218x latency and 208x end-to-end runtime over raw PostgreSQL; best pseudo-sync still 32x latency and 25x runtime. TPC-C: synchronous 133x latency and 129x runtime; best pseudo-sync only 2.5x latency and 2.4x runtime. Packing more wl-transactions per bc-transaction means fewer blocks and consensus rounds.",
		Notes: []string{scaleNote, "Latency here is per bc-transaction (the client waits for the batch); overhead is chain seconds over the raw DBMS running the same grouping."}}
	p := b.sbSyncDefault("smallbank sync k=1")
	p.Paper = "208x runtime, 218x latency"
	e.Points = append(e.Points, p)
	for _, k := range s.ks {
		p := b.sbPseudo(k)
		if k == s.ks[len(s.ks)-1] {
			p.Paper = "best: 25x runtime, 32x latency"
		}
		e.Points = append(e.Points, p)
	}
	p = b.tpccSync("tpcc sync k=1")
	p.Paper = "129x runtime, 133x latency"
	e.Points = append(e.Points, p)
	for _, k := range s.tpccKs {
		p := b.point(fmt.Sprintf("tpcc pseudo k=%d", k), "tpcc", bench.ModePseudo, k, 1, s.tpccPs)
		if k == s.tpccKs[len(s.tpccKs)-1] {
			p.Paper = "best: 2.4x runtime, 2.5x latency"
		}
		e.Points = append(e.Points, p)
	}
	return e
}

// fig67 is Figs. 6 and 7: async per-block latency and block sizes.
func (pl planner) fig67() Experiment {
	b, s := pl.b, pl.b.s
	scaleNote := pl.note
	e := Experiment{ID: Fig67, Title: "Figs. 6/7: asynchronous, latency and wl-transactions per block over the run (Smallbank, TPC-C)",
		Paper: "10,000 asynchronous writing wl-transactions. Smallbank: latency of the last block up to 24x and end-to-end runtime 21x (average over transaction types) over raw PostgreSQL; the framework packs about 1,000-2,000 wl-transactions per block, 8 blocks in total. TPC-C: latency at most 2.6x; end-to-end runtime NewOrder 2.0x, Payment 4.3x; the read-only OrderStatus through the query path 1.52x.",
		Notes: []string{scaleNote, "Per-block latency is the mean latency of the wl-transactions a block committed (the paper plots the time from the first submission to the block's commit)."}}
	p := b.sbAsyncDefault("smallbank async")
	p.Paper = "21x runtime, last block 24x latency, ~1,000-2,000 wl-txs/block, 8 blocks"
	e.Points = append(e.Points, p)
	p = b.tpccAsync("tpcc async")
	p.Paper = "latency at most 2.6x"
	e.Points = append(e.Points, p)
	if s.asyncMixes {
		p = b.tpccAsync("tpcc async NewOrder", "NewOrder")
		p.Paper = "2.0x runtime"
		e.Points = append(e.Points, p)
		p = b.tpccAsync("tpcc async Payment", "Payment")
		p.Paper = "4.3x runtime"
		e.Points = append(e.Points, p)
		p = b.tpccAsync("tpcc OrderStatus (query path)", "OrderStatus")
		p.Paper = "1.52x runtime"
		e.Points = append(e.Points, p)
	}
	return e
}

// fig8 is Fig. 8: cost breakdown.
func (pl planner) fig8() Experiment {
	b := pl.b
	scaleNote := pl.note
	e := Experiment{ID: Fig8, Title: "Fig. 8: cost breakdown of a block into propose, consensus, execute, commit",
		Paper: "The life of a block under synchronous (1 bc-transaction per block) and asynchronous communication (1,311 bc-transactions per block): the consensus phase dominates by far; execution is negligible in both cases; propose and consensus vary across runs. The text gives no millisecond values.",
		Notes: []string{scaleNote, "Phases are means per block as one node's application measured them (Result.PhasesMS); these points are shared with Figs. 4-7."}}
	e.Points = append(e.Points,
		b.sbSyncDefault("smallbank sync"),
		b.sbPseudo(64),
		b.sbAsyncDefault("smallbank async"),
		b.tpccSync("tpcc sync"),
		b.tpccAsync("tpcc async"))
	e.Points[1].Label = "smallbank pseudo k=64"
	e.Points[0].Paper = "1 bc-tx/block, consensus dominates"
	e.Points[2].Paper = "1,311 bc-txs/block, consensus dominates"
	return e
}

// fig9 is Fig. 9: clients.
func (pl planner) fig9() Experiment {
	b, s := pl.b, pl.b.s
	scaleNote := pl.note
	e := Experiment{ID: Fig9, Title: "Fig. 9: number of clients (Smallbank)",
		Paper: "1 to 32 clients, 10,000 Smallbank transactions in total. Synchronous: performance increases drastically with the clients, as concurrently submitted transactions share a block. Asynchronous: a smaller but still significant improvement (one client does not saturate the system). Recommendation: use several clients, improvement up to 32.",
		Notes: []string{scaleNote, fmt.Sprintf("Sync points run %d wl-transactions per client (at most %s in total); tps stays comparable.", s.clientTxs, thousands(s.clientCap))}}
	for _, c := range s.clients {
		var p Point
		if c == 1 {
			p = b.sbSyncDefault("")
		} else {
			p = b.sync("", "smallbank", c, min(c*s.clientTxs, s.clientCap), DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
		}
		p.Label = fmt.Sprintf("sync clients=%d", c)
		if c == 32 {
			p.Paper = "largest sync improvement"
		}
		e.Points = append(e.Points, p)
	}
	if s.asyncFig9 {
		for _, c := range s.clients {
			var p Point
			if c == 1 {
				p = b.sbAsyncDefault("")
			} else {
				p = b.async("", "smallbank", s.sbAsync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
				p.Config.Clients = c
			}
			p.Label = fmt.Sprintf("async clients=%d", c)
			e.Points = append(e.Points, p)
		}
	}
	return e
}

// fig10Server is a server database's pair of Fig. 10 points: its name,
// the paper's claims on its sync and async points, and the note when its
// server is not available.
type fig10Server struct{ name, syncPaper, asyncPaper, skipped string }

// fig10Servers are the databases Fig. 10 sets beside DefaultBackend's
// points, in order (a test holds that they and DefaultBackend are every
// database relchain runs on).
var fig10Servers = []fig10Server{
	{"postgres", "raw: PostgreSQL 6.6x faster than MySQL", "raw: PostgreSQL 2.6x faster than MySQL",
		"PostgreSQL points skipped: no PostgreSQL server was available (Options.Backends lacks \"postgres\")."},
	{"mysql", "raw: MySQL 6.6x slower than PostgreSQL; chain: no difference", "raw: MySQL 2.6x slower than PostgreSQL; chain: 1.2x slower",
		"MySQL points skipped: no MySQL/MariaDB server was available (Options.Backends lacks \"mysql\")."},
}

// fig10 is Fig. 10: backends.
func (pl planner) fig10() Experiment {
	b, s := pl.b, pl.b.s
	scaleNote := pl.note
	e := Experiment{ID: Fig10, Title: "Fig. 10: relational backend (Smallbank, sync and async, with raw baselines)",
		Paper: "1,000 synchronous and 10,000 asynchronous Smallbank transactions with PostgreSQL or MySQL in all four nodes. Raw: PostgreSQL 6.6x faster than MySQL (sync) and 2.6x (async). In the chain: sync makes no difference at all (block forming and consensus dominate); async PostgreSQL is 1.2x faster than MySQL.",
		Notes: []string{scaleNote, "relchain's backends are SQLite, PostgreSQL and MySQL/MariaDB (the paper compared PostgreSQL with MySQL); the MySQL points run on whatever server --mysql names (the private one: MariaDB)."}}
	sp, ap := b.sbSyncDefault("sqlite sync"), b.sbAsyncDefault("sqlite async")
	sp.Paper, ap.Paper = "chain: backend makes no difference", "chain: PostgreSQL 1.2x faster than MySQL"
	e.Points = append(e.Points, sp, ap)
	for _, srv := range fig10Servers {
		if !slices.Contains(pl.o.Backends, srv.name) {
			e.Notes = append(e.Notes, srv.skipped)
			continue
		}
		sp = b.sync(srv.name+" sync", "smallbank", 1, s.sbSync, DefaultTimeoutCommit, DefaultValidators, srv.name)
		ap = b.async(srv.name+" async", "smallbank", s.sbAsync, DefaultTimeoutCommit, DefaultValidators, srv.name)
		sp.Paper, ap.Paper = srv.syncPaper, srv.asyncPaper
		e.Points = append(e.Points, sp, ap)
	}
	return e
}

// fig11a is Fig. 11a: validators.
func (pl planner) fig11a() Experiment {
	b, s := pl.b, pl.b.s
	scaleNote := pl.note
	e := Experiment{ID: Fig11a, Title: "Fig. 11a: number of validators on one machine (Smallbank, async and sync)",
		Paper: "10,000 asynchronous Smallbank transactions on 1, 4 and 8 virtual nodes: runtime 1.47x (4 nodes) and 1.69x (8 nodes) over one node, sublinear; one node makes about 20 smaller blocks, four and eight nodes about 6 larger blocks (consensus throttles block forming).",
		Notes: []string{scaleNote}}
	for _, v := range []int{1, 4, 8} {
		var ap, sp Point
		if v == DefaultValidators {
			ap, sp = b.sbAsyncDefault(""), b.sbSyncDefault("")
		} else {
			ap = b.async("", "smallbank", s.sbAsync, DefaultTimeoutCommit, v, DefaultBackend)
			sp = b.sync("", "smallbank", 1, s.sbSync, DefaultTimeoutCommit, v, DefaultBackend)
		}
		ap.Label = fmt.Sprintf("async validators=%d", v)
		sp.Label = fmt.Sprintf("sync validators=%d", v)
		switch v {
		case 1:
			ap.Paper = "1.00x runtime, ~20 blocks"
		case 4:
			ap.Paper = "1.47x runtime over 1 node, ~6 blocks"
		case 8:
			ap.Paper = "1.69x runtime over 1 node, ~6 blocks"
		}
		e.Points = append(e.Points, ap, sp)
	}
	return e
}

// fig11b is Fig. 11b: added network latency between the validators.
func (pl planner) fig11b() Experiment {
	b, s := pl.b, pl.b.s
	e := Experiment{ID: Fig11b, Title: "Fig. 11b: added one-way network latency between 4 validators (Smallbank, sync latency and async throughput)",
		Paper: "4 nodes with 0, 5, 25, 50 and 100 ms of added network latency (netem): synchronous latency grows with the added latency (consensus needs several message delays per block), asynchronous throughput falls far less (blocks grow, batching hides the latency).",
		Notes: []string{pl.note, "The kernel here has no netem qdisc: every p2p link runs through a relay in the runner that holds each byte for the added latency, both directions (netctl.RelayLinks); the 0 ms point is the default network without relays (the same measurement as Figs. 2 and 11a's default point; through the relays with nothing added, sync latency was within the noise of the direct links, BENCHMARKS.md). The relay delays bytes, not packets: the sender's TCP window is not limited by the latency as with netem."}}
	for _, d := range s.delays {
		sp := b.sync(fmt.Sprintf("sync delay=%s", fmtDur(d)), "smallbank", 1, s.sbSync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
		if n := int(s.syncCap / (syncLatency(DefaultTimeoutCommit, DefaultValidators) + delayedRounds*d)); n < sp.Config.Txs {
			sp.Config.Txs = max(n, 10)
		}
		sp.RelayLinks, sp.LinkDelay = d > 0, d
		e.Points = append(e.Points, sp)
		if s.asyncDelay {
			ap := b.async(fmt.Sprintf("async delay=%s", fmtDur(d)), "smallbank", s.sbAsync, DefaultTimeoutCommit, DefaultValidators, DefaultBackend)
			ap.RelayLinks, ap.LinkDelay, ap.Baseline = d > 0, d, false
			e.Points = append(e.Points, ap)
		}
	}
	if !s.asyncDelay {
		e.Notes = append(e.Notes, "Quick plan: 0 and 100 ms, synchronous only (the full plan adds 5, 25, 50 ms and the asynchronous points).")
	}
	return e
}

// fig12 is Fig. 12: the chain beside a replicated PostgreSQL, by
// wl-transactions per bc-transaction (pseudo-sync, as the paper varied).
func (pl planner) fig12() Experiment {
	b, s := pl.b, pl.b.s
	e := Experiment{ID: Fig12, Title: "Fig. 12: relchain on PostgreSQL beside PostgreSQL with 3 synchronous standbys (Smallbank pseudo-sync, by wl-transactions per bc-transaction)",
		Paper: "Smallbank against a fully replicated Citus cluster (a coordinator synchronizing three replicas with 2PC) on the same four nodes, pseudo-sync: with few wl-transactions per bc-transaction distributed PostgreSQL performs drastically better; the more wl-transactions a bc-transaction carries, the closer the blockchain comes.",
		Notes: []string{pl.note, "Citus is not installable here; the replicated baseline is PostgreSQL's own: a durable primary with 3 synchronous streaming standbys, synchronous_commit = remote_apply (a commit returns once every standby has applied it), the four servers on this machine, running exactly the chain's wl-transactions in the chain's grouping (one db-transaction per bc-transaction)."}}
	if !pl.needsPostgres(&e) {
		return e
	}
	for _, k := range s.replicaKs {
		p := b.point(fmt.Sprintf("k=%d", k), "smallbank", bench.ModePseudo, k, 1, s.sbPseudo)
		p.Backend, p.Baseline, p.BaselineReplicas = replicaBackend, true, 3
		e.Points = append(e.Points, p)
	}
	return e
}

// replicaBackend is the database of the experiments beside a replicated
// baseline (Fig. 12, the study): PostgreSQL, as in the papers, the one the
// lab gives streaming replicas (workload.Database.Replicas; a test holds
// it).
const replicaBackend = "postgres"

// needsPostgres reports whether replicaBackend's server is available; when
// it is not, it notes on e that the experiment was skipped.
func (pl planner) needsPostgres(e *Experiment) bool {
	if slices.Contains(pl.o.Backends, replicaBackend) {
		return true
	}
	e.Notes = append(e.Notes, "Skipped: no PostgreSQL server was available (Options.Backends lacks \"postgres\").")
	return false
}

// studyClients and studyTxsPerClient size each point of the latency
// study: closed-loop clients and the wl-transactions each submits.
const studyClients, studyTxsPerClient = 8, 40

// study is the latency study after the Fabric-vs-Cassandra paper: read and
// write latency against the network size, and against the read/write mix,
// beside PostgreSQL's synchronous replication.
func (pl planner) study() Experiment {
	e := Experiment{ID: Study, Title: "Latency study: read and write latency by network size and read/write mix (YCSB, 8 clients, relchain on PostgreSQL beside PostgreSQL with 3 synchronous standbys)",
		Paper: "Bergman et al. (Fabric against Cassandra): the permissioned blockchain's write latency is far higher than the distributed database's and grows with the network and the offered load, while reads, answered by one node, stay close to the database's; the read/write mix (95/5, 50/50, 5/95) decides how far apart the two systems are.",
		Notes: []string{pl.note, "YCSB records (1 KB, uniform keys), reads through one node's query path, writes through consensus; --mix Read:R,Update:W sets the proportion. Every validator, the chain's PostgreSQL and the four replicated servers share this machine's cores, so more validators also means more contention, not only more messages. `make bench-latency-study` runs the 36 points of 1/4/7/10 validators, 1/8/32 clients and three mixes."}}
	if !pl.needsPostgres(&e) {
		return e
	}
	if !pl.b.s.study {
		e.Notes = append(e.Notes, "Skipped: the quick plan leaves the study out (networks of up to 10 validators and four PostgreSQL servers a point); run the full plan or `make bench-latency-study`.")
		return e
	}
	add := func(validators, read int) {
		p := pl.b.point(fmt.Sprintf("validators=%d read/write=%d/%d", validators, read, 100-read), "ycsb-a", bench.ModeSync, 1, studyClients, studyClients*studyTxsPerClient)
		p.Config.Mix = []string{fmt.Sprintf("Read:%d", read), fmt.Sprintf("Update:%d", 100-read)}
		p.Config.Scale = 10000
		p.Validators, p.Backend, p.Baseline, p.BaselineReplicas = validators, replicaBackend, true, 3
		e.Points = append(e.Points, p)
	}
	for _, v := range []int{1, 4, 7, 10} {
		add(v, 50)
	}
	add(4, 95)
	add(4, 5)
	return e
}

// thousands writes n with thousands separators: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fmtDur(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// key identifies a measurement: points with the same key are measured
// once (Label, Paper, Baseline and Ceiling do not matter; the measurement
// runs the baseline and ceiling if any of them asks).
func (p Point) key() string {
	c := p.Config
	abci := p.ABCI
	if abci == "builtin" {
		abci = ""
	}
	return fmt.Sprintf("%s|%s|%d|%s|%d|%d|%d|%d|%s|%d|%s|%d|%s|%v|%s|%v|%v|%d",
		c.Workload, c.Mode, c.WLPerBC, c.Submit, c.Clients, c.Txs, c.Rows, c.Scale,
		strings.Join(c.Mix, ","), c.Seed, c.Dialect, p.Validators, p.Backend, p.TimeoutCommit, abci, p.RelayLinks, p.LinkDelay,
		p.BaselineReplicas)
}

// Distinct returns the measurements a plan needs: one per distinct point,
// with Baseline and Ceiling set if any point of that measurement asks.
func Distinct(plan []Experiment) []Point {
	idx := map[string]int{}
	var out []Point
	for _, e := range plan {
		for _, p := range e.Points {
			k := p.key()
			if i, ok := idx[k]; ok {
				out[i].Baseline = out[i].Baseline || p.Baseline
				out[i].Ceiling = out[i].Ceiling || p.Ceiling
				continue
			}
			idx[k] = len(out)
			p.Label = e.ID + " " + p.Label
			out = append(out, p)
		}
	}
	return out
}
