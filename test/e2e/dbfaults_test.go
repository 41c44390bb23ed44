package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

func TestParseManifestChecksTheDatabaseFaults(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[[perturb]]\nat = \"5s\"\naction = \"db-disconnect\"\nnode = 1", "needs a database server"},
		{"backend = \"postgres\"\n[[perturb]]\nat = \"5s\"\naction = \"db-kill\"\nnode = 1", "db-kill needs for"},
		{"backend = \"mysql\"\n[[perturb]]\nat = \"5s\"\naction = \"shared-db-kill\"\nnode = 1\nfor = \"2s\"", "takes no node"},
		{"backend = \"mysql\"\n[[perturb]]\nat = \"5s\"\naction = \"db-kill\"\nnode = 1\nfor = \"2s\"\n[[perturb]]\nat = \"9s\"\naction = \"shared-db-kill\"\nfor = \"2s\"", "not both"},
		{"[[perturb]]\nat = \"5s\"\naction = \"restart-all\"\nfor = \"2s\"", "cannot be undone"},
		{"[[perturb]]\nat = \"5s\"\naction = \"statesync-kill\"", "statesync-kill needs for"},
		{"[[perturb]]\nat = \"5s\"\naction = \"db-restart\"\nnode = 1", "undo of a fault"},
	} {
		_, err := ParseManifest(withMinAcked(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseManifest(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
	m, err := ParseManifest(withMinAcked("backend = \"postgres\"\n[[perturb]]\nat = \"5s\"\naction = \"db-disconnect\"\nnode = 1\n[[perturb]]\nat = \"6s\"\naction = \"db-disconnect\"\nnode = 2\nfor = \"2s\""))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Perturb[0].isInstant() || m.Perturb[1].isInstant() || undoOf(ActDBDisconnect) != ActDBReconnect {
		t.Errorf("db-disconnect without for is instant, with for a window undone by db-reconnect")
	}
}

// The database connection fault ends a real session on the shared test
// server (a database of the test's own) and confirms it; with no session
// it refuses to count as a fault.
func TestTerminatePostgresEndsTheNodesSessions(t *testing.T) {
	dsn := pgtest.AdminDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := serverKinds["postgres"].database(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := terminatePostgres(ctx, dsn, db, 3); err == nil || !strings.Contains(err.Error(), "node3 has no connection") {
		t.Fatalf("no session: %v, want an error", err)
	}
	node, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close(context.Background())
	if err := terminatePostgres(ctx, dsn, db, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := node.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("the node's session survived its termination")
	}
}

func TestKillMySQLConnectionsEndsTheNodesSessions(t *testing.T) {
	dsn := mysqltest.AdminDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := serverKinds["mysql"].database(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := killMySQLConnections(ctx, dsn, db, 2); err == nil || !strings.Contains(err.Error(), "node2 has no connection") {
		t.Fatalf("no session: %v, want an error", err)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sdb := sql.OpenDB(conn)
	defer sdb.Close()
	node, err := sdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	if err := node.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := killMySQLConnections(ctx, dsn, db, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := node.ExecContext(ctx, "SELECT 1"); err == nil {
		t.Fatal("the node's session survived KILL CONNECTION")
	}
}

// A manifest over several engines names one per validator, and runs node
// and network faults only: the database faults and tamper's rebuild
// assume one engine.
func TestParseManifestChecksSeveralEngines(t *testing.T) {
	const mixed = "backends = [\"postgres\", \"postgres\", \"sqlite\", \"sqlite\"]\n"
	for _, tc := range []struct{ text, want string }{
		{"validators = 3\n" + mixed, "lists 4 engines for 3 validators"},
		{"backends = [\"postgres\", \"oracle\"]\n", "oracle"},
		{mixed + "[[perturb]]\nat = \"5s\"\naction = \"db-kill\"\nnode = 1\nfor = \"2s\"", "db-kill on a network over several engines"},
		{mixed + "[[perturb]]\nat = \"5s\"\naction = \"tamper\"\nnode = 2\nfor = \"2s\"", "tamper on a network over several engines"},
	} {
		_, err := ParseManifest(withMinAcked(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseManifest(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
	m, err := ParseManifest(withMinAcked(mixed + "[[perturb]]\nat = \"5s\"\naction = \"kill\"\nnode = 0\nfor = \"2s\""))
	if err != nil {
		t.Fatal(err)
	}
	if m.Validators != 4 || !m.mixed() || m.engines() != "postgres,postgres,sqlite,sqlite" {
		t.Errorf("a manifest over several engines: %d validators, engines %q", m.Validators, m.engines())
	}
}
