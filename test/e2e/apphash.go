package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// Per-node state against the chain. The headers' AppHashes are signed by
// consensus: every node's block store holds the same ones by
// construction, so comparing them proves little. What can differ is each
// node's own state: the (height, AppHash) its application recorded in its
// database at its last commit (ABCI Info), and what `relchain verify`
// recomputes from every row. apphash-equal compares the first with the
// chain's header at the next height, and the second across nodes.

// nodeAppHash is what one node's application says it committed.
type nodeAppHash struct {
	Node    int
	Height  int64
	AppHash []byte
}

// checkNodeStates reads every node's own (height, AppHash) while the
// network is settled, commits one marker write so that the chain has a
// header above that height, and compares each node's AppHash with the
// header at its height + 1.
func checkNodeStates(ctx context.Context, r *run) error {
	var own []nodeAppHash
	for i := range r.nw.net.Nodes {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		info, err := r.nw.client(i, nil).RPC().ABCIInfo(qctx)
		cancel()
		if err != nil {
			return fmt.Errorf("ABCI info of node%d: %w", i, err)
		}
		own = append(own, nodeAppHash{Node: i, Height: info.Response.LastBlockHeight, AppHash: info.Response.LastBlockAppHash})
	}
	top, err := commitMark(ctx, r)
	if err != nil {
		return err
	}
	c := r.nw.client(0, nil)
	compareNodeAppHashes(r, own, func(h int64) ([]byte, error) {
		if h > top {
			return nil, fmt.Errorf("height %d is above the marker's %d", h, top)
		}
		res, err := c.RPC().BlockchainInfo(ctx, h, h)
		if err != nil {
			return nil, fmt.Errorf("header %d: %w", h, err)
		}
		if len(res.BlockMetas) != 1 {
			return nil, fmt.Errorf("header %d: node0 answered %d headers", h, len(res.BlockMetas))
		}
		return res.BlockMetas[0].Header.AppHash, nil
	})
	return nil
}

// commitMark commits one write to e2e_marks and waits until every node
// has it; it returns its height.
func commitMark(ctx context.Context, r *run) (int64, error) {
	_, key, _ := ed25519.GenerateKey(nil)
	mctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := r.nw.client(0, key).Exec(mctx, client.ModeCommit, txn.Statement{SQL: keyedInsert("e2e_marks", "n", "1", r.nw.m.mixed())})
	if err != nil {
		return 0, fmt.Errorf("marker write: %w", err)
	}
	if !res.OK() {
		return 0, fmt.Errorf("marker write: %w", res.Err())
	}
	for i := range r.nw.net.Nodes {
		if err := r.nw.net.WaitHeight(mctx, i, res.Height); err != nil {
			return 0, err
		}
	}
	return res.Height, nil
}

// compareNodeAppHashes: each node's own AppHash at its height must be the
// chain's, which header(height + 1) carries.
func compareNodeAppHashes(r *run, own []nodeAppHash, header func(h int64) ([]byte, error)) {
	for _, n := range own {
		if n.Height < 1 {
			r.rep.violate(InvAppHash, fmt.Sprintf("node%d's application reports height %d: it has committed nothing", n.Node, n.Height))
			continue
		}
		chain, err := header(n.Height + 1)
		if err != nil {
			r.rep.violate(InvAppHash, fmt.Sprintf("node%d: no header at height %d to compare its own AppHash with: %v", n.Node, n.Height+1, err))
			continue
		}
		if !bytes.Equal(chain, n.AppHash) {
			r.rep.Divergence++
			r.rep.violate(InvAppHash, fmt.Sprintf("node%d's database recorded AppHash %X at height %d; the chain's header %d says %X", n.Node, n.AppHash, n.Height, n.Height+1, chain))
		}
	}
}

// verifyResult is `relchain verify --output json`'s answer.
type verifyResult struct {
	OK      bool   `json:"ok"`
	Height  int64  `json:"height"`
	AppHash string `json:"app_hash"`
}

// compareVerified: every node's verify recomputed the same AppHash at the
// same height (the nodes stopped at one height after the marker).
func compareVerified(r *run, got map[int]verifyResult) {
	ref := -1
	for i := range len(r.nw.net.Nodes) {
		v, ok := got[i]
		if !ok {
			continue
		}
		if ref < 0 {
			ref = i
			continue
		}
		if w := got[ref]; v.Height == w.Height && v.AppHash != w.AppHash {
			r.rep.Divergence++
			r.rep.violate(InvAppHash, fmt.Sprintf("at height %d node%d's database reproduces AppHash %s, node%d's %s", v.Height, ref, w.AppHash, i, v.AppHash))
		}
	}
}

func parseVerify(out []byte) (verifyResult, error) {
	var v verifyResult
	k := bytes.IndexByte(out, '{')
	if k < 0 {
		return v, fmt.Errorf("no JSON in %q", oneLine(string(out), 200))
	}
	if err := json.Unmarshal(out[k:], &v); err != nil {
		return v, fmt.Errorf("verify output: %w", err)
	}
	return v, nil
}
