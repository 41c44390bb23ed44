package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/consensus"
	cstypes "github.com/cometbft/cometbft/consensus/types"
	"github.com/cometbft/cometbft/p2p"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	rpccore "github.com/cometbft/cometbft/rpc/core"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	"github.com/cometbft/cometbft/types"
)

// DivergenceError reports that this node's state differs from the
// network's: the AppHash it computed for block Height is not the one the
// validators signed in the header of block Height+1. Node.Halted delivers
// it; the node's consensus has stopped (or can never get past Height).
type DivergenceError struct {
	// Height is the last block this node applied; its AppHash is Local.
	Height int64
	// Expected is the AppHash of block Height+1's header (the network's).
	Expected []byte
	// Local is this node's AppHash after Height.
	Local []byte
	// Source says how the network's header was obtained: "consensus" (the
	// block +2/3 of the validators precommitted or prevoted for) or "peer
	// URL", whose signed header was verified against this node's
	// validator set.
	Source string
	// SameResults: every tx of block Height had the network's result code
	// and data, so the database differed before the block.
	SameResults bool
	// FirstTx is the first tx of block Height whose result differs from
	// the network's, when known.
	FirstTx *TxDiff
	// Unknown says why neither SameResults nor FirstTx could be
	// established.
	Unknown string
	// Home is the node home (for the commands the report suggests).
	Home string
}

// ErrConsensusStopped is delivered on Node.Halted (wrapped) when the
// node's consensus stopped for a reason other than a divergence.
var ErrConsensusStopped = errors.New("consensus stopped")

// TxDiff is a tx whose result on this node differs from the network's.
type TxDiff struct {
	Index   int    // in block Height
	Hash    []byte // the tx hash (SHA-256 of the tx); nil if unknown
	Network TxOutcome
	Local   TxOutcome
}

// TxOutcome is the deterministic part of a tx result: what CometBFT's
// LastResultsHash commits to.
type TxOutcome struct {
	Code uint32
	Data []byte
}

// Error is one line: the height, both AppHashes, and what is known about
// the first differing tx.
func (e *DivergenceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "AppHash mismatch at height %d: expected %X (network), local %X", e.Height, e.Expected, e.Local)
	home := ""
	if e.Home != "" {
		home = " --home " + e.Home
	}
	switch {
	case e.FirstTx != nil:
		t := e.FirstTx
		fmt.Fprintf(&b, "; first differing tx: #%d", t.Index)
		if t.Hash != nil {
			fmt.Fprintf(&b, " (hash %X)", t.Hash)
		}
		fmt.Fprintf(&b, ": network code %d data %s, local code %d data %s", t.Network.Code, showData(t.Network.Data), t.Local.Code, showData(t.Local.Data))
		fmt.Fprintf(&b, "; the database differed from the network's before that tx (`relchain verify%s` checks it) or executed it differently; `relchain recover%s` restores a checkpoint", home, home)
	case e.SameResults:
		fmt.Fprintf(&b, "; every tx of block %d had the network's results, so this database differed before the block (changed outside the chain): `relchain verify%s` checks it, `relchain recover%s` restores a checkpoint", e.Height, home, home)
	default:
		unknown := e.Unknown
		if unknown == "" {
			unknown = "not established"
		}
		fmt.Fprintf(&b, "; first differing tx: unknown (%s); `relchain verify%s` checks the database, `relchain recover%s` restores a checkpoint", unknown, home, home)
	}
	return b.String()
}

// showData renders a result's data for the report: quoted text (results
// are JSON) or hex, cut after maxShown bytes (text at a character's start).
func showData(d []byte) string {
	const maxShown = 160
	s := d
	if len(s) > maxShown {
		cut := maxShown
		if utf8.Valid(d) {
			for cut > 0 && !utf8.RuneStart(d[cut]) {
				cut--
			}
		}
		s = s[:cut]
	}
	var out string
	if utf8.Valid(s) {
		out = strconv.Quote(string(s))
	} else {
		out = fmt.Sprintf("0x%X", s)
	}
	if len(s) < len(d) {
		out += fmt.Sprintf("...(%d bytes)", len(d))
	}
	return out
}

// firstDifference compares this node's results of a block with the
// network's and returns the first tx whose code or data differs (nil if
// none does).
func firstDifference(txs types.Txs, local, network []*abci.ExecTxResult) *TxDiff {
	outcome := func(rs []*abci.ExecTxResult, i int) (TxOutcome, bool) {
		if i >= len(rs) || rs[i] == nil {
			return TxOutcome{}, false
		}
		return TxOutcome{Code: rs[i].Code, Data: rs[i].Data}, true
	}
	for i := 0; i < max(len(local), len(network)); i++ {
		l, lok := outcome(local, i)
		nw, nok := outcome(network, i)
		if lok == nok && l.Code == nw.Code && bytes.Equal(l.Data, nw.Data) {
			continue
		}
		d := &TxDiff{Index: i, Local: l, Network: nw}
		if i < len(txs) {
			d.Hash = txs[i].Hash()
		}
		return d
	}
	return nil
}

// How the node watches for a divergence. None of it can change a block's
// outcome: it only decides when this node stops.
const (
	// stallAfter is how long the app's height must stand still before the
	// node asks its peers for the next block's signed header.
	stallAfter = 10 * time.Second
	// peerRecheck spaces those questions while the height stands still.
	peerRecheck = 5 * time.Second
	// consensusGrace is how long, after consensus stopped without a
	// divergence in sight, the node keeps asking its peers before it
	// reports that consensus stopped.
	consensusGrace = 20 * time.Second
	// peerTimeout bounds one RPC call to a peer.
	peerTimeout = 5 * time.Second
)

// divergenceWatcher detects, without reading logs, that this node's state
// differs from the network's:
//   - consensus: CometBFT's consensus panics when +2/3 of the validators
//     commit a block whose header carries another AppHash than this node's
//     ("+2/3 committed an invalid block") and stops; the block is still
//     its proposal block, with the precommits that certify it;
//   - peers: a node that is behind (block sync bans the peers that serve
//     the block it refuses, and retries forever) or whose consensus stopped
//     sees its app's height stand still; it then fetches the signed header
//     of the next height from a peer's RPC and verifies its commit against
//     its own validator set before trusting its AppHash.
type divergenceWatcher struct {
	n       *Node
	env     *rpccore.Environment
	chainID string
	peers   *peerClients
	// rpc remembers the RPC address of every peer seen, by node ID: block
	// sync disconnects the peers whose blocks it refuses.
	rpc map[p2p.ID]string
}

// watchDivergence runs until ctx ends or a reason to stop is delivered.
func (n *Node) watchDivergence(ctx context.Context) {
	env, err := n.cmt.ConfigureRPC()
	if err != nil {
		n.logger.Error("relchain: cannot watch for a divergence from the network", "err", err)
		return
	}
	w := &divergenceWatcher{n: n, env: env, chainID: n.cmt.GenesisDoc().ChainID,
		peers: newPeerClients(), rpc: make(map[p2p.ID]string)}
	w.run(ctx)
}

func (w *divergenceWatcher) run(ctx context.Context) {
	cs, _ := w.env.ConsensusState.(*consensus.State)
	consensusDone := make(chan struct{})
	if cs != nil {
		// Wait returns when consensus's receive routine ends: a panic, or
		// the node stopping. (If consensus never started — the node stops
		// during block sync — this goroutine stays blocked.)
		go func() { cs.Wait(); close(consensusDone) }()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last := w.n.app.Executor().State()
	since := time.Now()
	var asked, consensusEnded time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-consensusDone:
			consensusDone = nil
			select {
			case <-w.n.stopping:
				return
			default:
			}
			consensusEnded = time.Now()
			w.n.consensusEnded.Store(true)
			if w.n.app.HaltReason() != nil {
				// The app ended consensus itself: a block it could not
				// apply or commit (its database's disk is full, say).
				// Start's watcher delivers that reason; no peer can tell
				// more.
				return
			}
			if err := w.n.diskFullInConsensus(); err != nil {
				w.n.halt(err) // a cause of its own: no peer can tell more
				return
			}
			if err := w.n.clockBehindInConsensus(); err != nil {
				w.n.halt(err)
				return
			}
			w.learnPeers()
			if d := w.fromConsensus(ctx, cs.GetRoundState()); d != nil {
				w.deliver(d)
				return
			}
			w.n.logger.Error("relchain: consensus stopped; asking the peers whether this node's state diverged")
		case <-tick.C:
		}
		w.learnPeers()
		st := w.n.app.Executor().State()
		if st.Height != last.Height || !bytes.Equal(st.AppHash, last.AppHash) {
			last, since = st, time.Now()
		}
		// Once consensus has stopped the height cannot move: ask every
		// tick until a peer has the next block.
		dead := !consensusEnded.IsZero()
		if dead || (time.Since(since) >= stallAfter && time.Since(asked) >= peerRecheck) {
			asked = time.Now()
			if d := w.fromPeers(ctx, st.Height, st.AppHash); d != nil {
				w.deliver(d)
				return
			}
		}
		if !consensusEnded.IsZero() && time.Since(consensusEnded) >= consensusGrace {
			w.n.halt(fmt.Errorf("%w at height %d (see CONSENSUS FAILURE above) and no peer shows a divergence: this node cannot go on; start it again, and report the log if it recurs", ErrConsensusStopped, st.Height+1))
			return
		}
	}
}

func (w *divergenceWatcher) deliver(d *DivergenceError) {
	w.n.logger.Error("relchain: "+d.Error(), "height", d.Height, "expected", fmt.Sprintf("%X", d.Expected), "local", fmt.Sprintf("%X", d.Local), "source", d.Source)
	w.n.halt(d)
}

// fromConsensus examines the round state consensus ended with: if its
// proposal block is the next height, +2/3 of the validators precommitted
// it (the panic in finalizeCommit) or prevoted for it (the one in
// enterPrecommit), and its header's AppHash is not this node's, that is a
// divergence. The votes were verified as consensus received them; +2/3
// prevotes include more than 1/3 of honest voting power, which checked that
// AppHash against its own state.
func (w *divergenceWatcher) fromConsensus(ctx context.Context, rs *cstypes.RoundState) *DivergenceError {
	st := w.n.app.Executor().State()
	b := rs.ProposalBlock
	if b == nil || b.Height != st.Height+1 || bytes.Equal(b.AppHash, st.AppHash) || rs.Votes == nil {
		return nil
	}
	certified := false
	if id, ok := rs.Votes.Precommits(rs.CommitRound).TwoThirdsMajority(); ok && b.HashesTo(id.Hash) {
		certified = true
	} else if round, id := rs.Votes.POLInfo(); round >= 0 && b.HashesTo(id.Hash) {
		certified = true
	}
	if !certified {
		return nil
	}
	return w.report(ctx, st.Height, st.AppHash, &b.Header, "consensus")
}

// learnPeers records the RPC address of every connected peer.
func (w *divergenceWatcher) learnPeers() {
	for _, p := range w.n.cmt.Switch().Peers().List() {
		if addr := peerRPC(p); addr != "" {
			w.rpc[p.ID()] = addr
		}
	}
}

// peerRPC is the address of a peer's RPC server, from its node info. A
// peer listening on every interface is reached at its address.
func peerRPC(p p2p.Peer) string {
	ni, ok := p.NodeInfo().(p2p.DefaultNodeInfo)
	if !ok || ni.Other.RPCAddress == "" {
		return ""
	}
	u, err := url.Parse(ni.Other.RPCAddress)
	if err != nil || (u.Scheme != "tcp" && u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if p.RemoteIP() == nil {
			return ""
		}
		host = p.RemoteIP().String()
	}
	scheme := "http"
	if u.Scheme == "https" {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// candidates lists the RPC addresses worth asking for height h+1: the
// connected peers whose consensus is past it, or, when no peer is
// connected (block sync dropped them), every peer seen.
func (w *divergenceWatcher) candidates(h int64) []string {
	var out []string
	peers := w.n.cmt.Switch().Peers().List()
	for _, p := range peers {
		addr := w.rpc[p.ID()]
		if addr == "" {
			continue
		}
		ps, ok := p.Get(types.PeerStateKey).(*consensus.PeerState)
		if !ok || ps.GetHeight() >= h+2 {
			out = append(out, addr)
		}
	}
	if len(peers) == 0 {
		for _, addr := range w.rpc {
			out = append(out, addr)
		}
		sort.Strings(out)
	}
	return out
}

// fromPeers asks the peers for the signed header of height h+1; the first
// one whose commit verifies against this node's validator set decides.
func (w *divergenceWatcher) fromPeers(ctx context.Context, h int64, appHash []byte) *DivergenceError {
	addrs := w.candidates(h)
	if len(addrs) == 0 {
		return nil
	}
	vals, err := w.env.StateStore.LoadValidators(h + 1)
	if err != nil {
		w.n.logger.Debug("relchain: no validator set to verify the next header with", "height", h+1, "err", err)
		return nil
	}
	for _, addr := range addrs {
		sh, err := w.signedHeader(ctx, addr, h+1, vals)
		if err != nil {
			w.n.logger.Debug("relchain: no verified header from peer", "peer", addr, "height", h+1, "err", err)
			continue
		}
		if bytes.Equal(sh.AppHash, appHash) {
			return nil // the network agrees; this node is only behind
		}
		return w.report(ctx, h, appHash, sh.Header, "peer "+addr)
	}
	return nil
}

// signedHeader fetches the header and commit of height from a peer and
// verifies them: +2/3 of vals (this node's validator set for height)
// signed that header.
func (w *divergenceWatcher) signedHeader(ctx context.Context, addr string, height int64, vals *types.ValidatorSet) (*types.SignedHeader, error) {
	var res *ctypes.ResultCommit
	err := w.peers.call(ctx, addr, func(ctx context.Context, c *rpchttp.HTTP) (err error) {
		res, err = c.Commit(ctx, &height)
		return err
	})
	if err != nil {
		return nil, err
	}
	sh := res.SignedHeader
	if sh.Header == nil || sh.Commit == nil {
		return nil, errors.New("no signed header")
	}
	if sh.Height != height {
		return nil, fmt.Errorf("got height %d", sh.Height)
	}
	if err := sh.ValidateBasic(w.chainID); err != nil {
		return nil, err
	}
	if err := vals.VerifyCommitLight(w.chainID, sh.Commit.BlockID, height, sh.Commit); err != nil {
		return nil, err
	}
	return &sh, nil
}

// report builds the divergence report of block h: this node's results of
// h against the results hash in the network's next header, and, if they
// differ, the first tx whose result differs (the network's results come
// from a peer, checked against that hash).
func (w *divergenceWatcher) report(ctx context.Context, h int64, local []byte, next *types.Header, source string) *DivergenceError {
	d := &DivergenceError{Height: h, Expected: next.AppHash, Local: local, Source: source, Home: w.n.home}
	own, err := w.env.StateStore.LoadFinalizeBlockResponse(h)
	if err != nil {
		if own, err = w.env.StateStore.LoadLastFinalizeBlockResponse(h); err != nil {
			d.Unknown = fmt.Sprintf("this node's results of block %d are not stored: %v", h, err)
			return d
		}
	}
	if bytes.Equal(types.NewResults(own.TxResults).Hash(), next.LastResultsHash) {
		d.SameResults = true
		return d
	}
	network, err := w.networkResults(ctx, h, next.LastResultsHash)
	if err != nil {
		d.Unknown = err.Error()
		return d
	}
	var txs types.Txs
	if b := w.n.cmt.BlockStore().LoadBlock(h); b != nil {
		txs = b.Txs
	}
	if d.FirstTx = firstDifference(txs, own.TxResults, network); d.FirstTx == nil {
		d.Unknown = fmt.Sprintf("block %d's results hash differs but no tx differs in code or data", h)
	}
	return d
}

// networkResults fetches block h's tx results from a peer whose results
// hash to want (the LastResultsHash the validators signed).
func (w *divergenceWatcher) networkResults(ctx context.Context, h int64, want []byte) ([]*abci.ExecTxResult, error) {
	addrs := make([]string, 0, len(w.rpc))
	for _, addr := range w.rpc {
		addrs = append(addrs, addr)
	}
	sort.Strings(addrs)
	for _, addr := range addrs {
		var res *ctypes.ResultBlockResults
		err := w.peers.call(ctx, addr, func(ctx context.Context, c *rpchttp.HTTP) (err error) {
			res, err = c.BlockResults(ctx, &h)
			return err
		})
		if err != nil || !bytes.Equal(types.NewResults(res.TxsResults).Hash(), want) {
			continue
		}
		return res.TxsResults, nil
	}
	return nil, fmt.Errorf("no peer served block %d's results matching the network's results hash %X", h, want)
}
