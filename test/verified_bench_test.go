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

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/txn"
)

// BenchmarkPointRead compares a point read's latency unverified (/query)
// and verified (VerifiedGet: the catalog's key columns, the light
// client's newest header, /proof, the header, the proof) on a
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
