package app_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

func cancelTx(c *fixedChain, v, h int64) []byte {
	return c.tx(c.admin, stmt(protocol.CancelUpgradeStatement, txn.Int(v), txn.Int(h)))
}

// cancelPrefix are blocks 1..upgradeH-2 of a chain that schedules version
// 2 at upgradeH in block 2: the blocks before the last that may cancel it.
func cancelPrefix(c *fixedChain) [][][]byte {
	blocks := [][][]byte{
		{c.tx(c.admin, stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"))},
		{upgradeTx(c, 2, upgradeH)},
	}
	for len(blocks) < upgradeH-2 {
		blocks = append(blocks, nil)
	}
	return blocks
}

// runBlocks executes blocks on n, each tx of which must succeed and none
// of which may announce a consensus parameter change.
func runBlocks(t *testing.T, n *upNode, blocks [][][]byte) {
	t.Helper()
	for _, txs := range blocks {
		res := n.mustBlock(txs...)
		for i, r := range res.TxResults {
			if r.Code != api.CodeOK {
				t.Fatalf("block %d tx %d: %d %s", n.a.Executor().State().Height, i, r.Code, r.Log)
			}
		}
		if res.ConsensusParamUpdates != nil {
			t.Fatalf("block %d announces %v", n.a.Executor().State().Height, res.ConsensusParamUpdates)
		}
	}
}

// checkTx is CheckTx's code and log for tx.
func checkTx(t *testing.T, n *upNode, tx []byte) (uint32, string) {
	t.Helper()
	res, err := n.a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: tx, Type: abci.CheckTxType_New})
	if err != nil {
		t.Fatal(err)
	}
	return res.Code, res.Log
}

// wantCode fails unless r has code and its log names reason.
func wantCode(t *testing.T, what string, r *abci.ExecTxResult, code uint32, reason string) {
	t.Helper()
	if r.Code != code || !strings.Contains(r.Log, reason) {
		t.Fatalf("%s: code %d %q, want %d with %q", what, r.Code, r.Log, code, reason)
	}
}

// wantProtocol fails unless n's committed protocol state has version v
// (and v next) and the scheduled upgrade pending.
func wantProtocol(t *testing.T, n *upNode, v uint64, pending *app.Upgrade) {
	t.Helper()
	ps := n.a.Executor().Protocol()
	samePending := (ps.Pending == nil) == (pending == nil) && (pending == nil || *ps.Pending == *pending)
	if ps.Version != v || ps.Next != v || !samePending {
		t.Fatalf("protocol state at height %d: %+v, want version %d, pending %v", ps.Height, ps, v, pending)
	}
	if info, _ := n.a.Info(context.Background(), &abci.RequestInfo{}); info.AppVersion != v {
		t.Fatalf("Info's app version %d, want %d", info.AppVersion, v)
	}
}

// The last block that may cancel an upgrade at H is H-1, the block that
// would announce it: cancelled there, nothing is announced, block H and
// the blocks after it run the old version (the headers keep app version
// 1), also after a restart, and the cancel replays to the same AppHashes.
// One block later, at H, the cancel is refused as too late (CheckTx and
// the block alike) and the upgrade takes effect.
func TestCancelUpgradeBoundary(t *testing.T) {
	c := newFixedChain()
	n := newUpNode(t, c)
	prefix := cancelPrefix(c)
	runBlocks(t, n, prefix)
	cancel := cancelTx(c, 2, upgradeH)
	if code, log := checkTx(t, n, cancel); code != api.CodeOK {
		t.Fatalf("CheckTx of the cancel before block %d: %d %s", upgradeH-1, code, log)
	}
	res := n.mustBlock(cancel) // block upgradeH-1
	wantCode(t, "cancel in the block before the upgrade height", res.TxResults[0], api.CodeOK, "")
	if res.ConsensusParamUpdates != nil {
		t.Fatalf("block %d cancels the upgrade yet announces %v", upgradeH-1, res.ConsensusParamUpdates)
	}
	wantProtocol(t, n, protocol.V1, nil)
	if err := n.open(); err != nil { // the cancel is in the database
		t.Fatal(err)
	}
	wantProtocol(t, n, protocol.V1, nil)
	hashes := [][]byte{res.AppHash}
	for _, txs := range [][][]byte{{c.tx(c.admin, stmt("INSERT INTO acct (id, bal) VALUES (1, 1)"))}, nil} {
		runBlocks(t, n, [][][]byte{txs}) // block upgradeH and after: no announcement
		hashes = append(hashes, n.a.Executor().State().AppHash)
	}
	wantProtocol(t, n, protocol.V1, nil)
	if _, err := app.VerifyState(context.Background(), n.be); err != nil {
		t.Fatalf("verify the database after the cancel: %v", err)
	}

	// A replay from genesis reproduces the chain, cancel included.
	r := newUpNode(t, c.fresh())
	rc := r.c
	runBlocks(t, r, cancelPrefix(rc))
	got := [][]byte{r.mustBlock(cancelTx(rc, 2, upgradeH)).AppHash}
	runBlocks(t, r, [][][]byte{{rc.tx(rc.admin, stmt("INSERT INTO acct (id, bal) VALUES (1, 1)"))}})
	got = append(got, r.a.Executor().State().AppHash)
	runBlocks(t, r, [][][]byte{nil})
	got = append(got, r.a.Executor().State().AppHash)
	for i := range hashes {
		if !bytes.Equal(got[i], hashes[i]) {
			t.Fatalf("replayed block %d: AppHash %X, the chain has %X", upgradeH-1+i, got[i], hashes[i])
		}
	}

	// One block later: too late.
	l := newUpNode(t, newFixedChain())
	lc := l.c
	runBlocks(t, l, cancelPrefix(lc))
	if v := l.mustBlock().ConsensusParamUpdates.GetVersion().GetApp(); v != protocol.V2 { // block upgradeH-1
		t.Fatalf("block %d announces app version %d, want 2", upgradeH-1, v)
	}
	late := cancelTx(lc, 2, upgradeH)
	tooLate := "too late to cancel the upgrade to version 2 at height 10: block 9 is the last that may cancel it"
	if code, log := checkTx(t, l, late); code != api.CodeForbidden || !strings.Contains(log, tooLate) {
		t.Fatalf("CheckTx of a cancel after block %d: %d %q, want %d with %q", upgradeH-1, code, log, api.CodeForbidden, tooLate)
	}
	res = l.mustBlock(late) // block upgradeH
	wantCode(t, "cancel at the upgrade height", res.TxResults[0], api.CodeForbidden, tooLate)
	if ps := l.a.Executor().Protocol(); ps.Version != protocol.V2 || ps.Since != upgradeH || ps.Pending != nil {
		t.Fatalf("protocol state after a late cancel: %+v", ps)
	}
}

// A cancel is refused, and changes nothing, when no upgrade is scheduled,
// when it names another upgrade than the scheduled one (the refusal names
// the scheduled one), when it is malformed, when the sender is not an
// admin, and when its wl-transaction fails.
func TestCancelUpgradeRefusals(t *testing.T) {
	c := newFixedChain()
	n := newUpNode(t, c)
	runBlocks(t, n, [][][]byte{{c.tx(c.admin, stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"))}})
	none := cancelTx(c, 2, 30)
	if code, log := checkTx(t, n, none); code != api.CodeForbidden || !strings.Contains(log, "no protocol upgrade is scheduled") {
		t.Fatalf("CheckTx of a cancel with nothing scheduled: %d %q", code, log)
	}
	res := n.mustBlock(none, upgradeTx(c, 2, 30))
	wantCode(t, "cancel with nothing scheduled", res.TxResults[0], api.CodeForbidden, "no protocol upgrade is scheduled: nothing to cancel")
	want := &app.Upgrade{Version: 2, Height: 30}
	wantProtocol(t, n, protocol.V1, want)

	mismatch := "the scheduled upgrade is version 2 at height 30, not version 2 at height 31"
	if code, log := checkTx(t, n, cancelTx(c, 2, 31)); code != api.CodeForbidden || !strings.Contains(log, mismatch) {
		t.Fatalf("CheckTx of a cancel of another upgrade: %d %q", code, log)
	}
	res = n.mustBlock(
		cancelTx(c, 2, 31), // another height
		cancelTx(c, 3, 30), // another version
		cancelTx(c, 2, 0),  // malformed
		c.tx(c.admin, stmt(protocol.CancelUpgradeStatement, txn.Int(2))),             // one argument
		c.tx(c.user, stmt(protocol.CancelUpgradeStatement, txn.Int(2), txn.Int(30))), // not an admin
		// The cancel is undone with its failed wl-transaction.
		c.tx(c.admin, stmt(protocol.CancelUpgradeStatement, txn.Int(2), txn.Int(30)), stmt("INSERT INTO nosuch (id) VALUES (1)")),
	)
	wantCode(t, "cancel of another height", res.TxResults[0], api.CodeForbidden, mismatch)
	wantCode(t, "cancel of another version", res.TxResults[1], api.CodeForbidden, "not version 3 at height 30")
	wantCode(t, "malformed cancel", res.TxResults[2], api.CodeSyntax, "must be positive")
	wantCode(t, "cancel with one argument", res.TxResults[3], api.CodeSyntax, "the version (int) and the height (int) of the scheduled upgrade to cancel")
	wantCode(t, "cancel by a user", res.TxResults[4], api.CodeUnauthorized, "only an admin key may schedule or cancel a protocol upgrade")
	if r := res.TxResults[5]; r.Code == api.CodeOK {
		t.Fatalf("cancel with a failing statement: %v", r)
	}
	wantProtocol(t, n, protocol.V1, want)
}

// Within a block, and within one wl-transaction, each upgrade statement
// sees what the earlier ones left: a cancel of an upgrade scheduled just
// before succeeds, an upgrade scheduled after a cancel is the new one,
// and a block whose txs schedule and cancel leaves nothing recorded.
func TestCancelUpgradeWithinBlock(t *testing.T) {
	c := newFixedChain()
	n := newUpNode(t, c)
	before := n.mustBlock().AppHash
	res := n.mustBlock(upgradeTx(c, 2, 30), cancelTx(c, 2, 30),
		c.tx(c.admin, stmt(protocol.UpgradeStatement, txn.Int(3), txn.Int(40)), stmt(protocol.CancelUpgradeStatement, txn.Int(3), txn.Int(40))))
	for _, r := range res.TxResults {
		wantCode(t, "schedule and cancel", r, api.CodeOK, "")
	}
	wantProtocol(t, n, protocol.V1, nil)
	if bytes.Equal(res.AppHash, before) {
		t.Fatal("a block of successful txs left the AppHash unchanged")
	}
	res = n.mustBlock(upgradeTx(c, 2, 30), cancelTx(c, 2, 30), upgradeTx(c, 2, 35))
	for _, r := range res.TxResults {
		wantCode(t, "schedule, cancel, schedule", r, api.CodeOK, "")
	}
	wantProtocol(t, n, protocol.V1, &app.Upgrade{Version: 2, Height: 35})
	if err := n.open(); err != nil {
		t.Fatal(err)
	}
	wantProtocol(t, n, protocol.V1, &app.Upgrade{Version: 2, Height: 35})
}

// Under block_atomic, a block that aborts drops its cancel with its other
// writes: when that block is H-1, the upgrade stays scheduled, block H-1
// announces it and block H runs it, as if no cancel had been sent.
func TestCancelUpgradeDroppedByBlockAtomicAbort(t *testing.T) {
	c := newFixedChain()
	n := newUpNodeWith(t, c, func(p *app.Params) { p.BlockAtomic = true })
	runBlocks(t, n, cancelPrefix(c))
	res := n.mustBlock(cancelTx(c, 2, upgradeH), c.tx(c.admin, stmt("INSERT INTO nosuch (id) VALUES (1)"))) // block upgradeH-1
	if res.TxResults[0].Code != api.CodeBlockAborted {
		t.Fatalf("cancel in an aborted block: %v", res.TxResults[0])
	}
	if v := res.ConsensusParamUpdates.GetVersion().GetApp(); v != protocol.V2 {
		t.Fatalf("block %d (aborted, its cancel dropped) announces app version %d, want 2", upgradeH-1, v)
	}
	n.mustBlock() // block upgradeH
	if ps := n.a.Executor().Protocol(); ps.Version != protocol.V2 || ps.Since != upgradeH || ps.Pending != nil {
		t.Fatalf("protocol state after the aborted cancel: %+v", ps)
	}
}
