package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/client/proof"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/proxy"
	"github.com/relchain/relchain/rowcanon"
)

// Verified reads (issue 36 item 3) on a 6-validator network whose nodes
// 1-5 lie on their read paths (a test-hooks build,
// RELCHAIN_UNSAFE_BYZANTINE_READS): node 1 tampers with row images, node
// 2 drops a row from every range, node 3 answers every question as it
// first did (stale), node 4 alters /query's rows, node 5 forges the
// AppHash's base. Node 0 is honest: every
// read of the workload verifies there; each lie is an error naming the
// lying node and the failure, in the Go client and in `relchain query
// --verify`. The light client trusts only the genesis file.
func TestVerifiedReadsSQLite(t *testing.T) { testVerifiedReads(t, "sqlite", "postgres") }

func TestVerifiedReadsPostgres(t *testing.T) { testVerifiedReads(t, "postgres", "") }

func TestVerifiedReadsMySQL(t *testing.T) { testVerifiedReads(t, "mysql", "") }

func testVerifiedReads(t *testing.T, backend, dialect string) {
	env := [][]string{nil, {"RELCHAIN_UNSAFE_BYZANTINE_READS=tamper-row"},
		{"RELCHAIN_UNSAFE_BYZANTINE_READS=drop-row"}, {"RELCHAIN_UNSAFE_BYZANTINE_READS=stale"},
		{"RELCHAIN_UNSAFE_BYZANTINE_READS=tamper-query"}, {"RELCHAIN_UNSAFE_BYZANTINE_READS=forge-base"}}
	c := mustStartCluster(t, clusterOptions{backend: backend, dialect: dialect, testHooks: true, nodeEnv: env, validators: 6})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c.mustExecEverywhere(ctx, 0, stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, owner TEXT NOT NULL, bal BIGINT NOT NULL)"))
	for i := 1; i <= 5; i++ {
		c.mustExecEverywhere(ctx, 0, stmt(fmt.Sprintf("INSERT INTO acct VALUES (%d, 'owner%d', %d)", i, i, 100*i)))
	}
	genesis := filepath.Join(c.nodes[0].Home, "config", "genesis.json")
	root, err := lightverify.FromGenesis(genesis)
	if err != nil {
		t.Fatal(err)
	}
	v, err := lightverify.New(ctx, root, c.nodes[0].RPC, []string{c.nodes[1].RPC, c.nodes[2].RPC})
	if err != nil {
		t.Fatalf("light client: %v", err)
	}
	honest := c.client(0, nil)
	for i := 1; i <= 5; i++ {
		r, err := honest.VerifiedGet(ctx, v, client.VerifyOptions{}, "acct", i)
		if err != nil {
			t.Fatalf("verified get %d on the honest node: %v", i, err)
		}
		if len(r.Rows) != 1 || r.Guarantee != client.GuaranteeProof || cell(t, r, 0, "bal") != fmt.Sprint(100*i) {
			t.Fatalf("verified get %d: %+v, want one row of bal %d with a proof", i, r, 100*i)
		}
	}
	if r, err := honest.VerifiedGet(ctx, v, client.VerifyOptions{}, "acct", 99); err != nil || len(r.Rows) != 0 {
		t.Fatalf("verified get of an absent key: %+v, %v; want no row, proven", r, err)
	}
	r, err := honest.VerifiedRange(ctx, v, client.VerifyOptions{}, "acct", []any{2}, []any{4})
	if err != nil || len(r.Rows) != 3 || cell(t, r, 0, "owner") != "owner2" || cell(t, r, 2, "owner") != "owner4" {
		t.Fatalf("verified range [2, 4]: %+v, %v; want rows 2, 3, 4", r, err)
	}

	_, err = c.client(1, nil).VerifiedGet(ctx, v, client.VerifyOptions{}, "acct", 3)
	requireLie(t, err, c.nodes[1].RPC, proof.ErrTamperedRow)
	_, err = c.client(2, nil).VerifiedRange(ctx, v, client.VerifyOptions{}, "acct", []any{1}, []any{5})
	requireLie(t, err, c.nodes[2].RPC, proof.ErrMissingRow)
	_, err = c.client(5, nil).VerifiedGet(ctx, v, client.VerifyOptions{HeaderWait: 3 * time.Second}, "acct", 2)
	requireLie(t, err, c.nodes[5].RPC, proof.ErrAppHash)

	stale := c.client(3, nil)
	if _, err := stale.VerifiedGet(ctx, v, client.VerifyOptions{}, "acct", 1); err != nil {
		t.Fatalf("the stale node's first answer is fresh: %v", err)
	}
	var updated []int64 // the heights of row 1's updates
	for i := range 3 {
		updated = append(updated, c.mustExecEverywhere(ctx, 0, stmt(fmt.Sprintf("UPDATE acct SET bal = %d WHERE id = 1", 1000+i))).Height)
	}
	time.Sleep(client.DefaultHeadAge) // the light client asks for the chain's head at most this often
	_, err = stale.VerifiedGet(ctx, v, client.VerifyOptions{}, "acct", 1)
	requireLie(t, err, c.nodes[3].RPC, client.ErrStale)
	if r, err := honest.VerifiedGet(ctx, v, client.VerifyOptions{}, "acct", 1); err != nil || cell(t, r, 0, "bal") != "1002" {
		t.Fatalf("verified get 1 after the updates: %+v, %v; want bal 1002", r, err)
	}
	const agg = "SELECT owner FROM acct WHERE bal > 250"
	if a, err := client.AgreedQuery(ctx, []*client.Client{honest, c.client(1, nil)}, 2, agg); err != nil || len(a.Rows) != 4 || a.Guarantee != client.GuaranteeAgreement {
		t.Fatalf("f+1 agreement of two honest /query paths: %+v, %v", a, err)
	}
	var mm *client.MismatchError
	if _, err := client.AgreedQuery(ctx, []*client.Client{honest, c.client(4, nil)}, 2, agg); !errors.As(err, &mm) || !strings.Contains(err.Error(), c.nodes[4].RPC) {
		t.Fatalf("f+1 agreement with a node altering /query: %v, want a mismatch naming %s", err, c.nodes[4].RPC)
	}
	testVerifiedQueryCLI(ctx, t, c, genesis)
	testVerifiedPastVersions(ctx, t, c, genesis, v, updated)
	testVerifiedAfterDDL(ctx, t, c, root, honest, v)
}

// testVerifiedPastVersions proves row 1's version after each of its
// updates (at heights updated, bal 1000, 1001, 1002) against that
// block's AppHash, with the Go client and `relchain query --verify
// --at-height`; a tampering node is caught there too.
func testVerifiedPastVersions(ctx context.Context, t *testing.T, c *cluster, genesis string, v *lightverify.Verifier, updated []int64) {
	t.Helper()
	for i, h := range updated {
		r, err := c.client(0, nil).VerifiedGet(ctx, v, client.VerifyOptions{Height: h}, "acct", 1)
		if err != nil || r.Height != h || cell(t, r, 0, "bal") != fmt.Sprint(1000+i) {
			t.Fatalf("row 1 at height %d: %+v, %v; want bal %d proven at that height", h, r, err, 1000+i)
		}
	}
	_, err := c.client(1, nil).VerifiedGet(ctx, v, client.VerifyOptions{Height: updated[0]}, "acct", 1)
	requireLie(t, err, c.nodes[1].RPC, proof.ErrTamperedRow)
	query := func(sql string) (string, error) {
		out, err := exec.CommandContext(ctx, relchainBin, "query", "--verify", "--trust-genesis", genesis, "--node", c.nodes[0].RPC,
			"--nodes", c.nodes[2].RPC, "--at-height", fmt.Sprint(updated[0]), sql).CombinedOutput()
		return string(out), err
	}
	if out, err := query("SELECT bal FROM acct WHERE id = 1"); err != nil || !strings.Contains(out, "1000") || !strings.Contains(out, fmt.Sprintf("at height %d", updated[0])) {
		t.Fatalf("query --verify --at-height %d: %v\n%s", updated[0], err, out)
	}
	if out, err := query("SELECT count(*) FROM acct"); err == nil || !strings.Contains(out, "only a read by primary key") {
		t.Fatalf("query --verify --at-height of an aggregate: %v\n%s; want a refusal", err, out)
	}
}

// testVerifiedAfterDDL: the primary key a Client cached and the
// description relchain proxy's Verifier cached are refreshed when a DDL
// changed the table (its key column's type, its other columns): reads
// after it answer the new table's rows, proven.
func testVerifiedAfterDDL(ctx context.Context, t *testing.T, c *cluster, root lightverify.Root, honest *client.Client, v *lightverify.Verifier) {
	pv, err := proxy.NewVerifier(ctx, root, []string{c.nodes[0].RPC}, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const point = "SELECT * FROM kv WHERE k = '7'"
	read := func(want string) {
		t.Helper()
		r, err := honest.VerifiedGet(ctx, v, client.VerifyOptions{}, "kv", "7")
		if err != nil || len(r.Rows) != 1 || cell(t, r, 0, "k") != "7" {
			t.Fatalf("verified get of kv 7: %+v, %v; want the row", r, err)
		}
		resp, guarantee, err := pv.VerifiedRead(ctx, 0, gateway.Read{ClientSQL: point, SQL: point})
		if err != nil || !strings.HasPrefix(guarantee, "proof") || strings.Join(resp.Columns, ",") != want || len(resp.Rows) != 1 {
			t.Fatalf("proxy verified read %q: %+v, %q, %v; want columns %s and one row, proven", point, resp, guarantee, err, want)
		}
	}
	c.mustExecEverywhere(ctx, 0, stmt("CREATE TABLE kv (k BIGINT PRIMARY KEY, v TEXT NOT NULL)"))
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO kv VALUES (5, 'five'), (7, 'seven'), (9, 'nine')"))
	read("k,v")
	read("k,v") // from the caches
	c.mustExecEverywhere(ctx, 0, stmt("DROP TABLE kv"))
	c.mustExecEverywhere(ctx, 0, stmt("CREATE TABLE kv (k VARCHAR(20) PRIMARY KEY, w BIGINT NOT NULL)"))
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO kv VALUES ('5', 5), ('7', 7), ('9', 9)"))
	read("k,w")
}

// testVerifiedQueryCLI runs `relchain query --verify` on c (set up by
// testVerifiedReads): honest answers carry their guarantee, each lie
// exits non-zero naming the node.
func testVerifiedQueryCLI(ctx context.Context, t *testing.T, c *cluster, genesis string) {
	trust := []string{"--trust-genesis", genesis}
	query := func(node int, witness int, sql string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, relchainBin, append(append([]string{"query", "--verify", "--node", c.nodes[node].RPC,
			"--nodes", c.nodes[witness].RPC, sql}, trust...), args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	testTrustRoots(ctx, t, c, genesis, func(root ...string) (string, error) {
		trust = root
		defer func() { trust = []string{"--trust-genesis", genesis} }()
		return query(0, 1, "SELECT owner FROM acct WHERE id = 5")
	})
	for _, ok := range []struct {
		node int
		sql  string
		args []string
		want []string
	}{
		{0, "SELECT owner, bal FROM acct WHERE id = 3", nil, []string{"owner3", "300", "(1 rows", "guarantee: proof"}},
		{0, "SELECT * FROM acct WHERE id = $1", []string{"4"}, []string{"owner4", "guarantee: proof"}},
		{0, "SELECT owner FROM acct WHERE id = 42", nil, []string{"(0 rows", "guarantee: proof"}},
		{0, "SELECT id, owner FROM acct WHERE id BETWEEN 2 AND 4", nil, []string{"owner2", "owner3", "owner4", "(3 rows", "guarantee: proof"}},
		{0, "SELECT owner FROM acct WHERE id >= 4 AND id <= 5", nil, []string{"owner4", "owner5", "(2 rows", "guarantee: proof"}},
		{0, "SELECT count(*) FROM acct WHERE bal > 250", nil, []string{"4", "guarantee: f+1 agreement of 2 nodes"}},
	} {
		out, err := query(ok.node, 1, ok.sql, ok.args...)
		if err != nil {
			t.Fatalf("relchain query --verify %q: %v\n%s", ok.sql, err, out)
		}
		for _, w := range ok.want {
			if !strings.Contains(out, w) {
				t.Fatalf("relchain query --verify %q:\n%s\nwant %q", ok.sql, out, w)
			}
		}
	}
	for _, lie := range []struct {
		node, witness int
		sql           string
		want          string
	}{
		{1, 0, "SELECT * FROM acct WHERE id = 2", "tampered row"},
		{2, 0, "SELECT * FROM acct WHERE id BETWEEN 1 AND 5", "missing row"},
		{3, 0, "SELECT * FROM acct WHERE id = 1", "stale answer"},
		{5, 0, "SELECT * FROM acct WHERE id BETWEEN 1 AND 2", "wrong AppHash"},
		{0, 4, "SELECT owner FROM acct WHERE bal > 250", "differently"},
	} {
		out, err := query(lie.node, lie.witness, lie.sql)
		liar := c.nodes[max(lie.node, lie.witness)].RPC
		if err == nil || !strings.Contains(out, lie.want) || !strings.Contains(out, liar) {
			t.Fatalf("relchain query --verify %q on %s: %v\n%s\nwant a failure naming %s: %s", lie.sql, c.nodes[lie.node].Name, err, out, liar, lie.want)
		}
	}
}

// cell is column name of row i of r, as text.
func cell(t *testing.T, r *client.VerifiedRows, i int, name string) string {
	t.Helper()
	for j, col := range r.Columns {
		if col == name && i < len(r.Rows) {
			if v := r.Rows[i][j]; v.Kind() == rowcanon.KindText {
				return v.AsString()
			}
			return r.Rows[i][j].String()
		}
	}
	t.Fatalf("no column %s in row %d of %+v", name, i, r)
	return ""
}

// requireLie fails unless err is a *client.LieError naming node and
// wrapping want.
func requireLie(t *testing.T, err error, node string, want error) {
	t.Helper()
	var lie *client.LieError
	if !errors.As(err, &lie) || !errors.Is(err, want) || !strings.Contains(err.Error(), node) {
		t.Fatalf("got %v, want a lie of %s: %v", err, node, want)
	}
}

// testTrustRoots: a trusted height and hash verify; a wrong hash, or a
// genesis whose validators are not the chain's, fail.
func testTrustRoots(ctx context.Context, t *testing.T, c *cluster, genesis string, query func(root ...string) (string, error)) {
	h := int64(2)
	com, err := c.client(0, nil).RPC().Commit(ctx, &h)
	if err != nil {
		t.Fatal(err)
	}
	hash := com.SignedHeader.Hash()
	out, err := query("--trust-height", "2", "--trust-hash", hex.EncodeToString(hash))
	if err != nil || !strings.Contains(out, "owner5") || !strings.Contains(out, "guarantee: proof") {
		t.Fatalf("query --verify from header 2: %v\n%s", err, out)
	}
	hash[0] ^= 1
	if out, err := query("--trust-height", "2", "--trust-hash", hex.EncodeToString(hash)); err == nil || !strings.Contains(out, "light client") {
		t.Fatalf("query --verify from a wrong hash of header 2: %v\n%s; want the light client to refuse", err, out)
	}
	var g map[string]any
	b, err := os.ReadFile(genesis)
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err != nil {
		t.Fatal(err)
	}
	g["validators"].([]any)[0].(map[string]any)["power"] = "99"
	forged := filepath.Join(t.TempDir(), "genesis.json")
	if b, err = json.Marshal(g); err != nil || os.WriteFile(forged, b, 0o600) != nil {
		t.Fatalf("write %s: %v", forged, err)
	}
	if out, err := query("--trust-genesis", forged); err == nil || !strings.Contains(out, "names validators") {
		t.Fatalf("query --verify from a genesis with other validators: %v\n%s; want a refusal of header 1", err, out)
	}
}
