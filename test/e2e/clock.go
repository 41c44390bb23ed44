package e2e

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cometbft/cometbft/types"
)

// heightSeen is a poll of the monitor that saw a new highest height h:
// At, the harness's (true) clock when the poll ended; Before, when the
// poll before it began, when no node that answered had h.
type heightSeen struct {
	Height     int64
	At, Before time.Time
}

// ClockFigure is what the votes of a node with a clock fault showed.
type ClockFigure struct {
	Node   int    `json:"node"`
	Offset string `json:"offset"`
	// Votes is how many of its precommits the canonical commits of the
	// load's heights carry; Shifted how many of them show its offset.
	Votes   int `json:"votes"`
	Shifted int `json:"shifted"`
	// MedianLead is the median of its vote time minus the median of the
	// honest votes' times in the same commit.
	MedianLead float64 `json:"median_lead_seconds"`
}

// BlockTimeFigure is how far block times were from the harness's clock.
type BlockTimeFigure struct {
	Blocks int `json:"blocks_checked"`
	// MaxAhead is the largest time(k) - seen(k): how far a block's time
	// led the harness's clock when it first saw the block (never above 0
	// on sane clocks). MaxBehind is the largest unseen(k-2) - time(k):
	// how far it preceded the last moment the harness knew no node had
	// block k-2 (never above 0 on sane clocks either: no precommit for
	// k-1 exists before some node has k-2).
	MaxAhead  float64 `json:"max_ahead_of_seen_seconds"`
	MaxBehind float64 `json:"max_before_grandparent_unseen_seconds"`
}

// blockTimes reads every header's time up to h from node i.
func blockTimes(ctx context.Context, r *run, i int, h int64) (map[int64]time.Time, error) {
	out := map[int64]time.Time{}
	for lo := int64(1); lo <= h; lo += 20 {
		hi := min(lo+19, h)
		res, err := r.nw.client(i, nil).RPC().BlockchainInfo(ctx, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("node%d: blockchain %d-%d: %w", i, lo, hi, err)
		}
		for _, m := range res.BlockMetas {
			out[m.Header.Height] = m.Header.Time
		}
	}
	return out, nil
}

// honestNode is the first node without a clock fault.
func (r *run) honestNode() int {
	skewed := r.m.clockFaults()
	for i := range r.nw.net.Nodes {
		if _, ok := skewed[i]; !ok {
			return i
		}
	}
	return 0 // validate refuses a manifest that skews every node
}

// firstSeen maps each height the monitor saw after its first poll to the
// poll that first saw it.
func firstSeen(seen []heightSeen) map[int64]heightSeen {
	out := map[int64]heightSeen{}
	for k := 1; k < len(seen); k++ {
		for h := seen[k-1].Height + 1; h <= seen[k].Height; h++ {
			out[h] = seen[k]
		}
	}
	return out
}

// checkBlockTimes (block-times-sane): block times strictly increase up
// to h, and block k, committed while the monitor watched, has a time
// within bound of the real time it could have: BFT time makes it the
// weighted median of the precommit times for block k-1, so with a
// majority of true clocks it is no later than when the harness first saw
// block k, and no earlier than the last poll at which no node had block
// k-2 (no validator precommits k-1 before it has k-2). A stall between a
// precommit and the commit it completes does not break these bounds; a
// validator whose clock is an hour off would, if it moved block times.
func checkBlockTimes(r *run, times map[int64]time.Time, h int64) {
	bound := r.m.Check.BlockTimeBound.Duration
	seen := firstSeen(r.seen)
	fig := &BlockTimeFigure{}
	for k := int64(2); k <= h; k++ {
		if !times[k].After(times[k-1]) {
			r.rep.violate(InvBlockTimes, fmt.Sprintf("block %d has time %v, not after block %d's %v", k, times[k], k-1, times[k-1]))
		}
		at, ok1 := seen[k]
		grand, ok2 := seen[k-2]
		if !ok1 || !ok2 {
			continue
		}
		ahead, behind := times[k].Sub(at.At), grand.Before.Sub(times[k])
		if fig.Blocks == 0 {
			fig.MaxAhead, fig.MaxBehind = ahead.Seconds(), behind.Seconds()
		}
		fig.Blocks++
		fig.MaxAhead = max(fig.MaxAhead, ahead.Seconds())
		fig.MaxBehind = max(fig.MaxBehind, behind.Seconds())
		if ahead > bound || behind > bound {
			r.rep.violate(InvBlockTimes, fmt.Sprintf("block %d has time %v: the harness first saw it at %v, and no node had block %d at %v (bound %v)",
				k, times[k].UTC(), at.At.UTC(), k-2, grand.Before.UTC(), bound))
		}
	}
	if fig.Blocks == 0 {
		r.rep.violate(InvBlockTimes, "no block committed while the monitor watched: nothing to check")
	}
	r.rep.BlockTimes = fig
}

// checkClockSeen (clock-offset-seen): the precommits of a node whose
// clock is off by offset carry the times CometBFT gives a vote on that
// clock, max(now+offset, block time + 1 ms): ahead, its vote leads the
// honest votes of the same commit by offset (within the bound); behind
// by more than the bound, its vote is exactly block time + 1 ms (the
// clamp), which no honest vote is. Without the fault neither holds, so
// this proves the fault reached CometBFT. Half of its votes in the
// load's commits must show it, and there must be some.
func checkClockSeen(ctx context.Context, r *run, times map[int64]time.Time) error {
	addrs, err := r.validatorAddresses(ctx)
	if err != nil {
		return err
	}
	skewed := r.m.clockFaults()
	figs := map[int]*ClockFigure{}
	leads := map[int][]time.Duration{}
	for i, off := range skewed {
		figs[i] = &ClockFigure{Node: i, Offset: signed(off)}
	}
	skewedAt := map[string]bool{}
	for i := range skewed {
		skewedAt[addrs[i]] = true
	}
	seen := firstSeen(r.seen)
	for h := range seen {
		if _, ok := times[h]; !ok {
			continue
		}
		res, err := r.nw.client(r.honestNode(), nil).RPC().Commit(ctx, &h)
		if err != nil {
			return fmt.Errorf("commit %d: %w", h, err)
		}
		votes := map[string]time.Time{}
		var honest []time.Time
		for _, sig := range res.Commit.Signatures {
			if sig.BlockIDFlag != types.BlockIDFlagCommit {
				continue
			}
			votes[sig.ValidatorAddress.String()] = sig.Timestamp
			if !skewedAt[sig.ValidatorAddress.String()] {
				honest = append(honest, sig.Timestamp)
			}
		}
		for i, off := range skewed {
			vote, ok := votes[addrs[i]]
			if !ok || len(honest) == 0 {
				continue
			}
			fig := figs[i]
			fig.Votes++
			lead := vote.Sub(medianTime(honest))
			leads[i] = append(leads[i], lead)
			bound := r.m.Check.BlockTimeBound.Duration
			switch {
			case off > bound && (lead-off).Abs() <= bound:
				fig.Shifted++
			case off < -bound && vote.Equal(times[h].Add(time.Millisecond)):
				fig.Shifted++
			}
		}
	}
	for i, fig := range figs {
		if len(leads[i]) > 0 {
			slices.Sort(leads[i])
			fig.MedianLead = leads[i][len(leads[i])/2].Seconds()
		}
		r.rep.Clocks = append(r.rep.Clocks, *fig)
		if fig.Votes == 0 || fig.Shifted*2 < fig.Votes {
			r.rep.violate(InvClockSeen, fmt.Sprintf("node%d (clock %s): %d of its %d precommits show the offset", i, fig.Offset, fig.Shifted, fig.Votes))
		}
	}
	slices.SortFunc(r.rep.Clocks, func(a, b ClockFigure) int { return a.Node - b.Node })
	return nil
}

// validatorAddresses asks every node for its validator address.
func (r *run) validatorAddresses(ctx context.Context) (map[int]string, error) {
	out := map[int]string{}
	for i := range r.nw.net.Nodes {
		st, err := r.nw.client(i, nil).RPC().Status(ctx)
		if err != nil {
			return nil, fmt.Errorf("status of node%d: %w", i, err)
		}
		out[i] = st.ValidatorInfo.Address.String()
	}
	return out, nil
}

func medianTime(ts []time.Time) time.Time {
	s := slices.Clone(ts)
	slices.SortFunc(s, func(a, b time.Time) int { return a.Compare(b) })
	return s[len(s)/2]
}

// signed writes a duration with its sign: "+1h0m0s", "-1h0m0s".
func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}
