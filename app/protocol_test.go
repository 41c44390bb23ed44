package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// goldenV1AppHashes are fixedChain's AppHashes as relchain computed them
// before protocol versions existed (commit b142a56, `go test ./app -run
// TestPrintGolden` with a test printing runFixedChain).
var goldenV1AppHashes = []string{
	"6bb07f4e9a4c4426d0e2df02d01e09652a950c271f462cd9a572a3e2558d6391",
	"24640c45a0be2595e5283d0a657e6dd387e1eb7051abe23078913fe9e7dc1851",
	"68fa2515c853f8ba0e8ad7ed1150fdd724a65d12ff8d39e9c075be7773f10380",
	"e3af364334a9d1c7038a5b0fadec75e39541fcade31510de8147d122d7dd5574",
	"e3af364334a9d1c7038a5b0fadec75e39541fcade31510de8147d122d7dd5574",
	"e59a3792455e48e78b8d04d36a5e63fa0519aa62fa3abc1018b413827979c118",
}

// A chain that never upgrades runs protocol version 1, whose AppHashes
// are byte for byte those of relchain before protocol versions: a replay
// of an existing chain from genesis reproduces every AppHash.
func TestV1ChainKeepsItsAppHashes(t *testing.T) {
	if got := runFixedChain(t); !slices.Equal(got, goldenV1AppHashes) {
		t.Fatalf("v1 AppHashes changed:\ngot  %q\nwant %q", got, goldenV1AppHashes)
	}
}

// From version 2 on the AppHash commits to the protocol version; version
// 1 (and 0, an unset field) keeps the formula ComputeAppHash has always
// computed.
func TestAppHashCommitsToProtocolFromV2(t *testing.T) {
	state := sha256.Sum256([]byte("state"))
	prev := sha256.Sum256([]byte("prev"))
	res := []app.TxResult{{Code: api.CodeOK, Data: []byte("d")}}
	in := app.AppHashInputs{Prev: prev[:], Height: 7, Results: app.ResultsHash(res), Changes: []byte("c")}
	v1 := app.ComputeAppHash(prev[:], 7, res, []byte("c"), state[:])
	hashes := map[uint64][]byte{}
	for _, v := range []uint64{0, 1, 2, 3} {
		in.Protocol = v
		hashes[v] = in.AppHash(state[:])
	}
	if !bytes.Equal(hashes[0], v1) || !bytes.Equal(hashes[1], v1) {
		t.Fatalf("version 0/1 AppHash %X/%X differs from the v1 formula %X", hashes[0], hashes[1], v1)
	}
	if bytes.Equal(hashes[2], v1) || bytes.Equal(hashes[3], hashes[2]) {
		t.Fatalf("versions 2 and 3 must give AppHashes of their own: v1 %X, v2 %X, v3 %X", v1, hashes[2], hashes[3])
	}
}

// upNode is one node of fixedChain driven through the ABCI app, on a
// database that can be reopened (a restart).
type upNode struct {
	t   *testing.T
	c   *fixedChain
	mod func(*app.Params) // changes c's parameters, if set
	s   store
	be  backend.Backend
	a   *app.App
}

func newUpNode(t *testing.T, c *fixedChain) *upNode { return newUpNodeWith(t, c, nil) }

// newUpNodeWith is newUpNode with c's parameters changed by mod (in the
// genesis too).
func newUpNodeWith(t *testing.T, c *fixedChain, mod func(*app.Params)) *upNode {
	t.Helper()
	n := &upNode{t: t, c: c, mod: mod, s: stores(t)[0]}
	if err := n.open(); err != nil {
		t.Fatal(err)
	}
	if err := n.a.Executor().InitValidators(c.vals); err != nil {
		t.Fatal(err)
	}
	p := n.params()
	state, _ := json.Marshal(map[string]any{"admins": p.Admins, "block_atomic": p.BlockAtomic})
	res, err := n.a.InitChain(context.Background(), &abci.RequestInitChain{ChainId: chainID, AppStateBytes: state})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.ConsensusParams.GetVersion().GetApp(); v != protocol.V1 {
		t.Fatalf("InitChain's app version is %d, want %d", v, protocol.V1)
	}
	return n
}

// open (re)opens the node's database and builds its app.
func (n *upNode) open() error {
	if n.be != nil {
		n.be.Close() // the process stops
	}
	be := n.s.open(n.t)
	n.be = be
	n.t.Cleanup(func() { be.Close() })
	p := n.params()
	p.Backend = n.s.dialect
	ex, err := app.NewExecutor(context.Background(), n.be, chainID, p)
	if err != nil {
		return err
	}
	n.a = app.New(ex, log.NewNopLogger())
	return nil
}

// params are the node's parameters.
func (n *upNode) params() app.Params {
	p := n.c.params()
	if n.mod != nil {
		n.mod(&p)
	}
	return p
}

// block finalizes and commits the next block through the app.
func (n *upNode) block(txs ...[]byte) (*abci.ResponseFinalizeBlock, error) {
	h := n.a.Executor().State().Height + 1
	b := blockInfo(h)
	res, err := n.a.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: h, Time: b.Time, Hash: b.Hash, Txs: txs})
	if err != nil {
		return nil, err
	}
	if _, err := n.a.Commit(context.Background(), &abci.RequestCommit{}); err != nil {
		return nil, err
	}
	return res, nil
}

func (n *upNode) mustBlock(txs ...[]byte) *abci.ResponseFinalizeBlock {
	n.t.Helper()
	res, err := n.block(txs...)
	if err != nil {
		n.t.Fatalf("block %d: %v", n.a.Executor().State().Height+1, err)
	}
	return res
}

func upgradeTx(c *fixedChain, v, h int64) []byte {
	return c.tx(c.admin, stmt(protocol.UpgradeStatement, txn.Int(v), txn.Int(h)))
}

// upgradeH is the height the scenario upgrades to version 2 at.
const upgradeH = 10

// upgradeScenario are the blocks 1..upgradeH-1 of a chain that schedules
// version 2 at upgradeH, with the result codes each must give. The
// refused upgrades are refused on chain state; the one to version 99,
// which no binary knows, is accepted (then replaced).
func upgradeScenario(c *fixedChain) (blocks [][][]byte, want [][]uint32) {
	ins := func(id int64) []byte {
		return c.tx(c.admin, stmt("INSERT INTO acct (id, bal) VALUES (?1, 1)", txn.Int(id)))
	}
	blocks = [][][]byte{
		{c.tx(c.admin, stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"))},
		{ins(1),
			c.tx(c.user, stmt(protocol.UpgradeStatement, txn.Int(2), txn.Int(20))), // not an admin
			upgradeTx(c, 1, 20), // not newer
			upgradeTx(c, 2, 3),  // too close
			upgradeTx(c, 2, 0)}, // malformed
		{upgradeTx(c, 99, 30), ins(2)}, // unknown to every binary: accepted
		{upgradeTx(c, 2, upgradeH)},    // replaces it
		{ins(3)}, {}, {ins(4)}, {}, {ins(5)},
	}
	want = [][]uint32{
		{api.CodeOK},
		{api.CodeOK, api.CodeUnauthorized, api.CodeForbidden, api.CodeForbidden, api.CodeSyntax},
		{api.CodeOK, api.CodeOK},
		{api.CodeOK},
		{api.CodeOK}, {}, {api.CodeOK}, {}, {api.CodeOK},
	}
	return blocks, want
}

// runToUpgrade executes the scenario's blocks 1..upgradeH-1 on n and
// returns their AppHashes; it checks the codes and that only block
// upgradeH-1 announces the new app version.
func runToUpgrade(t *testing.T, n *upNode, blocks [][][]byte, want [][]uint32) [][]byte {
	t.Helper()
	var hashes [][]byte
	for i, txs := range blocks {
		h := int64(i + 1)
		res := n.mustBlock(txs...)
		var got []uint32
		for _, r := range res.TxResults {
			got = append(got, r.Code)
		}
		if !slices.Equal(got, want[i]) {
			t.Fatalf("block %d: codes %v, want %v (%v)", h, got, want[i], res.TxResults)
		}
		announced := res.ConsensusParamUpdates.GetVersion().GetApp()
		switch {
		case h == upgradeH-1 && announced != protocol.V2:
			t.Fatalf("block %d (before the upgrade height) announces app version %d, want %d", h, announced, protocol.V2)
		case h != upgradeH-1 && res.ConsensusParamUpdates != nil:
			t.Fatalf("block %d announces consensus params %v", h, res.ConsensusParamUpdates)
		}
		hashes = append(hashes, res.AppHash)
	}
	return hashes
}

// The upgrade's outcome, every result and AppHash up to the upgrade
// height are the same whatever versions the binary supports; at the
// height an old binary stops, and refuses to start again, naming the
// version it needs; a new one continues from there, on the same
// database, under version 2.
func TestUpgradeSwitchesAtHeight(t *testing.T) {
	c := newFixedChain()
	blocks, want := upgradeScenario(c)

	restore := protocol.SetMaxForTest(protocol.V1)
	old := newUpNode(t, c)
	oldHashes := runToUpgrade(t, old, blocks, want)
	ps := old.a.Executor().Protocol()
	if ps.Version != protocol.V1 || ps.Next != protocol.V2 || ps.Pending == nil || *ps.Pending != (app.Upgrade{Version: 2, Height: upgradeH}) {
		t.Fatalf("protocol state before the upgrade: %+v", ps)
	}
	if info, _ := old.a.Info(context.Background(), &abci.RequestInfo{}); info.AppVersion != protocol.V2 {
		t.Fatalf("Info's app version before block %d is %d, want the next block's, 2", upgradeH, info.AppVersion)
	}
	_, err := old.block(c.tx(c.admin, stmt("INSERT INTO acct (id, bal) VALUES (100, 1)")))
	wantMsg := "this chain runs protocol version 2 from height 10; this binary (relchain " + app.Version + ", protocol versions 1) cannot apply it: install a relchain that supports version 2"
	if !errors.Is(err, protocol.ErrUnsupported) || !strings.Contains(err.Error(), wantMsg) {
		t.Fatalf("old binary at the upgrade height: %v, want %q", err, wantMsg)
	}
	if h := old.a.HaltReason(); !errors.Is(h, protocol.ErrUnsupported) {
		t.Fatalf("old binary's halt reason: %v", h)
	}
	if st := old.a.Executor().State(); st.Height != upgradeH-1 {
		t.Fatalf("old binary recorded height %d, want %d", st.Height, upgradeH-1)
	}
	if err := old.open(); !errors.Is(err, protocol.ErrUnsupported) || !strings.Contains(err.Error(), wantMsg) {
		t.Fatalf("old binary restarted on the database: %v, want %q", err, wantMsg)
	}
	restore()

	n := newUpNode(t, c.fresh())
	newHashes := runToUpgrade(t, n, blocks, want)
	for i := range oldHashes {
		if !bytes.Equal(oldHashes[i], newHashes[i]) {
			t.Fatalf("block %d: AppHash %X with a binary of version 1, %X with version 2", i+1, oldHashes[i], newHashes[i])
		}
	}
	// The old node's database, opened by the new binary, continues.
	if err := old.open(); err != nil {
		t.Fatalf("new binary on the old node's database: %v", err)
	}
	for _, nd := range []*upNode{old, n} {
		empty := nd.mustBlock() // block upgradeH: empty, but the version changes
		if bytes.Equal(empty.AppHash, newHashes[len(newHashes)-1]) {
			t.Fatal("the upgrade block leaves the AppHash unchanged")
		}
		ps := nd.a.Executor().Protocol()
		if ps.Version != protocol.V2 || ps.Since != upgradeH || ps.Next != protocol.V2 || ps.Pending != nil {
			t.Fatalf("protocol state after the upgrade: %+v", ps)
		}
		if _, err := app.VerifyState(context.Background(), nd.be); err != nil {
			t.Fatalf("verify the upgraded database: %v", err)
		}
	}
	a, b := old.a.Executor().State(), n.a.Executor().State()
	if a.Height != b.Height || !bytes.Equal(a.AppHash, b.AppHash) {
		t.Fatalf("restarted old node %d %X, new node %d %X", a.Height, a.AppHash, b.Height, b.AppHash)
	}
}

// fresh is the same chain (keys, validators) with its nonces from the
// start: the same txs again.
func (c *fixedChain) fresh() *fixedChain { return newFixedChain() }

// A scheduled upgrade is refused when it is not newer than the version
// in force, also after an upgrade; a later one may follow.
func TestUpgradeAfterUpgrade(t *testing.T) {
	c := newFixedChain()
	blocks, want := upgradeScenario(c)
	n := newUpNode(t, c)
	runToUpgrade(t, n, blocks, want)
	n.mustBlock()
	res := n.mustBlock(upgradeTx(c, 2, 40), upgradeTx(c, 3, 40))
	if res.TxResults[0].Code != api.CodeForbidden || res.TxResults[1].Code != api.CodeOK {
		t.Fatalf("upgrades to 2 and 3 after version 2: %v", res.TxResults)
	}
	if ps := n.a.Executor().Protocol(); ps.Pending == nil || ps.Pending.Version != 3 {
		t.Fatalf("protocol state: %+v", ps)
	}
}

// A replay of every block of a chain that upgraded, into a fresh
// database, reproduces every AppHash, across the upgrade.
func TestReplayAcrossUpgradeReproducesAppHashes(t *testing.T) {
	c := newFixedChain()
	blocks, want := upgradeScenario(c)
	n := newUpNode(t, c)
	hashes := runToUpgrade(t, n, blocks, want)
	ins := func(id int64) []byte {
		return c.tx(c.admin, stmt("INSERT INTO acct (id, bal) VALUES (?1, 1)", txn.Int(id)))
	}
	blocks = append(blocks, [][]byte{ins(10)}, [][]byte{ins(11), ins(12)}, nil, [][]byte{ins(13)})
	for _, txs := range blocks[upgradeH-1:] {
		hashes = append(hashes, n.mustBlock(txs...).AppHash)
	}

	r := newUpNode(t, newFixedChain())
	for i, txs := range blocks {
		got := r.mustBlock(txs...).AppHash
		if !bytes.Equal(got, hashes[i]) {
			t.Fatalf("replayed block %d: AppHash %X, the chain has %X", i+1, got, hashes[i])
		}
	}
	if ps := r.a.Executor().Protocol(); ps.Version != protocol.V2 || ps.Since != upgradeH {
		t.Fatalf("replayed protocol state: %+v", ps)
	}
}
