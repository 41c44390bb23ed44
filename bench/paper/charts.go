package paper

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/relchain/relchain/bench"
)

// series is one line of a chart.
type series struct {
	name   string
	xs, ys []float64
}

func (s *series) add(x, y float64) {
	s.xs = append(s.xs, x)
	s.ys = append(s.ys, y)
}

// group is one set of bars of a bar chart, a value per category.
type group struct {
	name string
	vals []float64
}

// at is a measured point with its result (nil where it failed).
type at struct {
	p Point
	r *bench.Result
}

func points(m Measured) []at {
	out := make([]at, len(m.Experiment.Points))
	for i, p := range m.Experiment.Points {
		out[i] = at{p, m.Results[i]}
	}
	return out
}

func where(all []at, keep func(Point) bool) []at {
	var out []at
	for _, a := range all {
		if keep(a.p) {
			out = append(out, a)
		}
	}
	return out
}

func mode(m string) func(Point) bool { return func(p Point) bool { return p.Config.Mode == m } }

// linePanel draws series as lines with points. Non-positive values are
// left out on a log axis; a panel without data says so.
func linePanel(title, xlabel, ylabel string, logX, logY bool, ss []series) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Legend.Top = true
	any := false
	var xsSeen []float64
	for i, s := range ss {
		var xys plotter.XYs
		for j := range s.xs {
			x, y := s.xs[j], s.ys[j]
			if math.IsNaN(y) || math.IsInf(y, 0) || (logX && x <= 0) || (logY && y <= 0) {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
		}
		if len(xys) == 0 {
			continue
		}
		for _, xy := range xys {
			if !slices.Contains(xsSeen, xy.X) {
				xsSeen = append(xsSeen, xy.X)
			}
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue
		}
		c := plotutil.Color(i)
		l.Color, sc.Color = c, c
		sc.Shape = plotutil.Shape(i)
		l.Dashes = plotutil.Dashes(i)
		p.Add(l, sc)
		p.Legend.Add(s.name, l, sc)
		any = true
	}
	if !any {
		p.Title.Text += " (no data)"
		return p
	}
	p.Add(plotter.NewGrid())
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
		if len(xsSeen) <= 12 {
			p.X.Tick.Marker = valueTicks(xsSeen)
		}
		p.X.Min, p.X.Max = p.X.Min/1.2, p.X.Max*1.2
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		// Room above for the legend, below so a flat line shows.
		p.Y.Min, p.Y.Max = p.Y.Min/1.5, p.Y.Max*4
	} else {
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.25
		if p.Y.Max == p.Y.Min {
			p.Y.Max++
		}
	}
	return p
}

// logTicks marks a log axis at 1, 2 and 5 times powers of ten, labelled
// when there are few of them, else at powers of ten only.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	var vals []float64
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow(10, e); v >= lo && v <= hi {
				vals = append(vals, v)
			}
		}
	}
	var ticks []plot.Tick
	for _, v := range vals {
		t := plot.Tick{Value: v}
		mant := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
		if len(vals) <= 9 || math.Abs(mant-1) < 1e-6 {
			t.Label = humanNum(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// valueTicks marks an axis at the values measured (k, clients).
type valueTicks []float64

func (v valueTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, x := range v {
		if x >= lo && x <= hi {
			ticks = append(ticks, plot.Tick{Value: x, Label: humanNum(x)})
		}
	}
	return ticks
}

// humanNum writes an axis value briefly: 0.5, 20, 1000, 20k, 1M.
func humanNum(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// scatterPanel draws series as dots.
func scatterPanel(title, xlabel, ylabel string, ss []series) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Legend.Top = true
	any := false
	for i, s := range ss {
		xys := make(plotter.XYs, len(s.xs))
		for j := range s.xs {
			xys[j] = plotter.XY{X: s.xs[j], Y: s.ys[j]}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			continue
		}
		sc.Color, sc.Shape = plotutil.Color(i), plotutil.Shape(i)
		p.Add(sc)
		p.Legend.Add(s.name, sc)
		any = true
	}
	if !any {
		p.Title.Text += " (no data)"
	} else {
		p.Add(plotter.NewGrid())
		p.Y.Min, p.Y.Max = 0, p.Y.Max*1.35
	}
	return p
}

// barPanel draws groups of bars side by side over categories; stacked
// puts them on top of each other instead.
func barPanel(title, ylabel string, cats []string, gs []group, stacked bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	if len(cats) == 0 || len(gs) == 0 {
		p.Title.Text += " (no data)"
		return p
	}
	p.Add(plotter.NewGrid())
	w := vg.Points(min(40, 240/float64(len(cats)*max(1, len(gs)))))
	top := 0.0
	sums := make([]float64, len(cats))
	if stacked {
		w = vg.Points(min(40, 240/float64(len(cats))))
	}
	var below *plotter.BarChart
	for i, g := range gs {
		vals := make(plotter.Values, len(cats))
		for j := range cats {
			if j < len(g.vals) && !math.IsNaN(g.vals[j]) && !math.IsInf(g.vals[j], 0) && g.vals[j] > 0 {
				vals[j] = g.vals[j]
			}
			sums[j] += vals[j]
			top = max(top, vals[j])
			if stacked {
				top = max(top, sums[j])
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			continue
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = vg.Points(0.5)
		if stacked {
			if below != nil {
				b.StackOn(below)
			}
			below = b
		} else {
			b.Offset = vg.Length(float64(i)-float64(len(gs)-1)/2) * w
		}
		p.Add(b)
		if len(gs) > 1 {
			p.Legend.Add(g.name, b)
		}
	}
	// Room above the bars for the legend.
	p.Y.Min, p.Y.Max = 0, max(top*1.35, 1)
	// Say so where nothing was measured; a single group's bars carry
	// their values.
	var na plotter.XYLabels
	for j, sum := range sums {
		switch {
		case sum == 0:
			na.XYs = append(na.XYs, plotter.XY{X: float64(j), Y: p.Y.Max * 0.03})
			na.Labels = append(na.Labels, "n/a")
		case len(gs) == 1:
			na.XYs = append(na.XYs, plotter.XY{X: float64(j), Y: sum + p.Y.Max*0.01})
			na.Labels = append(na.Labels, num(sum))
		}
	}
	if len(na.XYs) > 0 {
		if l, err := plotter.NewLabels(na); err == nil {
			for i := range l.TextStyle {
				l.TextStyle[i].XAlign = draw.XCenter
			}
			p.Add(l)
		}
	}
	p.NominalX(cats...)
	p.X.Min, p.X.Max = -0.6, float64(len(cats))-0.4
	return p
}

// savePanels writes panels side by side (cols per row) as one PNG.
func savePanels(path string, cols int, panels ...*plot.Plot) error {
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for j := range grid {
		grid[j] = make([]*plot.Plot, cols)
		for i := range cols {
			if k := j*cols + i; k < len(panels) {
				grid[j][i] = panels[k]
			}
		}
	}
	const panelW, panelH = 6 * vg.Inch, 4.5 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(panelW*vg.Length(cols), panelH*vg.Length(rows)), vgimg.UseDPI(96))
	dc := draw.New(img)
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align(grid, t, dc)
	for j := range grid {
		for i, p := range grid[j] {
			if p != nil {
				p.Draw(canvases[j][i])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("chart %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	return nil
}

// Values read from a result; NaN when not measured.
func tps(r *bench.Result) float64 {
	if r == nil {
		return math.NaN()
	}
	return r.TPS
}

func p50(r *bench.Result) float64 {
	if r == nil || r.LatencyMS == nil {
		return math.NaN()
	}
	return r.LatencyMS.P50
}

func rawTPS(r *bench.Result) float64 {
	if r == nil || r.Baseline == nil {
		return math.NaN()
	}
	return r.Baseline.TPS
}

func rawP50(r *bench.Result) float64 {
	if r == nil || r.Baseline == nil || r.Baseline.LatencyMS == nil {
		return math.NaN()
	}
	return r.Baseline.LatencyMS.P50
}

func overhead(r *bench.Result) float64 {
	if r == nil || r.Overhead == 0 {
		return math.NaN()
	}
	return r.Overhead
}

func seconds(r *bench.Result) float64 {
	if r == nil {
		return math.NaN()
	}
	return r.Seconds
}

func rawMS(r *bench.Result) float64 {
	if r == nil || r.Baseline == nil {
		return math.NaN()
	}
	return r.Baseline.Seconds * 1000
}

func blocks(r *bench.Result) float64 {
	if r == nil {
		return math.NaN()
	}
	return float64(r.TxBlocks)
}

// shortLabel drops an experiment's common words from a label for an axis.
func shortLabel(l string) string {
	r := strings.NewReplacer("timeout_commit=", "", "smallbank", "SB", "tpcc", "TPC-C", "validators=", "v=", "clients=", "c=", " (query path)", "", "read/write=", "r/w ")
	return r.Replace(l)
}

// chart renders the figure of one experiment to path (chartOf), or, for
// an experiment without a figure of its own, the throughput of each point.
func chart(path string, m Measured) error {
	all := points(m)
	if f := chartOf[m.Experiment.ID]; f != nil {
		return f(path, all)
	}
	var cats []string
	g := group{name: "tps"}
	for _, a := range all {
		cats = append(cats, shortLabel(a.p.Label))
		g.vals = append(g.vals, tps(a.r))
	}
	return savePanels(path, 1, barPanel(m.Experiment.Title, "wl-tx/s", cats, []group{g}, false))
}

// chartOf holds the figure of each experiment that has one.
var chartOf = map[string]func(path string, all []at) error{
	Fig2:   fig2Chart,
	Fig3:   fig3Chart,
	Fig45:  fig45Chart,
	Fig67:  fig67Chart,
	Fig8:   fig8Chart,
	Fig9:   fig9Chart,
	Fig10:  fig10Chart,
	Fig11a: fig11aChart,
	Fig11b: fig11bChart,
	Fig12:  fig12Chart,
	Study:  studyChart,
}

// studyChart draws read and write p50 latency per point, beside the
// replicated PostgreSQL's p50 over all operations.
func studyChart(path string, all []at) error {
	var cats []string
	read, write, replicated := group{name: "relchain read"}, group{name: "relchain write"}, group{name: "PostgreSQL + 3 sync standbys (all ops)"}
	for _, a := range all {
		cats = append(cats, shortLabel(a.p.Label))
		read.vals = append(read.vals, kindP50(a.r, "Read"))
		write.vals = append(write.vals, kindP50(a.r, "Update"))
		rep := math.NaN()
		if a.r != nil && a.r.Baseline != nil && a.r.Baseline.LatencyMS != nil {
			rep = a.r.Baseline.LatencyMS.P50
		}
		replicated.vals = append(replicated.vals, rep)
	}
	p := barPanel("YCSB, 8 clients: p50 latency", "ms", cats, []group{read, write, replicated}, false)
	return savePanels(path, 1, p)
}

// kindP50 is one transaction kind's p50 latency in ms (NaN if absent).
func kindP50(r *bench.Result, kind string) float64 {
	if r == nil || r.Kinds[kind] == nil || r.Kinds[kind].LatencyMS == nil {
		return math.NaN()
	}
	return r.Kinds[kind].LatencyMS.P50
}

// fig12Chart draws the chain's and the replicated PostgreSQL's throughput
// by wl-transactions per bc-transaction.
func fig12Chart(path string, all []at) error {
	var cats []string
	chain, replicated := group{name: "relchain (4 validators)"}, group{name: "PostgreSQL + 3 synchronous standbys"}
	for _, a := range all {
		cats = append(cats, fmt.Sprintf("k=%d", a.p.Config.WLPerBC))
		chain.vals = append(chain.vals, tps(a.r))
		rep := math.NaN()
		if a.r != nil && a.r.Baseline != nil {
			rep = a.r.Baseline.TPS
		}
		replicated.vals = append(replicated.vals, rep)
	}
	p := barPanel("Smallbank pseudo-sync: throughput", "wl-tx/s", cats, []group{chain, replicated}, false)
	p.X.Label.Text = "wl-transactions per bc-transaction"
	return savePanels(path, 1, p)
}

// fig2Chart draws sync latency and async throughput by timeout_commit.
func fig2Chart(path string, all []at) error {
	return chartCats(path, all, []panelSpec{
		{"sync: p50 latency per transaction", "ms", bench.ModeSync, p50},
		{"async: throughput", "wl-tx/s", bench.ModeAsync, tps},
	}, func(p Point) string { return fmtDur(p.TimeoutCommit) }, "timeout_commit")
}

// fig3Chart draws builtin against socket ABCI.
func fig3Chart(path string, all []at) error {
	byABCI := func(p Point) string { return cmp.Or(p.ABCI, "builtin") }
	return chartCats(path, all, []panelSpec{
		{"async: throughput", "wl-tx/s", bench.ModeAsync, tps},
		{"sync: p50 latency", "ms", bench.ModeSync, p50},
	}, byABCI, "ABCI transport")
}

// fig45Chart draws latency, throughput and overhead by wl-transactions per bc-transaction.
func fig45Chart(path string, all []at) error {
	var lat, thr, ovh []series
	for _, w := range []string{"smallbank", "tpcc"} {
		pts := where(all, func(p Point) bool { return p.Config.Workload == w && p.Config.Mode != bench.ModeAsync })
		if len(pts) == 0 {
			continue
		}
		chain, raw, rawT, ov := series{name: w + " relchain"}, series{name: w + " raw DBMS"}, series{name: w + " raw DBMS"}, series{name: w}
		for _, a := range dedupK(pts) {
			k := float64(max(a.p.Config.WLPerBC, 1))
			chain.add(k, p50(a.r))
			raw.add(k, rawP50(a.r))
			rawT.add(k, rawTPS(a.r))
			ov.add(k, overhead(a.r))
		}
		lat = append(lat, chain, raw)
		thr = append(thr, series{name: w + " relchain", xs: chain.xs, ys: mapYs(dedupK(pts), tps)}, rawT)
		ov.name = w + " (chain / raw seconds)"
		ovh = append(ovh, ov)
	}
	return savePanels(path, 3,
		linePanel("(a) latency per bc-transaction (p50)", "wl-transactions per bc-transaction (k)", "ms", true, true, lat),
		linePanel("(b) throughput", "wl-transactions per bc-transaction (k)", "wl-tx/s", true, true, thr),
		linePanel("(c) overhead over the raw DBMS", "wl-transactions per bc-transaction (k)", "x", true, true, ovh))
}

// fig67Chart draws each async run's per-block latency and block sizes.
func fig67Chart(path string, all []at) error {
	var lat, size []series
	for _, a := range all {
		if a.r == nil || len(a.r.PerBlock) == 0 {
			continue
		}
		l, s := series{name: shortLabel(a.p.Label)}, series{name: shortLabel(a.p.Label)}
		for i, b := range a.r.PerBlock {
			l.add(float64(i+1), b.LatencyMS)
			s.add(float64(i+1), float64(b.WLTxs))
		}
		lat, size = append(lat, l), append(size, s)
	}
	return savePanels(path, 2,
		linePanel("(a) mean latency of each block's wl-transactions", "block of the run", "ms", false, false, lat),
		scatterPanel("(b) wl-transactions per block", "block of the run", "wl-transactions", size))
}

// fig8Chart draws the phases of a block, in ms and as shares.
func fig8Chart(path string, all []at) error {
	var cats []string
	ph := make([]group, 4)
	share := make([]group, 4)
	for i, n := range []string{"propose", "consensus", "execute", "commit"} {
		ph[i].name, share[i].name = n, n
	}
	for _, a := range all {
		cats = append(cats, shortLabel(a.p.Label))
		v := [4]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		if a.r != nil && a.r.Phases != nil {
			f := a.r.Phases
			v = [4]float64{f.Propose, f.Consensus, f.Execute, f.Commit}
		}
		sum := v[0] + v[1] + v[2] + v[3]
		for i := range 4 {
			ph[i].vals = append(ph[i].vals, v[i])
			share[i].vals = append(share[i].vals, 100*v[i]/sum)
		}
	}
	return savePanels(path, 2,
		barPanel("(a) mean time per block by phase", "ms", cats, ph, true),
		barPanel("(b) share of the block's time", "%", cats, share, true))
}

// fig9Chart draws throughput and latency by clients.
func fig9Chart(path string, all []at) error {
	var thr, lat []series
	for _, md := range []string{bench.ModeSync, bench.ModePseudo, bench.ModeAsync} {
		pts := where(all, mode(md))
		if len(pts) == 0 {
			continue
		}
		t, l := series{name: md}, series{name: md}
		for _, a := range pts {
			t.add(float64(a.p.Config.Clients), tps(a.r))
			l.add(float64(a.p.Config.Clients), p50(a.r))
		}
		thr, lat = append(thr, t), append(lat, l)
	}
	return savePanels(path, 2,
		linePanel("(a) throughput", "clients", "wl-tx/s", true, true, thr),
		linePanel("(b) p50 latency", "clients", "ms", true, true, lat))
}

// fig10Chart draws runtimes and overheads by backend.
func fig10Chart(path string, all []at) error {
	var panels []*plot.Plot
	for _, md := range []string{bench.ModeSync, bench.ModeAsync} {
		pts := where(all, mode(md))
		var cats []string
		chain, raw, over := group{name: "relchain (s)"}, group{name: "raw DBMS (ms)"}, group{name: "overhead"}
		for _, a := range pts {
			cats = append(cats, a.p.Backend)
			chain.vals = append(chain.vals, seconds(a.r))
			raw.vals = append(raw.vals, rawMS(a.r))
			over.vals = append(over.vals, overhead(a.r))
		}
		panels = append(panels,
			barPanel(md+": relchain end-to-end runtime", "s", cats, []group{chain}, false),
			barPanel(md+": raw DBMS runtime", "ms", cats, []group{raw}, false),
			barPanel(md+": overhead (relchain / raw)", "x", cats, []group{over}, false))
	}
	return savePanels(path, 3, panels...)
}

// fig11aChart draws runtime, blocks and latency by validators.
func fig11aChart(path string, all []at) error {
	byV := func(p Point) string { return strconv.Itoa(p.Validators) }
	return chartCats(path, all, []panelSpec{
		{"async: end-to-end runtime", "s", bench.ModeAsync, seconds},
		{"async: blocks with transactions", "blocks", bench.ModeAsync, blocks},
		{"sync: p50 latency", "ms", bench.ModeSync, p50},
	}, byV, "validators")
}

// fig11bChart draws sync latency and async throughput by added latency.
func fig11bChart(path string, all []at) error {
	byDelay := func(p Point) string { return fmtDur(p.LinkDelay) }
	return chartCats(path, all, []panelSpec{
		{"sync: p50 latency per transaction", "ms", bench.ModeSync, p50},
		{"async: throughput", "wl-tx/s", bench.ModeAsync, tps},
	}, byDelay, "added one-way latency")
}

// panelSpec is a bar panel of one mode's points, one value each.
type panelSpec struct {
	title, ylabel, mode string
	val                 func(*bench.Result) float64
}

func chartCats(path string, all []at, specs []panelSpec, cat func(Point) string, xlabel string) error {
	var panels []*plot.Plot
	for _, s := range specs {
		var cats []string
		g := group{name: s.title}
		for _, a := range where(all, mode(s.mode)) {
			cats = append(cats, cat(a.p))
			g.vals = append(g.vals, s.val(a.r))
		}
		p := barPanel(s.title, s.ylabel, cats, []group{g}, false)
		p.X.Label.Text = xlabel
		panels = append(panels, p)
	}
	return savePanels(path, len(panels), panels...)
}

// dedupK keeps one point per k, sync before pseudo, sorted by k.
func dedupK(pts []at) []at {
	out := slices.Clone(pts)
	slices.SortStableFunc(out, func(a, b at) int { return max(a.p.Config.WLPerBC, 1) - max(b.p.Config.WLPerBC, 1) })
	return slices.CompactFunc(out, func(a, b at) bool { return max(a.p.Config.WLPerBC, 1) == max(b.p.Config.WLPerBC, 1) })
}

func mapYs(pts []at, f func(*bench.Result) float64) []float64 {
	out := make([]float64, len(pts))
	for i, a := range pts {
		out[i] = f(a.r)
	}
	return out
}
