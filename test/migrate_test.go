package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// TestValidatorChangesEngineUnderLoad (issue 37): on a network of two
// PostgreSQL validators, a MariaDB and a SQLite one (protocol version 5),
// the SQLite validator is stopped under a write load, moved to PostgreSQL
// with `relchain migrate` and started again, then moved on to MariaDB: no
// new genesis, the others never stop. It catches up on each engine, and
// every node holds every acknowledged write exactly once, with the same
// AppHash. (MariaDB's translation has no serial columns: the log is keyed
// by writer and sequence number, and the counter counts every applied
// write.)
func TestValidatorChangesEngineUnderLoad(t *testing.T) {
	const phase = 40
	c := mustStartCluster(t, clusterOptions{backends: []string{"postgres", "postgres", "mysql", "sqlite"}, consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE log (writer INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (writer, seq))"))
	c.mustExec(ctx, 0, stmt("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO counter (id, n) VALUES (1, 0)"))
	l := startLoad(t, c, []int{0, 1, 2})
	must := func(err error) {
		t.Helper()
		if err != nil {
			l.stopAndWait()
			t.Fatalf("%v (load: %s)", err, l.summary())
		}
	}
	must(l.waitAcked(ctx, phase))
	const mover, mariaNode = 3, 2
	// a database named as the cluster names its own (dropped with them)
	mariaDSN := strings.ReplaceAll(c.dsnTemplates[mariaNode], "{node}", "node3moved")
	must(createMariaDBDatabase(ctx, mariaDSN))
	for _, to := range []struct{ backend, dsn string }{
		{"postgres", strings.ReplaceAll(c.pgDSN, "{node}", "node3moved")},
		{"mysql", mariaDSN},
	} {
		must(c.net.Stop(mover))
		out := cliOut(t, ctx, relchainBin, "migrate", "--home", c.nodes[mover].Home, "--to-backend", to.backend, "--dsn", to.dsn)
		t.Logf("%s", strings.TrimSpace(out))
		must(c.net.Start(mover))
		target := c.maxHeight(ctx, 0, 1, 2)
		must(c.net.WaitHeight(ctx, mover, target))
		st, err := c.client(mover, nil).Status(ctx)
		must(err)
		if st.Backend != to.backend {
			t.Fatalf("%s runs %s after the move to %s", c.nodes[mover].Name, st.Backend, to.backend)
		}
		t.Logf("%s on %s reached height %d (load: %s)", c.nodes[mover].Name, to.backend, target, l.summary())
		must(l.waitAcked(ctx, l.ackedCount()+phase))
	}
	l.stopAndWait()
	if len(l.unexpected) > 0 {
		t.Fatalf("valid writes failed with a result code: %v", l.unexpected[:min(5, len(l.unexpected))])
	}
	requireLoadApplied(ctx, t, c, l)
}

// createMariaDBDatabase creates the empty database dsn names (utf8mb4,
// binary collation, as relchain's MySQL backend wants it) on its server.
func createMariaDBDatabase(ctx context.Context, dsn string) error {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("parse %s: %w", dsn, err)
	}
	name := cfg.DBName
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}
