package e2e

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cometbft/cometbft/libs/log"
	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/proxy"
	"github.com/relchain/relchain/sqlcheck/pgclass"
	"github.com/relchain/relchain/txn"
)

// BenchmarkPointRead compares a point read's latency unverified (/query)
// and verified (VerifiedGet: /proof and the proof's check against the
// header after it; the table's key columns are cached after the first
// read, the header is fetched once per block, the light client's newest
// header at most every client.DefaultHeadAge), and through
// pgx: a gateway (unverified) and relchain proxy's verifying gateway, on a
// one-validator SQLite network (postgres dialect) in this process, 1,000
// rows. It reports the median (p50-ns/op) beside ns/op:
//
//	go test -run '^$' -bench BenchmarkPointRead -benchtime 300x ./test
func BenchmarkPointRead(b *testing.B) {
	url, genesis := startBenchNode(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	c, err := client.New(url, key)
	if err != nil {
		b.Fatal(err)
	}
	exec := func(sql string) {
		if res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: sql}); err != nil || !res.OK() {
			b.Fatalf("%s: %v %v", sql, err, res)
		}
	}
	exec("CREATE TABLE acct (id BIGINT PRIMARY KEY, owner TEXT NOT NULL, bal BIGINT NOT NULL)")
	exec("INSERT INTO acct SELECT g, 'owner' || g, g * 10 FROM generate_series(1, 1000) g")
	root, err := lightverify.FromGenesis(genesis)
	if err != nil {
		b.Fatal(err)
	}
	v, err := lightverify.New(ctx, root, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unverified", func(b *testing.B) {
		timed(b, func(i int) error {
			_, err := c.Query(ctx, 0, "SELECT * FROM acct WHERE id = $1", int64(i%1000+1))
			return err
		})
	})
	b.Run("verified", func(b *testing.B) {
		timed(b, func(i int) error {
			r, err := c.VerifiedGet(ctx, v, client.VerifyOptions{}, "acct", i%1000+1)
			if err == nil && len(r.Rows) != 1 {
				err = fmt.Errorf("%d rows", len(r.Rows))
			}
			return err
		})
	})
	users := filepath.Join(b.TempDir(), "users.toml")
	if _, err := gateway.AddUser(users, "alice", "pw-alice", ""); err != nil {
		b.Fatal(err)
	}
	pv, err := proxy.NewVerifier(ctx, root, []string{url}, proxy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, through := range []struct {
		name     string
		verifier gateway.ReadVerifier
	}{{"gateway", nil}, {"proxy", pv}} {
		b.Run(through.name, func(b *testing.B) {
			conn := benchGatewayConn(ctx, b, url, users, through.verifier)
			timed(b, func(i int) error {
				var owner string
				return conn.QueryRow(ctx, "SELECT owner FROM acct WHERE id = $1", int64(i%1000+1)).Scan(&owner)
			})
		})
	}
}

// benchGatewayConn starts a gateway in this process in front of url (a
// verifying one, relchain proxy's, when v is set) and connects pgx to it.
func benchGatewayConn(ctx context.Context, b *testing.B, url, users string, v gateway.ReadVerifier) *pgx.Conn {
	g, err := gateway.Start(ctx, gateway.Config{Listen: "127.0.0.1:0", Nodes: []string{url}, UsersFile: users, Classifier: pgclass.Classifier{}, Verifier: v})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = g.Close() })
	conn, err := pgx.Connect(ctx, pgURLAt(g.Addr().String(), "alice"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// timed runs op b.N times and reports the median latency.
func timed(b *testing.B, op func(i int) error) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns/op")
}

// startBenchNode starts a one-validator network of the postgres SQL
// dialect on SQLite in this process; its RPC URL and genesis file.
func startBenchNode(b *testing.B) (string, string) {
	opts := netctl.Options{Validators: 1, Dir: filepath.Join(b.TempDir(), "net"), Backend: "sqlite"}
	opts.Params.SQLDialect = "postgres"
	nodes, err := netctl.Generate(opts)
	if err != nil {
		b.Fatal(err)
	}
	n, err := node.New(context.Background(), nodes[0].Home, log.NewNopLogger())
	if err != nil {
		b.Fatal(err)
	}
	if err := n.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = n.Stop() })
	return nodes[0].RPC, filepath.Join(nodes[0].Home, "config", "genesis.json")
}
