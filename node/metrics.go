package node

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
)

// metricsNamespace prefixes every relchain metric.
const metricsNamespace = "relchain"

// metrics is a node's relchain collector, served beside CometBFT's on the
// Prometheus listener (health.go). The hot path (FinalizeBlock, Commit,
// CheckTx) only observes histograms and adds to counters, after the work
// and through app.Observer; what costs a file system or database call
// (checkpoints, database size) is read when Prometheus scrapes. Nothing
// here is read by consensus: metrics cannot change a block.
type metrics struct {
	reg *prometheus.Registry

	execute, digest, commit prometheus.Histogram
	blockTxs                prometheus.Histogram
	txs                     *prometheus.CounterVec // by result code name
	refused                 *prometheus.CounterVec // by reason (code name)
	refusedBy               map[uint32]prometheus.Counter
}

var _ app.Observer = (*metrics)(nil)

// blockSecondsBuckets spans a block's phases from 100 µs to about 15 s.
var blockSecondsBuckets = prometheus.ExponentialBuckets(0.0001, 2.5, 14)

// refusalCodes are the codes CheckTx refuses new txs with (api/codes.go).
var refusalCodes = []uint32{api.CodeMalformed, api.CodeWrongChain, api.CodeBadSignature, api.CodeTooLarge,
	api.CodeNoStatements, api.CodeSyntax, api.CodeForbidden, api.CodeReplayed, api.CodeUnauthorized, api.CodeQuarantined, api.CodeCommitted}

func newMetrics(n *Node) *metrics {
	hist := func(name, help string, buckets []float64) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: metricsNamespace, Name: name, Help: help, Buckets: buckets})
	}
	m := &metrics{
		reg:      prometheus.NewRegistry(),
		execute:  hist("block_execute_seconds", "Time this node spent executing a committed block (statements, digests and AppHash; in ProcessProposal when the block was executed early).", blockSecondsBuckets),
		digest:   hist("block_digest_seconds", "Part of a block's execution spent on its change and state digests and AppHash.", blockSecondsBuckets),
		commit:   hist("block_commit_seconds", "Time from the end of a block's execution (or its decision, if later) to the end of its db-commit.", blockSecondsBuckets),
		blockTxs: hist("block_txs", "bc-transactions per committed block.", prometheus.ExponentialBuckets(1, 4, 8)),
		txs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Name: "txs_total",
			Help: "bc-transactions in committed blocks, by result code (api.CodeName: ok, exec_failed, forbidden, ...)."}, []string{"code"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Name: "checktx_refused_total",
			Help: "New bc-transactions CheckTx refused (never reached the mempool), by reason class (the result code's name)."}, []string{"reason"}),
		refusedBy: make(map[uint32]prometheus.Counter, len(refusalCodes)),
	}
	for _, c := range refusalCodes {
		m.refusedBy[c] = m.refused.WithLabelValues(api.CodeName(c))
	}
	m.txs.WithLabelValues(api.CodeName(api.CodeOK))
	m.reg.MustRegister(m.execute, m.digest, m.commit, m.blockTxs, m.txs, m.refused, &stateCollector{n: n})
	return m
}

// BlockCommitted implements app.Observer.
func (m *metrics) BlockCommitted(t api.BlockTiming, digest time.Duration, codes []uint32) {
	m.execute.Observe(float64(t.ExecuteUS) / 1e6)
	m.digest.Observe(digest.Seconds())
	m.commit.Observe(float64(t.CommitUS) / 1e6)
	m.blockTxs.Observe(float64(len(codes)))
	for i := 0; i < len(codes); {
		j := i + 1
		for j < len(codes) && codes[j] == codes[i] {
			j++
		}
		m.txs.WithLabelValues(api.CodeName(codes[i])).Add(float64(j - i))
		i = j
	}
}

// CheckTxRefused implements app.Observer.
func (m *metrics) CheckTxRefused(code uint32) {
	if c, ok := m.refusedBy[code]; ok {
		c.Inc()
		return
	}
	m.refused.WithLabelValues(api.CodeName(code)).Inc()
}

// stateCollector reads, when Prometheus scrapes, what is not an event:
// checkpoints, the database's size, the replay windows, whether the node
// halted and whether it is ready.
type stateCollector struct{ n *Node }

var (
	descHeight = prometheus.NewDesc(metricsNamespace+"_committed_height",
		"Height of the last block this node committed to its database.", nil, nil)
	descCheckpointHeight = prometheus.NewDesc(metricsNamespace+"_checkpoint_height",
		"Height of this node's newest checkpoint (absent without one).", nil, nil)
	descCheckpointAge = prometheus.NewDesc(metricsNamespace+"_checkpoint_age_seconds",
		"Seconds since this node's newest checkpoint was written (its file's modification time).", nil, nil)
	descCheckpointAgeBlocks = prometheus.NewDesc(metricsNamespace+"_checkpoint_age_blocks",
		"Committed height minus the newest checkpoint's height: the blocks a recover would replay.", nil, nil)
	descCheckpointDuration = prometheus.NewDesc(metricsNamespace+"_checkpoint_duration_seconds",
		"How long the last background checkpoint this process took ran (absent before the first).", nil, nil)
	descCheckpointFailed = prometheus.NewDesc(metricsNamespace+"_checkpoint_last_failed",
		"1 if the last background checkpoint failed (blocks go on; recover would use an older checkpoint), else 0.", nil, nil)
	descDatabaseSize = prometheus.NewDesc(metricsNamespace+"_database_size_bytes",
		"Size of the node's database: SQLite's files (main file and WAL), PostgreSQL's pg_database_size, MySQL's tables and indexes (information_schema); absent if it cannot be read.", nil, nil)
	descReplayKeys = prometheus.NewDesc(metricsNamespace+"_replay_window_keys",
		"Keys whose replay window (nonces seen) this node holds in its committed state.", nil, nil)
	descEnvelopeEntries = prometheus.NewDesc(metricsNamespace+"_envelope_cache_entries",
		"Decoded, signature-verified envelopes this node holds between CheckTx and their block.", nil, nil)
	descEnvelopeBytes = prometheus.NewDesc(metricsNamespace+"_envelope_cache_bytes",
		"Estimated memory the envelope cache pins (bounded at 64 MiB).", nil, nil)
	descEnvelopeLookups = prometheus.NewDesc(metricsNamespace+"_envelope_cache_lookups_total",
		"Envelope cache lookups by result: hit (a decoding and a signature verification saved) or miss.", []string{"result"}, nil)
	descHalted = prometheus.NewDesc(metricsNamespace+"_halted",
		"1 when the node has stopped executing blocks, with the reason: divergence, out_of_band, disk_full, consensus_stopped or apply_failed; 0 (reason \"\") otherwise.", []string{"reason"}, nil)
	descDatabaseUnavailable = prometheus.NewDesc(metricsNamespace+"_database_unavailable",
		"1 while a block waits for this node's database (a lost connection, a restarting server) and retries it, else 0.", nil, nil)
	descDatabaseUnavailableSeconds = prometheus.NewDesc(metricsNamespace+"_database_unavailable_seconds",
		"How long the current database outage has lasted (0 when the database is available).", nil, nil)
	descDatabaseRetries = prometheus.NewDesc(metricsNamespace+"_database_retries_total",
		"Attempts of a block's execution or commit that failed because the database was unavailable and were retried.", nil, nil)
	descDatabaseOutages = prometheus.NewDesc(metricsNamespace+"_database_outages_total",
		"Times this node's database became unavailable during a block (each resolved by retrying).", nil, nil)
	descDatabaseLostCommits = prometheus.NewDesc(metricsNamespace+"_database_lost_commits_total",
		"Block commits that failed with the database connection lost, by what the recorded (height, AppHash) showed: applied (the acknowledgement was lost; done), or rerun (the block ran again and was committed once).", []string{"outcome"}, nil)
	descLaneBlocks = prometheus.NewDesc(metricsNamespace+"_lane_blocks_total",
		"Blocks whose transactions ran on lanes ([block] lanes, parallel execution), by outcome: parallel (they did), abandoned (an attempt given up for the serial run: a lane met another's lock, or the database could give no lanes), declined (the block split but ran serially: measured serial runs faster on this machine), unanalysed (not analysed for lanes, recent blocks having not split).", []string{"outcome"}, nil)
	descReady = prometheus.NewDesc(metricsNamespace+"_ready",
		"1 when /readyz answers 200: caught up (not block- or state-syncing) and executing.", nil, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descHeight, descCheckpointHeight, descCheckpointAge, descCheckpointAgeBlocks,
		descCheckpointDuration, descCheckpointFailed, descDatabaseSize, descReplayKeys, descHalted, descReady,
		descEnvelopeEntries, descEnvelopeBytes, descEnvelopeLookups,
		descDatabaseUnavailable, descDatabaseUnavailableSeconds, descDatabaseRetries, descDatabaseOutages, descDatabaseLostCommits,
		descLaneBlocks} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.n
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	kind, _ := n.haltState()
	halted := 0.0
	if kind != "" {
		halted = 1
	}
	gauge(descHalted, halted, kind)
	ready := 0.0
	if n.readiness() == "" {
		ready = 1
	}
	gauge(descReady, ready)
	if n.app == nil {
		return
	}
	ex := n.app.Executor()
	collectDatabaseStatus(ch, ex.DatabaseStatus())
	height := ex.State().Height
	gauge(descHeight, float64(height))
	gauge(descReplayKeys, float64(ex.ReplayKeys()))
	env := ex.EnvelopeCache()
	gauge(descEnvelopeEntries, float64(env.Entries))
	gauge(descEnvelopeBytes, float64(env.Bytes))
	ch <- prometheus.MustNewConstMetric(descEnvelopeLookups, prometheus.CounterValue, float64(env.Hits), "hit")
	ch <- prometheus.MustNewConstMetric(descEnvelopeLookups, prometheus.CounterValue, float64(env.Misses), "miss")
	lanes := ex.LaneStats()
	ch <- prometheus.MustNewConstMetric(descLaneBlocks, prometheus.CounterValue, float64(lanes.Parallel), "parallel")
	ch <- prometheus.MustNewConstMetric(descLaneBlocks, prometheus.CounterValue, float64(lanes.Abandoned), "abandoned")
	ch <- prometheus.MustNewConstMetric(descLaneBlocks, prometheus.CounterValue, float64(lanes.Declined), "declined")
	ch <- prometheus.MustNewConstMetric(descLaneBlocks, prometheus.CounterValue, float64(lanes.Unanalysed), "unanalysed")
	if cp, at, ok := n.newestCheckpoint(); ok {
		gauge(descCheckpointHeight, float64(cp.Height))
		gauge(descCheckpointAge, time.Since(at).Seconds())
		gauge(descCheckpointAgeBlocks, float64(max(height-cp.Height, 0)))
	}
	if l, ok := ex.Backend().(interface{ LastCheckpoint() backend.CheckpointRun }); ok {
		if run := l.LastCheckpoint(); !run.Start.IsZero() {
			gauge(descCheckpointDuration, run.Took.Seconds())
			failed := 0.0
			if run.Err != nil {
				failed = 1
			}
			gauge(descCheckpointFailed, failed)
		}
	}
	if size, ok := n.databaseSize(); ok {
		gauge(descDatabaseSize, float64(size))
	}
}

// newestCheckpoint is this node's newest checkpoint and its file's
// modification time.
func (n *Node) newestCheckpoint() (backend.Checkpoint, time.Time, bool) {
	if n.listCheckpoints == nil {
		return backend.Checkpoint{}, time.Time{}, false
	}
	cps, err := n.listCheckpoints(CheckpointDir(n.home))
	if err != nil || len(cps) == 0 {
		return backend.Checkpoint{}, time.Time{}, false
	}
	fi, err := os.Stat(cps[0].Path)
	if err != nil {
		return backend.Checkpoint{}, time.Time{}, false
	}
	return cps[0], fi.ModTime(), true
}

// databaseSize is the size of the node's database: a file database's
// files (SQLite: the database and its WAL), or what a server backend
// reports (SizeBytes: PostgreSQL's pg_database_size, MySQL's
// information_schema estimate; a query on the reader connections, made
// when Prometheus scrapes).
func (n *Node) databaseSize() (int64, bool) {
	if n.dbFile == "" {
		return n.serverDatabaseSize()
	}
	var total int64
	for _, p := range []string{n.dbFile, n.dbFile + "-wal"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, false
		}
		total += fi.Size()
	}
	return total, true
}

func (n *Node) serverDatabaseSize() (int64, bool) {
	if n.app == nil {
		return 0, false
	}
	s, ok := n.app.Executor().Backend().(interface {
		SizeBytes(context.Context) (int64, error)
	})
	if !ok {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	size, err := s.SizeBytes(ctx)
	return size, err == nil
}

// collectDatabaseStatus sends the database availability metrics.
func collectDatabaseStatus(ch chan<- prometheus.Metric, db app.DatabaseStatus) {
	down, since := 0.0, 0.0
	if db.Unavailable {
		down, since = 1, time.Since(db.Since).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(descDatabaseUnavailable, prometheus.GaugeValue, down)
	ch <- prometheus.MustNewConstMetric(descDatabaseUnavailableSeconds, prometheus.GaugeValue, since)
	ch <- prometheus.MustNewConstMetric(descDatabaseRetries, prometheus.CounterValue, float64(db.Retries))
	ch <- prometheus.MustNewConstMetric(descDatabaseOutages, prometheus.CounterValue, float64(db.Outages))
	ch <- prometheus.MustNewConstMetric(descDatabaseLostCommits, prometheus.CounterValue, float64(db.LostCommitsApplied), "applied")
	ch <- prometheus.MustNewConstMetric(descDatabaseLostCommits, prometheus.CounterValue, float64(db.LostCommitsRerun), "rerun")
}
