package e2e

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/node"
)

// The CLI as an operator uses it: `relchain gateway users add` gives a
// node's listener a new user (picked up at restart), and `relchain
// gateway` serves the same users file in front of the network.
func TestGatewayCLI(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	home := c.nodes[1].Home
	add := exec.Command(relchainBin, "gateway", "users", "add", "carol", "--home", home, "--password-stdin")
	add.Stdin = strings.NewReader("pw-carol\n")
	out, err := add.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "public key") {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	list, err := exec.Command(relchainBin, "gateway", "users", "list", "--home", home).CombinedOutput()
	if err != nil || !strings.Contains(string(list), "carol\t") || !strings.Contains(string(list), "alice\t") {
		t.Fatalf("users list: %v\n%s", err, list)
	}
	if err := c.net.Stop(1); err != nil {
		t.Fatal(err)
	}
	if err := c.net.Start(1); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.pgURL(1, "carol"))
	if err != nil {
		t.Fatalf("carol after the restart: %v", err)
	}
	mustPgxExec(t, conn, `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`)
	// The gateway below writes through nodes 2 and 3: they must hold the
	// table first (a node answers from its own committed state).
	var shown string
	if err := conn.QueryRow(ctx, `SHOW relchain.last_commit_height`).Scan(&shown); err != nil {
		t.Fatalf("SHOW relchain.last_commit_height after CREATE TABLE: %v", err)
	}
	created, err := strconv.ParseInt(shown, 10, 64)
	if err != nil || created <= 0 {
		t.Fatalf("relchain.last_commit_height after CREATE TABLE = %q, want a height", shown)
	}
	conn.Close(ctx)
	for _, i := range []int{2, 3} {
		if err := c.net.WaitHeight(ctx, i, created); err != nil {
			t.Fatal(err)
		}
	}

	addr := startGatewayCommand(t, node.PGConfig{}.UsersFile(home), c.nodes[2].RPC, c.nodes[3].RPC)
	conn, err = pgx.Connect(ctx, pgURLAt(addr, "carol"))
	if err != nil {
		t.Fatalf("carol through relchain gateway: %v", err)
	}
	defer conn.Close(ctx)
	mustPgxExec(t, conn, `INSERT INTO notes (id, body) VALUES ($1, $2)`, int64(1), "hello")
	var body string
	if err := conn.QueryRow(ctx, `SELECT body FROM notes WHERE id = $1`, int64(1)).Scan(&body); err != nil || body != "hello" {
		t.Fatalf("read back %q, %v", body, err)
	}
}

// startGatewayCommand runs `relchain gateway` in front of nodes with the
// users file users until the test ends, and returns its address.
func startGatewayCommand(t *testing.T, users string, nodes ...string) string {
	t.Helper()
	gw := exec.Command(relchainBin, "gateway", "--pg-listen", "127.0.0.1:0", "--node", strings.Join(nodes, ","), "--users", users)
	stdout, err := gw.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gw.Process.Kill(); _ = gw.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`PostgreSQL protocol on (\S+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("relchain gateway printed %q (%v)", line, err)
	}
	return m[1]
}

// `relchain gateway` classifies with PostgreSQL's parser
// (sqlcheck/pgclass): catalog reads inside a transaction are answered on
// the read path, as through a node's listener. With
// gateway.Conservative they would stay refused.
func TestGatewayCLIClassifies_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: "postgres", pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	mustPgxExec(t, conn, `CREATE TABLE acct (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`)
	addr := startGatewayCommand(t, node.PGConfig{}.UsersFile(c.nodes[0].Home), c.nodes[0].RPC)
	cmdConn, err := pgx.Connect(ctx, pgURLAt(addr, "alice"))
	if err != nil {
		t.Fatalf("alice through relchain gateway: %v", err)
	}
	defer cmdConn.Close(context.Background())
	checkCatalogReadsInTransaction(t, ctx, cmdConn)
}
