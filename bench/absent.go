package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/relchain/relchain/api"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
)

// ConsensusTimeouts are the CometBFT timeouts a missing proposer costs: a
// round whose proposer never proposes lasts TimeoutPropose (plus
// TimeoutProposeDelta per earlier round of the height), then, once +2/3
// have precommitted nil, TimeoutPrecommit before the next round starts.
type ConsensusTimeouts struct {
	Propose      time.Duration `json:"timeout_propose"`
	ProposeDelta time.Duration `json:"timeout_propose_delta"`
	Precommit    time.Duration `json:"timeout_precommit"`
}

func (t ConsensusTimeouts) String() string {
	return fmt.Sprintf("propose %v (+%v/round), precommit %v", t.Propose, t.ProposeDelta, t.Precommit)
}

// AbsentOptions describe MeasureAbsent's sweep.
type AbsentOptions struct {
	// Network is started once per setting, its Tuning's timeouts replaced
	// by the setting's; the last validator is the one that goes missing.
	Network  NetworkOptions
	Settings []ConsensusTimeouts
	// Txs, Clients and Rows size each run: async single-row UPDATEs
	// (the update micro-workload) from Clients submitters.
	Txs     int
	Clients int
	Rows    int
	Seed    uint64
	// CommitClients, if not 0, adds commit-mode runs beside the async
	// ones: that many clients each send one UPDATE and wait for its block
	// (broadcast_tx_commit), for CommitDuration. Async runs absorb a stall
	// into larger blocks; these wait it out, as interactive clients do.
	CommitClients  int
	CommitDuration time.Duration
	// Repeat runs the whole sweep this many times (settings interleaved,
	// so a shared machine's drift spreads over all of them); 0 means 1.
	Repeat int
	// Pause also measures with the last validator paused (SIGSTOP): it
	// keeps its connections but answers nothing.
	Pause bool
	Log   io.Writer
}

// AbsentRun is one async run.
type AbsentRun struct {
	Txs          int     `json:"txs"`
	Failed       int     `json:"failed"`
	Seconds      float64 `json:"seconds"`
	TPS          float64 `json:"tps"`
	Blocks       int     `json:"blocks"`
	BlocksPerSec float64 `json:"blocks_per_sec"`
	// LaterRounds is how many of the run's heights were decided in a
	// round above 0: with every validator up, each is a spurious round
	// change (a proposal or a vote that missed its timeout).
	LaterRounds int `json:"later_rounds"`
}

// AbsentPoint is one setting's runs on one network: healthy, then with the
// last validator paused (if asked), then with it stopped (SIGKILL).
type AbsentPoint struct {
	Timeouts ConsensusTimeouts `json:"timeouts"`
	Healthy  AbsentRun         `json:"healthy"`
	Paused   *AbsentRun        `json:"paused,omitempty"`
	Stopped  AbsentRun         `json:"stopped"`
	// HealthyCommit and StoppedCommit are the commit-mode runs, if asked.
	HealthyCommit *AbsentRun `json:"healthy_commit,omitempty"`
	StoppedCommit *AbsentRun `json:"stopped_commit,omitempty"`
	// StoppedRatio and PausedRatio are the degraded runs' tx/s over the
	// healthy run's.
	StoppedRatio float64 `json:"stopped_ratio"`
	PausedRatio  float64 `json:"paused_ratio,omitempty"`
	CommitRatio  float64 `json:"commit_ratio,omitempty"`
}

// MeasureAbsent measures, for each setting of the consensus timeouts, the
// async throughput of a healthy network and of the same network with one
// validator absent. Each setting gets a network of its own.
func MeasureAbsent(ctx context.Context, o AbsentOptions) ([]AbsentPoint, error) {
	if o.Network.Validators < 4 {
		return nil, errors.New("one absent validator needs at least 4 validators (3 of 4 still hold +2/3 of the votes)")
	}
	if o.Txs < 1 || o.Clients < 1 || o.Rows < 1 || len(o.Settings) == 0 {
		return nil, errors.New("absent benchmark: txs, clients, rows and at least one setting are required")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	var points []AbsentPoint
	for r := range max(o.Repeat, 1) {
		for _, s := range o.Settings {
			fmt.Fprintf(o.Log, "sweep %d, %s: starting %d validators (%s)...\n", r+1, s, o.Network.Validators, o.Network.Backend)
			p, err := measureAbsentPoint(ctx, o, s)
			if err != nil {
				return points, fmt.Errorf("%s: %w", s, err)
			}
			fmt.Fprintf(o.Log, "sweep %d, %s: healthy %.0f tx/s (%d heights past round 0), stopped %.0f tx/s (%.2f)\n",
				r+1, s, p.Healthy.TPS, p.Healthy.LaterRounds, p.Stopped.TPS, p.StoppedRatio)
			points = append(points, p)
		}
	}
	return points, nil
}

func measureAbsentPoint(ctx context.Context, o AbsentOptions, s ConsensusTimeouts) (AbsentPoint, error) {
	nopts := o.Network
	nopts.Tuning.TimeoutPropose = s.Propose
	nopts.Tuning.TimeoutProposeDelta = s.ProposeDelta
	nopts.Tuning.TimeoutPrecommit = s.Precommit
	n, err := StartNetwork(ctx, nopts)
	if err != nil {
		return AbsentPoint{}, err
	}
	defer n.StopAll()
	rpcs := RPCs(n)
	cfg := Config{Workload: "update", Mode: ModeAsync, Clients: o.Clients, Txs: o.Txs, Rows: o.Rows,
		Dialect: nopts.Backend, Nodes: rpcs, Seed: o.Seed}
	if err := SetupMicro(ctx, cfg); err != nil {
		return AbsentPoint{}, err
	}
	p := AbsentPoint{Timeouts: s}
	if p.Healthy, err = absentRun(ctx, cfg); err != nil {
		return p, fmt.Errorf("healthy: %w", err)
	}
	if p.HealthyCommit, err = commitRun(ctx, o, cfg); err != nil {
		return p, fmt.Errorf("healthy, commit mode: %w", err)
	}
	last := len(rpcs) - 1
	cfg.Nodes = rpcs[:last] // clients only reach the validators that are up
	if o.Pause {
		run, err := pausedRun(ctx, n, last, cfg)
		if err != nil {
			return p, fmt.Errorf("paused: %w", err)
		}
		p.Paused, p.PausedRatio = &run, Ratio(run.TPS, p.Healthy.TPS)
	}
	if err := n.Kill(last); err != nil {
		return p, err
	}
	if p.Stopped, err = absentRun(ctx, cfg); err != nil {
		return p, fmt.Errorf("stopped: %w", err)
	}
	p.StoppedRatio = Ratio(p.Stopped.TPS, p.Healthy.TPS)
	if p.StoppedCommit, err = commitRun(ctx, o, cfg); err != nil {
		return p, fmt.Errorf("stopped, commit mode: %w", err)
	}
	if p.HealthyCommit != nil {
		p.CommitRatio = Ratio(p.StoppedCommit.TPS, p.HealthyCommit.TPS)
	}
	return p, nil
}

// pausedRun runs with validator i paused, and resumes it afterwards.
func pausedRun(ctx context.Context, n *netctl.Network, i int, cfg Config) (AbsentRun, error) {
	if err := n.Pause(i); err != nil {
		return AbsentRun{}, err
	}
	run, err := absentRun(ctx, cfg)
	if rerr := n.Resume(i); err == nil {
		err = rerr
	}
	return run, err
}

// absentRun is one async run of the update micro-workload, with the rounds
// its heights were decided in.
func absentRun(ctx context.Context, cfg Config) (AbsentRun, error) {
	obs, err := client.New(cfg.Nodes[0], nil)
	if err != nil {
		return AbsentRun{}, err
	}
	from, err := latestHeight(ctx, obs)
	if err != nil {
		return AbsentRun{}, err
	}
	res, err := RunMicro(ctx, cfg)
	if err != nil {
		return AbsentRun{}, err
	}
	to, err := latestHeight(ctx, obs)
	if err != nil {
		return AbsentRun{}, err
	}
	later, err := heightsPastRoundZero(ctx, obs, from+1, to)
	if err != nil {
		return AbsentRun{}, err
	}
	run := AbsentRun{Txs: res.Succeeded + res.Failed, Failed: res.Failed, Seconds: res.Seconds, TPS: res.TPS,
		Blocks: res.Blocks, LaterRounds: later}
	if res.Seconds > 0 {
		run.BlocksPerSec = float64(res.Blocks) / res.Seconds
	}
	return run, nil
}

// commitRun is a commit-mode run of o.CommitClients clients for
// o.CommitDuration (nil if not asked): each sends single-row UPDATEs with
// broadcast_tx_commit, one at a time.
func commitRun(ctx context.Context, o AbsentOptions, cfg Config) (*AbsentRun, error) {
	if o.CommitClients < 1 {
		return nil, nil
	}
	obs, err := client.New(cfg.Nodes[0], nil)
	if err != nil {
		return nil, err
	}
	from, err := latestHeight(ctx, obs)
	if err != nil {
		return nil, err
	}
	mk := maker(ctx, cfg)
	var ok, failed atomic.Int64
	start := time.Now()
	deadline := start.Add(o.CommitDuration)
	err = runClients(o.CommitClients, func(i int) error {
		c, err := newClient(cfg.Nodes[i%len(cfg.Nodes)])
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(cfg.Seed, uint64(1000+i)))
		for time.Now().Before(deadline) {
			raw, err := mk(c, r)
			if err != nil {
				return err
			}
			out, err := c.Broadcast(ctx, client.ModeCommit, raw)
			if err != nil {
				return fmt.Errorf("client %d: %w", i, err)
			}
			if out.Code == api.CodeOK {
				ok.Add(1)
			} else {
				failed.Add(1)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	to, err := latestHeight(ctx, obs)
	if err != nil {
		return nil, err
	}
	later, err := heightsPastRoundZero(ctx, obs, from+1, to)
	if err != nil {
		return nil, err
	}
	n := int(ok.Load() + failed.Load())
	return &AbsentRun{Txs: n, Failed: int(failed.Load()), Seconds: secs, TPS: float64(n) / secs,
		Blocks: int(to - from), BlocksPerSec: float64(to-from) / secs, LaterRounds: later}, nil
}

// heightsPastRoundZero counts the heights in [from, to] whose commit was
// made in a round above 0.
func heightsPastRoundZero(ctx context.Context, c *client.Client, from, to int64) (int, error) {
	n := 0
	for h := from; h <= to; h++ {
		cm, err := c.RPC().Commit(ctx, &h)
		if err != nil {
			return 0, fmt.Errorf("commit %d: %w", h, err)
		}
		if cm.Commit.Round > 0 {
			n++
		}
	}
	return n, nil
}
