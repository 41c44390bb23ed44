package node

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cometbft/cometbft/libs/log"
	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/app/workloadtest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/sqlcheck/pgclass"
	"github.com/relchain/relchain/txn"
)

// benchAccounts is the size of the point SELECT benchmark's table.
const benchAccounts = 1000

// BenchmarkListenerPointSelect measures a point SELECT by primary key
// (pgx, prepared) through the PostgreSQL listener's read path in process
// (pgwire, the gateway session, App.Read, the backend's query pool) on a
// PostgreSQL-backed executor, and the same SELECT on the raw server over
// loopback TCP: the overhead of the listener without consensus traffic.
// Run with -count to alternate the two:
//
//	go test ./node -run '^$' -bench ListenerPointSelect -count 5
func BenchmarkListenerPointSelect(b *testing.B) {
	ctx := context.Background()
	chain := workloadtest.NewChain(b, "postgres")
	mustCommit(b, chain, "CREATE TABLE bench_acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)")
	mustCommit(b, chain, fmt.Sprintf("INSERT INTO bench_acct SELECT g, 1000 FROM generate_series(1, %d) g", benchAccounts))
	a := app.New(chain.Executor(), log.NewNopLogger())

	users := filepath.Join(b.TempDir(), "users.json")
	if _, err := gateway.AddUser(users, "bench", "bench-pw", ""); err != nil {
		b.Fatal(err)
	}
	gw, err := gateway.Start(ctx, gateway.Config{Classifier: pgclass.Classifier{}, Listen: "127.0.0.1:0", Nodes: []string{"http://127.0.0.1:1"},
		Local: a.Query, LocalRead: appReader(a), Dialect: "postgres", UsersFile: users})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = gw.Close() })

	rawDSN := pgtest.DSN(b)
	raw := connect(b, rawDSN)
	for _, q := range []string{"CREATE TABLE bench_acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)",
		fmt.Sprintf("INSERT INTO bench_acct SELECT g, 1000 FROM generate_series(1, %d) g", benchAccounts)} {
		if _, err := raw.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	listener := connect(b, "postgres://bench:bench-pw@"+gw.Addr().String()+"/relchain?sslmode=disable")
	b.Run("listener", func(b *testing.B) { pointSelects(b, listener) })
	b.Run("raw", func(b *testing.B) { pointSelects(b, raw) })
}

func mustCommit(b *testing.B, chain *workloadtest.Chain, sql string) {
	b.Helper()
	if r := chain.Block([]txn.Statement{{SQL: sql}})[0]; r.Code != api.CodeOK {
		b.Fatalf("%s: code %d: %s", sql, r.Code, r.Log)
	}
}

func connect(b *testing.B, dsn string) *pgx.Conn {
	b.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		b.Fatalf("connect %s: %v", dsn, err)
	}
	b.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func pointSelects(b *testing.B, c *pgx.Conn) {
	ctx := context.Background()
	var bal int64
	for i := 0; b.Loop(); i++ {
		if err := c.QueryRow(ctx, "SELECT bal FROM bench_acct WHERE id = $1", int64(i%benchAccounts)+1).Scan(&bal); err != nil {
			b.Fatal(err)
		}
		if bal != 1000 {
			b.Fatalf("bal %d, want 1000", bal)
		}
	}
}
