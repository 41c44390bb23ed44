package e2e

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/gateway"
)

// relchain proxy (issue 36 item 4) in front of a 4-validator network
// whose node 1 tampers with the rows it proves and node 2 with the rows
// it reads (a test-hooks build, RELCHAIN_UNSAFE_BYZANTINE_READS), driven
// by pgx as an application drives PostgreSQL. Through honest nodes a
// write is signed and committed; a read by primary key comes back with a
// NOTICE that it is proven, a range of keys too, any other read with f+1
// agreement, and SHOW relchain.read_guarantee says the last. A proxy
// whose preferred node is node 1 answers the key read with SQLSTATE
// XX001 naming node 1, and one asking node 2 for agreement the aggregate,
// never with the lie. The light client trusts only the genesis file.
func TestProxyVerifiesReadsSQLite(t *testing.T) { testProxy(t, "sqlite", "postgres") }

func TestProxyVerifiesReadsPostgres(t *testing.T) { testProxy(t, "postgres", "") }

func TestProxyVerifiesReadsMySQL(t *testing.T) { testProxy(t, "mysql", "") }

func testProxy(t *testing.T, backend, dialect string) {
	env := [][]string{nil, {"RELCHAIN_UNSAFE_BYZANTINE_READS=tamper-row"}, {"RELCHAIN_UNSAFE_BYZANTINE_READS=tamper-query"}, nil}
	c := mustStartCluster(t, clusterOptions{backend: backend, dialect: dialect, testHooks: true, nodeEnv: env})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	users := filepath.Join(t.TempDir(), "users.toml")
	if _, err := gateway.AddUser(users, "alice", "pw-alice", ""); err != nil {
		t.Fatal(err)
	}
	genesis := filepath.Join(c.nodes[0].Home, "config", "genesis.json")
	honest := startProxyCommand(t, users, genesis, c.nodes[0].RPC, c.nodes[3].RPC)
	conn, notices := connectNoticed(ctx, t, pgURLAt(honest, "alice"))
	mustPgxExec(t, conn, `CREATE TABLE acct (id BIGINT PRIMARY KEY, owner TEXT NOT NULL, bal BIGINT NOT NULL)`)
	for i := int64(1); i <= 5; i++ {
		mustPgxExec(t, conn, `INSERT INTO acct (id, owner, bal) VALUES ($1, $2, $3)`, i, "owner", 100*i)
	}
	var owner string
	var bal int64
	*notices = nil
	if err := conn.QueryRow(ctx, `SELECT owner, bal FROM acct WHERE id = $1`, int64(3)).Scan(&owner, &bal); err != nil || owner != "owner" || bal != 300 {
		t.Fatalf("key read through the proxy: %q %d, %v", owner, bal, err)
	}
	mustNotice(t, notices, "relchain: proof")
	var n int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM acct WHERE id BETWEEN 2 AND 4`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("a count through the proxy: %d, %v", n, err)
	}
	mustNotice(t, notices, "relchain: f+1 agreement")
	rows, err := conn.Query(ctx, `SELECT id FROM acct WHERE id BETWEEN 2 AND 4`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) != 3 || ids[0] != 2 || ids[2] != 4 {
		t.Fatalf("key range through the proxy: %v, %v", ids, err)
	}
	mustNotice(t, notices, "relchain: proof")
	var guarantee string
	if err := conn.QueryRow(ctx, "SHOW relchain.read_guarantee").Scan(&guarantee); err != nil || !strings.HasPrefix(guarantee, "proof") {
		t.Fatalf("SHOW relchain.read_guarantee: %q, %v", guarantee, err)
	}

	mustPsqlNotice(t, honest, "SELECT owner FROM acct WHERE id = 1", "NOTICE:  relchain: proof")

	lying := startProxyCommand(t, users, genesis, c.nodes[1].RPC, c.nodes[0].RPC)
	lconn, _ := connectNoticed(ctx, t, pgURLAt(lying, "alice"))
	mustRefuteRead(ctx, t, lconn, c.nodes[1].RPC, `SELECT owner, bal FROM acct WHERE id = 3`)
	disagreeing := startProxyCommand(t, users, genesis, c.nodes[0].RPC, c.nodes[2].RPC)
	dconn, _ := connectNoticed(ctx, t, pgURLAt(disagreeing, "alice"))
	mustRefuteRead(ctx, t, dconn, c.nodes[2].RPC, `SELECT sum(bal) FROM acct`)
}

// startProxyCommand runs `relchain proxy` in front of nodes, trusting genesis,
// until the test ends, and returns its address.
func startProxyCommand(t *testing.T, users, genesis string, nodes ...string) string {
	t.Helper()
	p := exec.Command(relchainBin, "proxy", "--pg-listen", "127.0.0.1:0", "--node", strings.Join(nodes, ","), "--users", users, "--trust-genesis", genesis)
	stdout, err := p.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	p.Stderr = &stderr
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`PostgreSQL protocol on (\S+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("relchain proxy printed %q (%v) %s", line, err, stderr.String())
	}
	return m[1]
}

// connectNoticed connects pgx to url, collecting the notices it gets.
func connectNoticed(ctx context.Context, t *testing.T, url string) (*pgx.Conn, *[]string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	notices := &[]string{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { *notices = append(*notices, n.Message) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn, notices
}

// mustNotice checks that the last statement's only notice starts with
// prefix, and forgets it.
func mustNotice(t *testing.T, notices *[]string, prefix string) {
	t.Helper()
	if len(*notices) != 1 || !strings.HasPrefix((*notices)[0], prefix) {
		t.Fatalf("notices %q, want one starting %q", *notices, prefix)
	}
	*notices = nil
}

// mustRefuteRead checks that sql fails verification through conn (SQLSTATE
// XX001, naming the lying node) and returns no row.
func mustRefuteRead(ctx context.Context, t *testing.T, conn *pgx.Conn, liar, sql string) {
	t.Helper()
	rows, err := conn.Query(ctx, sql)
	if err == nil {
		for rows.Next() {
			t.Errorf("%s: a row of a read that failed verification: %v", sql, rows.RawValues())
		}
		rows.Close()
		err = rows.Err()
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "XX001" || !strings.Contains(pe.Message, liar) {
		t.Fatalf("%s through a lying node: %v; want SQLSTATE XX001 naming %s", sql, err, liar)
	}
}

// mustPsqlNotice runs sql with psql, unmodified, through the proxy at
// addr and checks that psql shows the notice want.
func mustPsqlNotice(t *testing.T, addr, sql, want string) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql is not installed (scripts/deps.sh installs postgresql-client): %v", err)
	}
	cmd := exec.Command(psql, psqlConn(addr, "alice"), "-X", "-c", sql)
	cmd.Env = append(os.Environ(), "PGPASSWORD=pw-alice")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("psql %q through the proxy: %v\n%s\nwant %q", sql, err, out, want)
	}
}
