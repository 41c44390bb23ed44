package e2e

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/netctl"
)

// relchain checkpoint and backup run against a live validator; damaged
// backups (truncated, a byte of the data flipped, the manifest's AppHash
// altered) are refused with nothing written; the good one restored into a
// new node home (add-node) verifies against the chain, the node starts from
// the backup's height, follows the network and `relchain verify` passes.
// relchain dump of a validator, run in a fresh SQLite database, gives its
// rows. On PostgreSQL the checkpoints are pg_dump's, on MySQL relchain's
// own dump format, both restored into a database beside the node's.
func TestBackupRestore(t *testing.T) { onBackendsSampled(t, testBackupRestore) }

func testBackupRestore(t *testing.T, backend string) {
	c := mustStartCluster(t, clusterOptions{backend: backend})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if backend == "sqlite" {
		c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL, note TEXT, rate REAL, raw BLOB)"))
		c.mustExec(ctx, 0, stmt("CREATE INDEX acct_bal ON acct (bal)"))
	} else if backend == "postgres" {
		c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL, note TEXT, rate DOUBLE PRECISION, raw BYTEA)"))
	} else {
		c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL, note TEXT, rate DECIMAL(10, 2), raw BLOB)"))
	}
	for i := 1; i <= 12; i++ {
		raw := fmt.Sprintf("X'00FF%02X'", i)
		if backend == "postgres" {
			raw = fmt.Sprintf(`'\\x00ff%02x'::bytea`, i)
		}
		c.mustExec(ctx, i%validators, stmt(fmt.Sprintf("INSERT INTO acct (id, bal, note, rate, raw) VALUES (%d, %d, 'it''s #%d', %d.25, %s)", i, 100*i, i, i, raw)))
	}
	home0 := c.nodes[0].Home

	// A checkpoint on demand, of the running node.
	out := mustRun(t, "checkpoint", "--home", home0)
	m := regexp.MustCompile(`checkpoint at height (\d+): (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("checkpoint printed %q", out)
	}
	if _, err := os.Stat(m[2]); err != nil {
		t.Fatalf("the checkpoint it names: %v", err)
	}

	// A backup of the running node.
	dir := t.TempDir()
	good := filepath.Join(dir, "node0.backup")
	out = mustRun(t, "backup", "--home", home0, "--output", good)
	if !strings.Contains(out, "backed up height") {
		t.Fatalf("backup printed %q", out)
	}
	// Blocks past the backup: the chain confirms its AppHash (height+1)
	// and the light client needs height+2.
	for i := 0; i < 3; i++ {
		c.mustExec(ctx, 1, stmt(fmt.Sprintf("UPDATE acct SET bal = bal + 1 WHERE id = %d", i+1)))
	}

	addNode := []string{"add-node", "--net", c.dir, "--name", "node4"}
	if backend != "sqlite" {
		addNode = append(addNode, "--dsn", strings.ReplaceAll(c.pgDSN, "{node}", "node4"))
	}
	mustRun(t, addNode...)
	info := loadNode(t, c.dir, "node4")
	db := filepath.Join(info.Home, "data", "relchain.db") // SQLite: stays absent
	damaged := damagedBackups(t, good, dir)
	if backend == "sqlite" {
		damaged["resealed"] = resealedBackup(t, good, dir)
	}
	for name, bad := range damaged {
		out, err := exec.Command(relchainBin, "restore", "--backup", bad, "--home", info.Home, "--node", c.nodes[0].RPC).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "refused backup") {
			t.Fatalf("restore of the %s backup: %v\n%s", name, err, out)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("restore of the %s backup left a database: %v", name, err)
		}
		t.Logf("%s backup: %s", name, strings.TrimSpace(string(out)))
	}

	out = mustRun(t, "restore", "--backup", good, "--home", info.Home, "--node", c.nodes[0].RPC)
	if !strings.Contains(out, "the chain's, from "+c.nodes[0].RPC) {
		t.Fatalf("restore did not confirm the AppHash with the chain:\n%s", out)
	}
	joiner := c.net.Add(info)
	c.nodes = c.net.Nodes
	if err := c.net.Start(joiner); err != nil {
		t.Fatal(err)
	}
	c.mustExec(ctx, 2, stmt("INSERT INTO acct (id, bal) VALUES (100, 1)"))
	target := c.maxHeight(ctx, 0, 1, 2, 3)
	if err := c.net.WaitHeight(ctx, joiner, target); err != nil {
		t.Fatalf("node 4 after restore: %v", err)
	}
	rpc, err := rpchttp.New(info.RPC, "/websocket")
	if err != nil {
		t.Fatal(err)
	}
	st, err := rpc.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.SyncInfo.EarliestBlockHeight <= 1 {
		t.Fatalf("node 4's block store starts at height %d: it replayed from genesis instead of the backup", st.SyncInfo.EarliestBlockHeight)
	}
	h, got := c.consistentRead(ctx, "SELECT id, bal, note FROM acct ORDER BY id")
	c.requireSameRows(h, "acct", got[0])
	if err := c.net.Stop(joiner); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(joiner, true, "")

	testRestoreOverAValidator(ctx, t, c, good)
	if backend == "sqlite" {
		testDump(t, c)
	} else {
		testServerDump(t, c, backend)
	}
}

// testServerDump runs relchain dump of node 1 (running) on a server
// backend: the table and all its rows, as INSERTs in primary-key order,
// none of relchain's objects. The backend packages' tests run dumps into
// fresh databases.
func testServerDump(t *testing.T, c *cluster, backend string) {
	cmd := exec.Command(relchainBin, "dump", "--home", c.nodes[1].Home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dump: %v\n%s", err, stderr.String())
	}
	sql := string(out)
	if strings.Contains(sql, "relchain_") || strings.Contains(sql, "relchain.") || strings.Contains(strings.ToUpper(sql), "TRIGGER") {
		t.Fatalf("the dump holds relchain's own objects:\n%s", sql)
	}
	// Rows in primary-key order.
	last := -1
	for i := 1; i <= 12; i++ {
		at := strings.Index(sql, fmt.Sprintf("it''s #%d'", i))
		if at <= last {
			t.Fatalf("row %d missing or out of primary-key order:\n%s", i, sql)
		}
		last = at
	}
	raw := `X'00ff0c'`
	if backend == "postgres" {
		// The test's '\\x00ff0c' literal is the bytes of the text \x00ff0c.
		raw = `E'\\x5c78303066663063'`
	}
	if !strings.Contains(sql, "CREATE TABLE") || !strings.Contains(sql, "it''s #12") || !strings.Contains(sql, raw) {
		t.Fatalf("the dump lacks the table or its values:\n%s", sql)
	}
	t.Logf("dump (%s): %d bytes", strings.TrimSpace(stderr.String()), len(sql))
}

// testRestoreOverAValidator restores the backup over validator 3's own
// database (stopped, past the backup's height): refused without --force;
// with it, the database is set aside, the chain's AppHash comes from the
// node's block store, and the node replays the blocks after the backup and
// rejoins.
func testRestoreOverAValidator(ctx context.Context, t *testing.T, c *cluster, backup string) {
	const v = 3
	if err := c.net.Stop(v); err != nil {
		t.Fatal(err)
	}
	home := c.nodes[v].Home
	out, err := exec.Command(relchainBin, "restore", "--backup", backup, "--home", home).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "give --force") {
		t.Fatalf("restore over a database with blocks, without --force: %v\n%s", err, out)
	}
	out = []byte(mustRun(t, "restore", "--backup", backup, "--home", home, "--force"))
	if !strings.Contains(string(out), "from block store") || !strings.Contains(string(out), "the replaced database is") {
		t.Fatalf("restore --force:\n%s", out)
	}
	if err := c.net.Start(v); err != nil {
		t.Fatal(err)
	}
	c.mustExec(ctx, 0, stmt("INSERT INTO acct (id, bal) VALUES (101, 1)"))
	target := c.maxHeight(ctx, 0, 1, 2)
	if err := c.net.WaitHeight(ctx, v, target); err != nil {
		t.Fatalf("node 3 after restore: %v", err)
	}
	if err := c.net.Stop(v); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(v, true, "")
}

// testDump runs relchain dump of node 1 (running) into a fresh SQLite
// database, with node 1 stopped after it and compares every row.
func testDump(t *testing.T, c *cluster) {
	home := c.nodes[1].Home
	cmd := exec.Command(relchainBin, "dump", "--home", home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	sql, err := cmd.Output()
	if err != nil {
		t.Fatalf("dump: %v\n%s", err, stderr.String())
	}
	if bytes.Contains(sql, []byte("relchain_")) {
		t.Fatalf("the dump holds relchain's own objects:\n%s", sql)
	}
	if err := c.net.Stop(1); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	f, err := sqlite3.Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Exec(string(sql)); err != nil {
		t.Fatalf("run the dump: %v\n%s", err, sql)
	}
	n, err := sqlite3.Open(filepath.Join(home, "data", "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	const q = "SELECT id, bal, quote(note), quote(rate), quote(raw), typeof(rate) FROM acct ORDER BY id"
	want, got := rowsOf(t, n, q), rowsOf(t, f, q)
	if want != got || !strings.Contains(want, "X'00FF0C'") {
		t.Fatalf("rows after the dump:\n%s\nthe node's:\n%s", got, want)
	}
	if idx := rowsOf(t, f, "SELECT name FROM sqlite_schema WHERE type = 'index'"); !strings.Contains(idx, "acct_bal") {
		t.Fatalf("the dump lost the index: %q", idx)
	}
	t.Logf("dump (%s): %d bytes, the same %d rows", strings.TrimSpace(stderr.String()), len(sql), strings.Count(want, "\n"))
}

func rowsOf(t *testing.T, db *sqlite3.Conn, q string) string {
	t.Helper()
	st, _, err := db.Prepare(q)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var b strings.Builder
	for st.Step() {
		for i := range st.ColumnCount() {
			fmt.Fprintf(&b, "%s|", st.ColumnText(i))
		}
		b.WriteString("\n")
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// damagedBackups writes damaged copies of the backup good into dir.
func damagedBackups(t *testing.T, good, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name+".backup")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	write("truncated", b[:len(b)/2])
	flipped := bytes.Clone(b)
	// The tar ends with two zero blocks after the checkpoint's data padded
	// to 512 bytes: 1,000 bytes before them is inside the data.
	flipped[len(flipped)-1024-1000] ^= 0x01
	write("flipped", flipped)
	write("altered-manifest", alterManifest(t, b))
	return out
}

// resealedBackup writes a copy of the SQLite backup good whose checkpoint
// has a row changed (its capture trigger dropped first, so only the state
// digest can tell), with the manifest's size and SHA-256 made to match.
func resealedBackup(t *testing.T, good, dir string) string {
	t.Helper()
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "resealed.backup")
	out := rewriteBackup(t, b, func(m map[string]any, data []byte) []byte {
		f := filepath.Join(dir, "resealed.db")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := sqlite3.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"DROP TRIGGER IF EXISTS relchain_cap_u_acct", "UPDATE acct SET bal = 0 WHERE id = 1"} {
			if err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		db.Close()
		data, err = os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		m["size"], m["sha256"] = len(data), hex.EncodeToString(sum[:])
		return data
	})
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// alterManifest rewrites a backup with another AppHash in its manifest.
func alterManifest(t *testing.T, b []byte) []byte {
	t.Helper()
	return rewriteBackup(t, b, func(m map[string]any, data []byte) []byte {
		m["app_hash"] = strings.Repeat("ab", 32)
		return data
	})
}

// rewriteBackup rewrites a backup: edit gets the manifest (to change) and
// the checkpoint's bytes, and returns the checkpoint to write.
func rewriteBackup(t *testing.T, b []byte, edit func(m map[string]any, data []byte) []byte) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	h, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	mj, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(mj, &m); err != nil {
		t.Fatal(err)
	}
	h2, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	data = edit(m, data)
	mj, _ = json.Marshal(m)
	h.Size, h2.Size = int64(len(mj)), int64(len(data))
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range []struct {
		h *tar.Header
		b []byte
	}{{h, mj}, {h2, data}} {
		if err := tw.WriteHeader(e.h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(relchainBin, args...)
	// Keys a command makes by default go to a home of the test's own.
	cmd.Env = append(os.Environ(), "RELCHAIN_HOME="+filepath.Join(t.TempDir(), "relchain"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("relchain %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("relchain %s: %s", args[0], strings.TrimSpace(string(out)))
	return string(out)
}

func loadNode(t *testing.T, dir, name string) netctl.NodeInfo {
	t.Helper()
	nodes, err := netctl.LoadNodes(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("%s is not in %s/nodes.json", name, dir)
	return netctl.NodeInfo{}
}
