package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cliRun is one run of the relchain binary: its output and exit status.
type cliRun struct {
	stdout, stderr string
	code           int
}

// relchainCLI runs the relchain binary with env added to the environment
// and stdin as its standard input.
func relchainCLI(t *testing.T, env []string, stdin string, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, relchainBin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := cliRun{stdout: so.String(), stderr: se.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("relchain %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// TestCLIUsability drives the relchain CLI as a new user would, on a
// 4-validator SQLite network: nodes found through --net (nodes.json) or
// RELCHAIN_NODE, keys by name (import, export, delete), a script of
// several statements as one bc-transaction, placeholder counts checked
// before signing, errors on one stderr line, the read path's and the
// min-height timeout's explanations, status and version; and relchain-client,
// the client commands without the databases, against the same network.
func TestCLIUsability(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{permissioned: true})
	home := t.TempDir()
	env := []string{"RELCHAIN_HOME=" + home, "RELCHAIN_NODE="}
	run := func(stdin string, args ...string) cliRun {
		t.Helper()
		return relchainCLI(t, env, stdin, args...)
	}
	must := func(stdin string, args ...string) string {
		t.Helper()
		r := run(stdin, args...)
		if r.code != 0 {
			t.Fatalf("relchain %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	// The admin's key, imported by name from stdin (hex), signs by name.
	if out := must(hex.EncodeToString(c.admin), "keys", "import", "admin", "-"); !strings.HasPrefix(out, "admin ") {
		t.Fatalf("keys import printed %q", out)
	}
	// node0 down: --net picks the first node that answers.
	if err := c.net.Stop(0); err != nil {
		t.Fatal(err)
	}
	must("", "exec", "--net", c.dir, "--key", "admin", "CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)")

	// A script, from a file and from stdin, is one bc-transaction.
	script := filepath.Join(t.TempDir(), "seed.sql")
	if err := os.WriteFile(script, []byte(`-- seed; with a trigger
CREATE TABLE log (k TEXT, note TEXT);
CREATE TRIGGER kv_log AFTER INSERT ON kv BEGIN
  INSERT INTO log VALUES (new.k, 'added; by trigger');
END;
INSERT INTO kv VALUES ('a;1', 1);
INSERT INTO kv VALUES ('b', 2);
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := must("", "exec", "--net", c.dir, "--key", "admin", "-f", script)
	if strings.Count(out, "rows affected:") != 4 {
		t.Fatalf("exec -f printed %q, want 4 statements' results", out)
	}
	r := run("INSERT INTO kv VALUES ('c', 3);\nINSERT INTO kv VALUES ('a;1', 9);", "exec", "--net", c.dir, "--key", "admin", "-f", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "statement 2") {
		t.Fatalf("a script whose 2nd statement fails: exit %d, stderr %q", r.code, r.stderr)
	}
	// One error line, on stderr only.
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || strings.Contains(r.stdout, "error") {
		t.Fatalf("a failed exec printed stdout %q and stderr %q; want one error line, on stderr", r.stdout, r.stderr)
	}
	// tx HASH through --net; verify (of a running node) prints the AppHash
	// in status's case.
	var ins struct{ Hash string }
	if err := json.Unmarshal([]byte(must("", "exec", "--net", c.dir, "--key", "admin", "--output", "json", "INSERT INTO kv VALUES ('e', 5)")), &ins); err != nil || ins.Hash == "" {
		t.Fatalf("exec --output json: %v", err)
	}
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := waitFor(wctx, "the tx indexed", func() bool {
		return run("", "tx", ins.Hash, "--net", c.dir).code == 0
	}); err != nil {
		t.Fatal(err)
	}
	if v := must("", "verify", "--home", c.nodes[1].Home); !regexp.MustCompile(`app hash [0-9A-F]{64}\n`).MatchString(v) {
		t.Errorf("verify of node1: %q, want its app hash in upper-case hex", v)
	}

	// RELCHAIN_NODE: the flag beats the variable, the variable beats --net.
	envNode := append(env[:1:1], "RELCHAIN_NODE="+c.nodes[2].RPC)
	q := relchainCLI(t, envNode, "", "query", "--net", "/nonexistent", "--output", "json", "SELECT k, v FROM kv ORDER BY k")
	if q.code != 0 || !strings.Contains(q.stdout, `"b"`) || strings.Contains(q.stdout, `"c"`) {
		t.Fatalf("query through RELCHAIN_NODE: exit %d\n%s%s", q.code, q.stdout, q.stderr)
	}
	bad := append(env[:1:1], "RELCHAIN_NODE=http://127.0.0.1:1")
	if q := relchainCLI(t, bad, "", "query", "--node", c.nodes[3].RPC, "--output", "json", "SELECT count(*) FROM log"); q.code != 0 || !strings.Contains(q.stdout, "[\n    [\n      3\n    ]\n  ]") {
		t.Fatalf("--node over RELCHAIN_NODE: exit %d\n%s%s", q.code, q.stdout, q.stderr)
	}

	// Placeholders are counted before anything is signed.
	r = run("", "exec", "--net", c.dir, "--key", "admin", "INSERT INTO kv VALUES (?1, ?2)", "d")
	if r.code != 1 || !strings.Contains(r.stderr, "has 2 placeholders but 1 argument was given; nothing was sent") || r.stdout != "" {
		t.Fatalf("exec with a missing argument: exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	// The read path explains itself.
	if r = run("", "query", "--net", c.dir, "DELETE FROM kv"); r.code != 1 || !strings.Contains(r.stderr, "query is read-only: use exec") {
		t.Fatalf("query of a write: exit %d, stderr %q", r.code, r.stderr)
	}
	r = run("", "query", "--net", c.dir, "--min-height", "100000000", "--timeout", "2s", "SELECT 1")
	if r.code != 1 || !strings.Contains(r.stderr, "had not reached height 100000000 within 2s") || !strings.Contains(r.stderr, "relchain status") {
		t.Fatalf("query --min-height timeout: exit %d, stderr %q", r.code, r.stderr)
	}

	// status: peers, quorum, last block age, the network with node0 down;
	// the AppHash in upper-case hex.
	out = must("", "status", "--net", c.dir)
	for _, w := range []string{"peers:           2", "signed by 3 of 4 validators", "a quorum (> 2/3) signed it", "last block:", " ago ", "node0", "down"} {
		if !strings.Contains(out, w) {
			t.Errorf("status lacks %q:\n%s", w, out)
		}
	}
	var st struct {
		AppHash string `json:"app_hash"`
		Peers   []string
		Quorum  struct{ SignedPower, TotalPower int64 } `json:"quorum"`
	}
	if err := json.Unmarshal([]byte(must("", "status", "--net", c.dir, "--output", "json")), &st); err != nil || !regexp.MustCompile(`^[0-9A-F]{64}$`).MatchString(st.AppHash) {
		t.Errorf("status JSON: app_hash %q (%v), want 64 upper-case hex digits", st.AppHash, err)
	}

	checkClientBinary(t, env, c.dir)

	// Keys: export shows the public key unless --private; delete refuses
	// an unknown name and a deleted key no longer signs.
	pub := strings.Fields(must("", "keys", "export", "admin"))
	if len(pub) != 2 || strings.Contains(must("", "keys", "export", "admin"), "private") {
		t.Fatalf("keys export (public) printed %q", pub)
	}
	if priv := must("", "keys", "export", "admin", "--private"); !strings.Contains(priv, `"private_key"`) {
		t.Fatalf("keys export --private printed %q", priv)
	}
	if r = run("", "keys", "delete", "nobody"); r.code != 1 || !strings.Contains(r.stderr, `no key named "nobody"`) {
		t.Fatalf("keys delete of an unknown name: exit %d, stderr %q", r.code, r.stderr)
	}
	must("", "keys", "delete", "admin")
	if r = run("", "exec", "--net", c.dir, "--key", "admin", "SELECT 1"); r.code != 1 || !strings.Contains(r.stderr, `neither a key named "admin"`) {
		t.Fatalf("exec with a deleted key: exit %d, stderr %q", r.code, r.stderr)
	}

	for _, args := range [][]string{{"version"}, {"--version"}} {
		v := must("", args...)
		for _, w := range []string{"commit:", "cometbft: v0.38.", "sqlite:   3.", "pg_query_go v6", "vitess"} {
			if !strings.Contains(v, w) {
				t.Errorf("relchain %s lacks %q:\n%s", args[0], w, v)
			}
		}
	}
}

// checkClientBinary runs relchain-client, the client commands without the
// databases, against the network in dir, with node0 down: exec signs with
// the key relchain imported, query reads it back at exec's height, status
// --net lists the network from nodes.json.
func checkClientBinary(t *testing.T, env []string, dir string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "relchain-client")
	if err := buildPackage(bin, "./cmd/relchain-client"); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("relchain-client %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	var res struct{ Height int64 }
	if err := json.Unmarshal([]byte(run("exec", "--net", dir, "--key", "admin", "--output", "json", "INSERT INTO kv VALUES ('client', 7)")), &res); err != nil || res.Height < 1 {
		t.Fatalf("relchain-client exec --output json: height %d, %v", res.Height, err)
	}
	h := strconv.FormatInt(res.Height, 10)
	if q := run("query", "--net", dir, "--min-height", h, "--output", "json", "SELECT v FROM kv WHERE k = 'client'"); !strings.Contains(q, "[\n    [\n      7\n    ]\n  ]") {
		t.Fatalf("relchain-client query did not read its write back:\n%s", q)
	}
	if st := run("status", "--net", dir); !strings.Contains(st, "node0") || !strings.Contains(st, "down") {
		t.Errorf("relchain-client status --net lacks node0 down:\n%s", st)
	}
}
