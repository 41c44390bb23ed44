package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/txn"
)

// Validator membership through the chain, black-box. With the original
// four validators one stopped validator does not stop the network, and it
// catches up and signs again once restarted. A fifth node joins by state
// sync as a full node, the admin votes it in with `relchain admin
// validator add`, its signatures appear in committed blocks; an original
// validator is removed with `relchain admin validator remove`, and with
// that node and one more stopped the remaining three of four validators
// keep committing (with the old set, three of five, they could not); a
// restarted node knows the set. A sixth node then joins by state sync from
// a snapshot taken after the change and knows the changed set too (its
// CheckTx and its /validators); every node ends identical.
func TestValidatorMembership(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{permissioned: true, checkpointEvery: 5, consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Rows are written with a key of their own: the CLI signs with the
	// admin key in another process, whose nonces start elsewhere.
	m := &membership{c: c, ctx: ctx, keyFile: c.writeAdminKey(), writer: newKey(t)}
	c.mustExec(ctx, 0, stmt("CREATE TABLE kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL)"),
		stmt(api.SystemGrant, txn.Bytes(m.writer.Public().(ed25519.PublicKey)), txn.Text("kv")))
	for i := 0; i < 8; i++ {
		m.write(0)
	}
	// One fault before the change: three of the four genesis validators
	// (30 of 40) commit without node 1, which then catches up and signs.
	m.writeWithout(1)
	m.restart(1)
	m.waitSigned(1)

	joiner := m.joinByStateSync("node4", 0)
	m.voteIn(joiner)

	removed := 3
	out := m.mustCLI(1, "remove", c.nodes[removed].Home)
	changed := committedAt(t, out) + 2 // CometBFT applies the change here
	t.Logf("%s", strings.TrimSpace(out))
	m.waitValidators(map[int]bool{0: true, 1: true, 2: true, joiner: true})
	// Nodes 2 and 3 stop: 0, 1 and 4 hold 30 of the 40 votes (more than
	// two thirds), not 30 of 50 as before the removal.
	m.writeWithout(2, removed)
	m.waitSigned(joiner)

	// Restarted, node 2 knows the set from its own database: its CheckTx
	// refuses the new validator as a duplicate. Node 3 follows as a full node.
	m.restart(2, removed)
	if out, err := m.cli(2, "add", c.nodes[joiner].Home, "10"); err == nil || !strings.Contains(out, "already in the set") {
		t.Fatalf("add of the new validator again through the restarted node 2: err %v, output %q; want refused (already in the set)", err, out)
	}
	m.write(2)

	late := m.joinByStateSync("node5", changed)
	m.requireKnowsSet(late, joiner, removed)
	m.write(late)
	h, got := c.consistentRead(ctx, "SELECT count(*), group_concat(v) FROM kv")
	c.requireSameRows(h, "kv", got[0])
	t.Logf("all %d nodes identical at height %d", len(c.nodes), h)
}

// voteIn adds node i (a full node) as a validator of power 10 through node
// 0, after the same change with power 30 was refused, and waits until it
// signs.
func (m *membership) voteIn(i int) {
	c, t := m.c, m.c.t
	// Refused without --force: one validator would hold 30 of 70.
	if out, err := m.cli(0, "add", c.nodes[i].Home, "30"); err == nil || !strings.Contains(out, "validator_refused") || !strings.Contains(out, "from 1 to 0") {
		t.Fatalf("add with power 30: err %v, output %q; want refused (validator_refused, faults from 1 to 0)", err, out)
	}
	out := m.mustCLI(0, "add", c.nodes[i].Home, "10")
	t.Logf("%s", strings.TrimSpace(out))
	m.waitValidators(map[int]bool{0: true, 1: true, 2: true, 3: true, i: true})
	if shown := m.mustCLI(1, "show"); !strings.Contains(shown, m.address(i)) || strings.Count(shown, "power=10") != 5 {
		t.Fatalf("relchain admin validator show = %q, want 5 validators of power 10 with %s", shown, m.address(i))
	}
	m.waitSigned(i)
}

// requireKnowsSet checks that node late, which joined by state sync after
// node added was voted in and node removed out, knows the changed set:
// its CheckTx refuses adding added again and removing removed (the set of
// its restored database), and its /validators (CometBFT's set, from state
// sync's light client) lists the four validators of power 10 with added
// and without removed.
func (m *membership) requireKnowsSet(late, added, removed int) {
	c, t := m.c, m.c.t
	name := c.nodes[late].Name
	if out, err := m.cli(late, "add", c.nodes[added].Home, "10"); err == nil || !strings.Contains(out, "validator_refused") || !strings.Contains(out, "already in the set") {
		t.Fatalf("add of %s again through %s: err %v, output %q; want refused (validator_refused: already in the set)", c.nodes[added].Name, name, err, out)
	}
	if out, err := m.cli(late, "remove", c.nodes[removed].Home); err == nil || !strings.Contains(out, "validator_refused") || !strings.Contains(out, "not in the set") {
		t.Fatalf("remove of %s again through %s: err %v, output %q; want refused (validator_refused: not in the set)", c.nodes[removed].Name, name, err, out)
	}
	shown := m.mustCLI(late, "show")
	if !strings.Contains(shown, m.address(added)) || strings.Contains(shown, m.address(removed)) || strings.Count(shown, "power=10") != 4 {
		t.Fatalf("relchain admin validator show through %s = %q, want 4 validators of power 10 with %s and without %s", name, shown, m.address(added), m.address(removed))
	}
}

// committedAt is the height in `relchain admin validator` output
// ("committed at height N").
func committedAt(t *testing.T, out string) int64 {
	t.Helper()
	mm := regexp.MustCompile(`committed at height (\d+)`).FindStringSubmatch(out)
	if mm == nil {
		t.Fatalf("no committed height in %q", out)
	}
	h, _ := strconv.ParseInt(mm[1], 10, 64)
	return h
}

// membership drives TestValidatorMembership.
type membership struct {
	c       *cluster
	ctx     context.Context
	keyFile string
	writer  ed25519.PrivateKey // holds a grant on kv
	n       int
}

// writeAdminKey writes the cluster's admin key as a relchain key file.
func (c *cluster) writeAdminKey() string {
	c.t.Helper()
	b, _ := json.Marshal(map[string]string{"name": "admin", "public_key": hex.EncodeToString(c.admin.Public().(ed25519.PublicKey)), "private_key": hex.EncodeToString(c.admin)})
	path := filepath.Join(c.t.TempDir(), "admin.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		c.t.Fatal(err)
	}
	return path
}

// write commits one row through node i (blocks happen only with txs).
func (m *membership) write(i int) {
	m.c.t.Helper()
	if err := m.writeCtx(m.ctx, i); err != nil {
		m.c.t.Fatal(err)
	}
}

func (m *membership) writeCtx(ctx context.Context, i int) error {
	m.n++
	res, err := m.c.client(i, m.writer).Exec(ctx, client.ModeCommit, stmt(fmt.Sprintf("INSERT INTO kv (id, v) VALUES (%d, 'row %d')", m.n, m.n)))
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return fmt.Errorf("write row %d through %s: %w", m.n, m.c.nodes[i].Name, err)
	}
	return nil
}

// writeWithout stops the nodes down and commits three rows through node 0
// without them; a write that does not commit within 30 s means the other
// validators did not tolerate the fault.
func (m *membership) writeWithout(down ...int) {
	c, t := m.c, m.c.t
	t.Helper()
	var names []string
	for _, i := range down {
		if err := c.net.Stop(i); err != nil {
			t.Fatal(err)
		}
		names = append(names, c.nodes[i].Name)
	}
	stopped := strings.Join(names, " and ")
	before := c.maxHeight(m.ctx, 0)
	for k := 0; k < 3; k++ {
		ctx, cancel := context.WithTimeout(m.ctx, 30*time.Second)
		err := m.writeCtx(ctx, 0)
		cancel()
		if err != nil {
			t.Fatalf("with %s stopped the network did not commit: %v", stopped, err)
		}
	}
	t.Logf("committed heights %d..%d with %s stopped", before, c.maxHeight(m.ctx, 0), stopped)
}

// restart starts the stopped nodes and waits until each has caught up
// with node 0.
func (m *membership) restart(nodes ...int) {
	c, t := m.c, m.c.t
	t.Helper()
	for _, i := range nodes {
		if err := c.net.Start(i); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(m.ctx, 2*time.Minute)
	defer cancel()
	target := c.maxHeight(ctx, 0)
	for _, i := range nodes {
		if err := c.net.WaitHeight(ctx, i, target); err != nil {
			t.Fatalf("restarted %s did not catch up with height %d: %v", c.nodes[i].Name, target, err)
		}
	}
}

// joinByStateSync adds a full node named name that joins by state sync
// from a snapshot of height after or later, checks that it restored such
// a snapshot and caught up, and returns its index.
func (m *membership) joinByStateSync(name string, after int64) int {
	c, t := m.c, m.c.t
	t.Helper()
	m.waitSnapshot(after)
	info, err := netctl.AddNode(m.ctx, netctl.JoinOptions{Dir: c.dir, Name: name, StateSync: true})
	if err != nil {
		t.Fatal(err)
	}
	joiner := c.net.Add(info)
	c.nodes = c.net.Nodes
	if err := c.net.Start(joiner); err != nil {
		t.Fatal(err)
	}
	// No write until the snapshot is restored: blocks would bring new
	// checkpoints, not yet restorable, while the node discovers them.
	var restored [][]byte
	ctx, cancel := context.WithTimeout(m.ctx, 2*time.Minute)
	defer cancel()
	if err := waitFor(ctx, name+" to restore a snapshot", func() bool {
		log, _ := os.ReadFile(c.net.LogFile(joiner))
		restored = restoredSnapshot.FindSubmatch(log)
		return restored != nil || !c.net.Running(joiner)
	}); err != nil || restored == nil {
		log, _ := os.ReadFile(c.net.LogFile(joiner))
		t.Fatalf("%s did not join by state sync (%v, exit: %v):\n%s", name, err, c.net.ExitError(joiner), tail(log, 60))
	}
	if h, _ := strconv.ParseInt(string(restored[1]), 10, 64); h < after {
		t.Fatalf("%s restored the snapshot of height %d, want one of height %d or later", name, h, after)
	}
	m.write(0)
	if err := c.net.WaitHeight(m.ctx, joiner, c.maxHeight(m.ctx, 0)); err != nil {
		t.Fatalf("%s after state sync: %v", name, err)
	}
	t.Logf("%s joined by state sync: %s", name, restored[0])
	return joiner
}

// waitSnapshot writes rows until node 0 holds a checkpoint of height
// after or later and has committed two blocks past its newest checkpoint:
// state sync restores a snapshot of height H only once block H+2 exists.
func (m *membership) waitSnapshot(after int64) {
	c, t := m.c, m.c.t
	t.Helper()
	var newest, tip int64
	if err := waitFor(m.ctx, fmt.Sprintf("a checkpoint of height %d or later on node 0", after), func() bool {
		tip = c.maxHeight(m.ctx, 0)
		newest = c.newestCheckpoint(t, 0)
		if newest > 0 && newest >= after && tip >= newest+2 {
			return true
		}
		m.write(0)
		return false
	}); err != nil {
		t.Fatalf("%v (newest checkpoint %d, height %d)", err, newest, tip)
	}
}

// restoredSnapshot matches a node's log line on the snapshot it restored
// (text or JSON logs) and its height.
var restoredSnapshot = regexp.MustCompile(`restored and verified the snapshot[^\n]*?height\W{1,3}(\d+)`)

// cli runs `relchain admin validator ARGS...` against node i with the
// admin key and returns its combined output.
func (m *membership) cli(i int, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(m.ctx, time.Minute)
	defer cancel()
	full := append([]string{"admin", "validator", args[0], "--node", m.c.nodes[i].RPC, "--key", m.keyFile, "--home", m.c.t.TempDir()}, args[1:]...)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, relchainBin, full...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (m *membership) mustCLI(i int, args ...string) string {
	m.c.t.Helper()
	out, err := m.cli(i, args...)
	if err != nil {
		m.c.t.Fatalf("relchain admin validator %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// address is node i's validator address, from its priv_validator_key.json.
func (m *membership) address(i int) string {
	b, err := os.ReadFile(filepath.Join(m.c.nodes[i].Home, "config", "priv_validator_key.json"))
	if err != nil {
		m.c.t.Fatal(err)
	}
	var f struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		m.c.t.Fatal(err)
	}
	return strings.ToUpper(f.Address)
}

func (m *membership) rpc(i int) *rpchttp.HTTP {
	r, err := rpchttp.New(m.c.nodes[i].RPC, "/websocket")
	if err != nil {
		m.c.t.Fatal(err)
	}
	return r
}

// waitValidators writes until CometBFT's latest validator set (node 0's
// /validators) is exactly the nodes in want, each with power 10.
func (m *membership) waitValidators(want map[int]bool) {
	m.c.t.Helper()
	wantAddrs := map[string]bool{}
	for i := range want {
		wantAddrs[m.address(i)] = true
	}
	var last string
	err := waitFor(m.ctx, "the validator set to change", func() bool {
		perPage := 100
		vs, err := m.rpc(0).Validators(m.ctx, nil, nil, &perPage)
		if err != nil {
			return false
		}
		got := map[string]bool{}
		for _, v := range vs.Validators {
			got[v.Address.String()] = v.VotingPower == 10
		}
		last = fmt.Sprint(got)
		if fmt.Sprint(got) == fmt.Sprint(wantAddrs) {
			return true
		}
		m.write(0)
		return false
	})
	if err != nil {
		m.c.t.Fatalf("%v: last /validators %s, want %v", err, last, wantAddrs)
	}
}

// waitSigned writes until a committed block carries node i's signature.
func (m *membership) waitSigned(i int) {
	m.c.t.Helper()
	addr := m.address(i)
	err := waitFor(m.ctx, "a block signed by node "+fmt.Sprint(i), func() bool {
		c, err := m.rpc(0).Commit(m.ctx, nil)
		if err == nil {
			for _, s := range c.Commit.Signatures {
				if s.BlockIDFlag == cmttypes.BlockIDFlagCommit && s.ValidatorAddress.String() == addr {
					return true
				}
			}
		}
		m.write(0)
		return false
	})
	if err != nil {
		m.c.t.Fatal(err)
	}
}
