package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
)

// check resolves the unknown outcomes, reads every node's state and
// checks the manifest's invariants, then stops the nodes and runs
// `relchain verify` on each. Violations go into the report; the error is
// for a check that could not be carried out.
func check(ctx context.Context, r *run, env Env) error {
	resolveUnknowns(ctx, r)
	countOps(r)
	if r.wants(InvExactlyOnce) {
		checkResends(r)
	}
	h, err := commonHeight(ctx, r.nw)
	if err != nil {
		return err
	}
	r.rep.CommonHeight = h
	if err := checkLanes(ctx, r); err != nil {
		return err
	}
	if r.wants(InvAppHash) {
		if err := checkAppHashes(ctx, r, h); err != nil {
			return err
		}
		if err := checkNodeStates(ctx, r); err != nil {
			return err
		}
	}
	for i := range r.nw.net.Nodes {
		st, err := readState(ctx, r, i, h)
		if err != nil {
			return err
		}
		checkWrites(r, i, st)
		if r.wants(InvBank) {
			checkBank(r, i, st)
		}
	}
	if r.wants(InvReads) {
		checkReads(r)
	}
	if err := checkTimes(ctx, r, h); err != nil {
		return err
	}
	checkHalts(r)
	checkProgress(r)
	r.reportCrashes()
	r.nw.stopAll()
	if r.wants(InvVerify) {
		verifyNodes(r, env.Bin)
	}
	if r.wants(InvLogsClean) {
		checkLogs(r)
	}
	return nil
}

func (r *run) wants(inv string) bool { return slices.Contains(r.m.Check.Invariants, inv) }

// resolveUnknowns looks every write of unknown outcome up by its hash on
// each node in turn: committed (ok or failed, with its height) or, if no
// node has it after the mempools drained, absent.
func resolveUnknowns(ctx context.Context, r *run) {
	for _, w := range r.hist.Writes() {
		if w.Phase != PhaseUnknown && w.Phase != PhaseInvoke {
			continue
		}
		phase, node, res := PhaseAbsent, -1, (*client.Result)(nil)
		for i := range r.nw.net.Nodes {
			lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			got, err := r.nw.client(i, nil).Tx(lctx, w.Hash)
			cancel()
			if err == nil {
				phase, node, res = PhaseFail, i, got
				if got.OK() {
					phase = PhaseOK
				}
				break
			}
			if !errors.Is(err, client.ErrTxNotFound) {
				phase = PhaseUnknown // a node that cannot answer cannot say "absent"
			}
		}
		switch {
		case res != nil:
			r.hist.Resolve(w.ID, node, phase, res.Height, res.Code)
		case phase == PhaseAbsent:
			r.hist.Resolve(w.ID, -1, PhaseAbsent, 0, 0)
		default:
			r.rep.violate("resolve", fmt.Sprintf("write %d (tx %s): no node could say whether it committed", w.ID, w.Hash))
		}
	}
}

func countOps(r *run) {
	c := &r.rep.Ops
	for _, w := range r.hist.Writes() {
		c.Invoked++
		switch {
		case w.Resolved && w.Phase == PhaseOK:
			c.Unknown++
			c.ResolvedOK++
		case w.Resolved:
			c.Unknown++
			c.ResolvedAbsent++
		case w.Phase == PhaseOK:
			c.Acked++
		case w.Phase == PhaseFail:
			c.Failed++
		}
	}
	c.Reads = len(r.hist.Reads())
	for _, w := range r.hist.Writes() {
		for _, rs := range w.Resends {
			c.Resent++
			switch {
			case rs.Phase == PhaseOK:
				c.ResentOK++
			case rs.Phase == PhaseFail && isReplayAnswer(rs.Code, rs.Error):
				c.ResentReplay++
			case rs.Phase == PhaseFail:
				c.ResentFailed++
			default:
				c.ResentUnknown++
			}
		}
	}
}

// isReplayAnswer reports whether a node answered a tx with "this key
// already executed this nonce" (code 8), as opposed to a nonce too old
// or too far ahead (code 8 too, but no claim that the tx executed).
func isReplayAnswer(code uint32, text string) bool {
	return code == api.CodeReplayed && strings.Contains(text, "already executed")
}

// replayAnswerStandsForCommitted says a resend answered "already
// executed" (code 8) counts as the committed outcome when the tx is
// committed. Since issue 32 (Build 7) a resend answers the committed
// result itself (the node says code 15, already committed, and the client
// looks the tx up by hash), so a replay answer for a committed tx is a
// false failure: false. A test may set it to reproduce the old leniency.
var replayAnswerStandsForCommitted = false

// checkResends holds every resend of a write's signed bytes to the
// write's committed outcome (once unknowns are resolved):
//   - acknowledged ok: the write committed ok at that very height (else
//     the tx committed twice, or the resend's answer is false);
//   - "already executed" (code 8): a violation (a false failure when the
//     tx is committed, a false claim when it is not), unless
//     replayAnswerStandsForCommitted;
//   - any other failure: a false failure if the write committed ok; a
//     committed failure must come back with its own code;
//   - unknown: nothing was learnt.
//
// That the tx is applied once is checkWrites' part (the log table has no
// key: a second application is a second row).
func checkResends(r *run) {
	for _, w := range r.hist.Writes() {
		committedOK := w.Phase == PhaseOK
		committedFail := w.Phase == PhaseFail && w.Height > 0
		for _, rs := range w.Resends {
			what := fmt.Sprintf("resend (%s) of write %d (tx %s) to node%d", rs.Why, w.ID, w.Hash, rs.Node)
			switch {
			case rs.Phase == PhaseOK && !committedOK:
				r.rep.violate(InvExactlyOnce, fmt.Sprintf("%s was acknowledged at height %d, but the write is %s", what, rs.Height, w.Phase))
			case rs.Phase == PhaseOK && rs.Height != w.Height:
				r.rep.violate(InvExactlyOnce, fmt.Sprintf("%s was acknowledged at height %d, but the write committed at height %d", what, rs.Height, w.Height))
			case rs.Phase == PhaseFail && isReplayAnswer(rs.Code, rs.Error):
				if !committedOK && !committedFail {
					r.rep.violate(InvExactlyOnce, fmt.Sprintf("%s was refused as already executed (code %d), but no node has the tx (%s)", what, rs.Code, w.Phase))
				} else if !replayAnswerStandsForCommitted {
					r.rep.violate(InvExactlyOnce, fmt.Sprintf("%s answered \"already executed\" (code %d) instead of the committed outcome (%s at height %d)", what, rs.Code, w.Phase, w.Height))
				}
			case rs.Phase == PhaseFail && committedOK:
				r.rep.violate(InvExactlyOnce, fmt.Sprintf("%s answered a failure (code %d: %s) for a write committed ok at height %d", what, rs.Code, oneLine(rs.Error, 200), w.Height))
			case rs.Phase == PhaseFail && committedFail && rs.Code != w.Code:
				r.rep.violate(InvExactlyOnce, fmt.Sprintf("%s answered code %d for a write committed failed with code %d", what, rs.Code, w.Code))
			}
		}
	}
}

// commonHeight is a height every node has committed.
func commonHeight(ctx context.Context, nw *network) (int64, error) {
	hs := nw.heights(ctx)
	if minOf(hs) < 1 {
		return 0, fmt.Errorf("a node does not answer after recovery: heights %v", hs)
	}
	return minOf(hs), nil
}

// checkAppHashes compares, height by height up to h, the AppHash in
// every node's block headers (the header at height k+1 carries the
// AppHash after block k), from each node's first stored block on (a node
// that joined by state sync has none before its snapshot).
func checkAppHashes(ctx context.Context, r *run, h int64) error {
	var ref map[int64][]byte
	for i := range r.nw.net.Nodes {
		got, base, err := headerAppHashes(ctx, r.nw.client(i, nil), h)
		if err != nil {
			return fmt.Errorf("headers of node%d: %w", i, err)
		}
		if ref == nil {
			ref = got
			continue
		}
		for k := base; k <= h; k++ {
			if !bytes.Equal(ref[k], got[k]) {
				r.rep.Divergence++
				r.rep.violate(InvAppHash, fmt.Sprintf("height %d: node0 has AppHash %X, node%d %X", k, ref[k], i, got[k]))
			}
		}
	}
	return nil
}

// headerAppHashes reads the AppHash of every header a node stores up to
// h, and the height of its first stored block.
func headerAppHashes(ctx context.Context, c *client.Client, h int64) (map[int64][]byte, int64, error) {
	st, err := c.RPC().Status(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("status: %w", err)
	}
	base := max(1, st.SyncInfo.EarliestBlockHeight)
	out := map[int64][]byte{}
	for lo := base; lo <= h; lo += 20 {
		hi := min(lo+19, h)
		res, err := c.RPC().BlockchainInfo(ctx, lo, hi)
		if err != nil {
			return nil, 0, fmt.Errorf("blockchain %d-%d: %w", lo, hi, err)
		}
		for _, m := range res.BlockMetas {
			out[m.Header.Height] = m.Header.AppHash
		}
	}
	return out, base, nil
}

// nodeState is what one node holds of the workload.
type nodeState struct {
	height   int64
	ids      map[int64]int // log table id → rows
	balances map[int64]int64
	moved    map[int64]int64 // bank: net transfers per account per the log table
}

func readState(ctx context.Context, r *run, i int, h int64) (*nodeState, error) {
	c := r.nw.client(i, nil)
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st := &nodeState{ids: map[int64]int{}, balances: map[int64]int64{}, moved: map[int64]int64{}}
	cols := "id, 0, 0, 0"
	if r.m.Load.Workload == "bank" {
		cols = "id, src, dst, amount"
	}
	res, err := c.Query(qctx, h, "SELECT "+cols+" FROM "+r.wl.logTable())
	if err != nil {
		return nil, fmt.Errorf("read node%d's %s: %w", i, r.wl.logTable(), err)
	}
	st.height = res.Height
	for _, row := range res.Rows {
		v := ints(row)
		st.ids[v[0]]++
		st.moved[v[1]] -= v[3]
		st.moved[v[2]] += v[3]
	}
	if r.m.Load.Workload != "bank" {
		return st, nil
	}
	res, err = c.Query(qctx, st.height, "SELECT id, balance FROM e2e_accounts")
	if err != nil {
		return nil, fmt.Errorf("read node%d's accounts: %w", i, err)
	}
	for _, row := range res.Rows {
		v := ints(row)
		st.balances[v[0]] = v[1]
	}
	return st, nil
}

func ints(row []any) []int64 {
	out := make([]int64, len(row))
	for k, cell := range row {
		out[k], _ = cellInt(cell)
	}
	return out
}

// checkWrites: every acknowledged write (or one resolved as committed
// ok) once on node i, every failed or absent write not at all, and no
// row that no write explains.
func checkWrites(r *run, i int, st *nodeState) {
	known := map[int64]bool{}
	for _, w := range r.hist.Writes() {
		known[w.ID] = true
		n := st.ids[w.ID]
		switch {
		case w.Phase == PhaseOK && n == 0:
			r.rep.Lost++
			r.rep.violate(InvExactlyOnce, fmt.Sprintf("node%d at height %d lacks write %d (tx %s, acknowledged at height %d, resolved=%v)", i, st.height, w.ID, w.Hash, w.Height, w.Resolved))
		case w.Phase == PhaseOK && n > 1:
			r.rep.Duplicated++
			r.rep.violate(InvExactlyOnce, fmt.Sprintf("node%d holds write %d (tx %s) %d times", i, w.ID, w.Hash, n))
		case (w.Phase == PhaseFail || w.Phase == PhaseAbsent) && n > 0 && r.wants(InvFailedAbsent):
			r.rep.violate(InvFailedAbsent, fmt.Sprintf("node%d holds write %d (tx %s) reported %s (code %d)", i, w.ID, w.Hash, w.Phase, w.Code))
		}
	}
	for id, n := range st.ids {
		if !known[id] {
			r.rep.Phantom += n
			r.rep.violate(InvExactlyOnce, fmt.Sprintf("node%d holds %d rows of write %d, which no client made", i, n, id))
		}
	}
}

// checkBank: the total is what the accounts started with, and each
// balance is its start plus what the logged transfers moved.
func checkBank(r *run, i int, st *nodeState) {
	var total int64
	for acct, bal := range st.balances {
		total += bal
		if want := r.m.Load.Balance + st.moved[acct]; bal != want {
			r.rep.violate(InvBank, fmt.Sprintf("node%d: account %d holds %d, its transfers say %d", i, acct, bal, want))
		}
	}
	if want := int64(r.m.Load.Accounts) * r.m.Load.Balance; total != want || len(st.balances) != r.m.Load.Accounts {
		r.rep.violate(InvBank, fmt.Sprintf("node%d: %d accounts hold %d in all, want %d accounts holding %d", i, len(st.balances), total, r.m.Load.Accounts, want))
	}
}

// checkReads reports every read that missed a write acknowledged at or
// below the height it was answered at.
func checkReads(r *run) {
	for _, op := range r.hist.Reads() {
		if len(op.Missing) > 0 {
			r.rep.violate(InvReads, fmt.Sprintf("read on node%d at height %d (t=%.1fs) missed acknowledged writes %v", op.Node, op.Height, op.T, op.Missing))
		}
	}
}

// checkTimes runs block-times-sane and clock-offset-seen on the headers
// of an honest node.
func checkTimes(ctx context.Context, r *run, h int64) error {
	if !r.wants(InvBlockTimes) && !r.wants(InvClockSeen) {
		return nil
	}
	times, err := blockTimes(ctx, r, r.honestNode(), h)
	if err != nil {
		return err
	}
	if r.wants(InvBlockTimes) {
		checkBlockTimes(r, times, h)
	}
	if r.wants(InvClockSeen) {
		return checkClockSeen(ctx, r, times)
	}
	return nil
}

// checkHalts: a fault the manifest says halts the chain let at most the
// block already in flight commit; more means the fault did not cut what
// it should have. A fault on one node's data (tamper, disk-full) is the
// opposite: the honest rest must have committed more than that block.
//
// A height below 1 (no node answered) decides nothing: it is a violation
// of its own, never a pass.
func checkHalts(r *run) {
	for _, h := range append(slices.Clone(r.rep.GoOns), r.rep.Halts...) {
		if h.Before < 1 || h.After < 1 {
			r.rep.violate("fault-effect", fmt.Sprintf("%s: no node answered its height (height %d at the fault, %d at its undo): the effect cannot be judged", h.What, h.Before, h.After))
		}
	}
	for _, h := range r.rep.GoOns {
		if h.Before < 1 || h.After < 1 {
			continue
		}
		if h.After <= h.Before+1 {
			r.rep.violate("fault-effect", fmt.Sprintf("during %s the other nodes should have gone on, but the chain went only from height %d to %d", h.What, h.Before, h.After))
		}
	}
	for _, h := range r.rep.Halts {
		if h.Before >= 1 && h.After > h.Before+1 {
			r.rep.violate("fault-effect", fmt.Sprintf("%s should halt the chain, but it went from height %d to %d", h.What, h.Before, h.After))
		}
	}
}

// reportCrashes fails the run for every node that exited without the
// schedule stopping it, quoting its log's tail.
func (r *run) reportCrashes() {
	for _, c := range r.nw.takeCrashes() {
		r.rep.violate("node-exit", c)
	}
}

// checkProgress: the run acknowledged at least the manifest's min_acked
// writes (acknowledged to the client, or unknown and found committed ok):
// a run that did almost nothing proves almost nothing.
func checkProgress(r *run) {
	got := r.rep.Ops.Acked + r.rep.Ops.ResolvedOK
	if want := r.m.Load.MinAcked; got < want {
		r.rep.violate("progress", fmt.Sprintf("%d writes acknowledged or found committed (%d acknowledged, %d unknown then found ok, of %d invoked): the manifest wants at least %d",
			got, r.rep.Ops.Acked, r.rep.Ops.ResolvedOK, r.rep.Ops.Invoked, want))
	}
}

// verifyNodes runs `relchain verify` on each stopped node's home, and
// (apphash-equal) compares the AppHashes the nodes' databases reproduce.
func verifyNodes(r *run, bin string) {
	got := map[int]verifyResult{}
	for i, n := range r.nw.net.Nodes {
		out, err := exec.Command(bin, "verify", "--home", n.Home, "--output", "json").Output()
		v, perr := parseVerify(out)
		var line string
		switch {
		case err != nil || perr != nil || !v.OK:
			detail := string(bytes.TrimSpace(out))
			if ee, ok := err.(*exec.ExitError); ok {
				detail += " " + string(bytes.TrimSpace(ee.Stderr))
			}
			r.rep.violate(InvVerify, fmt.Sprintf("node%d: %v %v: %s", i, err, perr, oneLine(detail, 600)))
			line = "FAIL: " + firstLine(detail)
		default:
			got[i] = v
			line = fmt.Sprintf("OK: height %d, app hash %s", v.Height, v.AppHash)
		}
		r.rep.Verify = append(r.rep.Verify, fmt.Sprintf("node%d: %s", i, line))
	}
	if r.wants(InvAppHash) {
		compareVerified(r, got)
	}
}

func firstLine(s string) string {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[:k]
	}
	return s
}
