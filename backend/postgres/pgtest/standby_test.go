package pgtest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// TestSynchronousStandbyHasEveryCommit starts a primary and one standby
// made synchronous with remote_apply: a row is on the standby as soon as
// the primary's INSERT returns, and the standby refuses writes.
func TestSynchronousStandbyHasEveryCommit(t *testing.T) {
	if _, err := pgtest.FindBinDir(); err != nil {
		t.Fatalf("%v: run `make test`, which installs PostgreSQL", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil { // the postgres user must reach it
			t.Fatal(err)
		}
	}
	primary, err := pgtest.Start(ctx, filepath.Join(dir, "primary"), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Stop()
	standby, err := pgtest.StartStandby(ctx, filepath.Join(dir, "s1"), primary, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Stop()
	if err := pgtest.Synchronous(ctx, primary, "remote_apply", "s1"); err != nil {
		t.Fatal(err)
	}
	p := connect(ctx, t, primary)
	s := connect(ctx, t, standby)
	if _, err := p.Exec(ctx, "CREATE TABLE t (k int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 20; k++ {
		if _, err := p.Exec(ctx, "INSERT INTO t VALUES ($1)", k); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != k {
			t.Fatalf("after the primary committed row %d the standby holds %d rows: not remote_apply", k, n)
		}
	}
	if _, err := s.Exec(ctx, "INSERT INTO t VALUES (0)"); err == nil {
		t.Fatal("the standby accepted a write")
	}
}

func connect(ctx context.Context, t *testing.T, s *pgtest.Server) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}
