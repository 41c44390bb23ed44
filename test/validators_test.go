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

// Validator membership through the chain, black-box: a fifth node joins
// by state sync as a full node, the admin votes it in with `relchain admin
// validator add`, its signatures appear in committed blocks; an original
// validator is removed with `relchain admin validator remove`, and with
// that node and one more stopped the remaining three of four validators
// keep committing (with the old set, three of five, they could not); a
// restarted node knows the set; every node ends identical.
func TestValidatorMembership_SQLite(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{permissioned: true, checkpointEvery: 5})
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
	joiner := m.joinByStateSync()

	// Refused without --force: one validator would hold 30 of 70.
	if out, err := m.cli(0, "add", c.nodes[joiner].Home, "30"); err == nil || !strings.Contains(out, "validator_refused") || !strings.Contains(out, "from 1 to 0") {
		t.Fatalf("add with power 30: err %v, output %q; want refused (validator_refused, faults from 1 to 0)", err, out)
	}
	out := m.mustCLI(0, "add", c.nodes[joiner].Home, "10")
	t.Logf("%s", strings.TrimSpace(out))
	m.waitValidators(map[int]bool{0: true, 1: true, 2: true, 3: true, joiner: true})
	if shown := m.mustCLI(1, "show"); !strings.Contains(shown, m.address(joiner)) || strings.Count(shown, "power=10") != 5 {
		t.Fatalf("relchain admin validator show = %q, want 5 validators of power 10 with %s", shown, m.address(joiner))
	}
	m.waitSigned(joiner)

	removed := 3
	m.mustCLI(1, "remove", c.nodes[removed].Home)
	m.waitValidators(map[int]bool{0: true, 1: true, 2: true, joiner: true})
	// Nodes 2 and 3 stop: 0, 1 and 4 hold 30 of the 40 votes (more than
	// two thirds), not 30 of 50 as before the removal.
	for _, i := range []int{2, removed} {
		if err := c.net.Stop(i); err != nil {
			t.Fatal(err)
		}
	}
	before := c.maxHeight(ctx, 0)
	for i := 0; i < 3; i++ {
		m.write(0)
	}
	m.waitSigned(joiner)
	t.Logf("committed heights %d..%d with nodes 2 and 3 stopped", before, c.maxHeight(ctx, 0))

	// Restarted, node 2 knows the set from its own database: its CheckTx
	// refuses the new validator as a duplicate. Node 3 follows as a full node.
	for _, i := range []int{2, removed} {
		if err := c.net.Start(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.net.WaitHeight(ctx, 2, c.maxHeight(ctx, 0)); err != nil {
		t.Fatal(err)
	}
	if out, err := m.cli(2, "add", c.nodes[joiner].Home, "10"); err == nil || !strings.Contains(out, "already in the set") {
		t.Fatalf("add of the new validator again through the restarted node 2: err %v, output %q; want refused (already in the set)", err, out)
	}
	m.write(2)
	h, got := c.consistentRead(ctx, "SELECT count(*), group_concat(v) FROM kv")
	c.requireSameRows(h, "kv", got[0])
}

// membership drives TestValidatorMembership_SQLite.
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
	m.n++
	res, err := m.c.client(i, m.writer).Exec(m.ctx, client.ModeCommit, stmt(fmt.Sprintf("INSERT INTO kv (id, v) VALUES (%d, 'row %d')", m.n, m.n)))
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		m.c.t.Fatalf("write row %d through %s: %v", m.n, m.c.nodes[i].Name, err)
	}
}

// joinByStateSync adds a full node that joins by state sync, once node 0
// holds a checkpoint, and returns its index.
func (m *membership) joinByStateSync() int {
	c, t := m.c, m.c.t
	if err := waitFor(m.ctx, "a checkpoint on node 0", func() bool {
		cps, _ := filepath.Glob(filepath.Join(c.nodes[0].Home, "data", "checkpoints", "checkpoint-*"))
		return len(cps) > 0
	}); err != nil {
		t.Fatal(err)
	}
	info, err := netctl.AddNode(m.ctx, netctl.JoinOptions{Dir: c.dir, Name: "node4", StateSync: true})
	if err != nil {
		t.Fatal(err)
	}
	joiner := c.net.Add(info)
	c.nodes = c.net.Nodes
	if err := c.net.Start(joiner); err != nil {
		t.Fatal(err)
	}
	m.write(0)
	if err := c.net.WaitHeight(m.ctx, joiner, c.maxHeight(m.ctx, 0)); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(c.net.LogFile(joiner))
	if !strings.Contains(string(log), "restored and verified the snapshot") {
		t.Fatalf("node 4 did not join by state sync:\n%s", tail(log, 3000))
	}
	return joiner
}

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
