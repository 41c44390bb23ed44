package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// psql (Debian's client, unmodified) drives a node's PostgreSQL listener
// with a script: a table, rows, \d, a transaction, a refused statement's
// error text, \q.
func TestGatewayPsql(t *testing.T) {
	onBackends(t, notOn{"mysql": gatewayNotOnMySQL}, testGatewayPsql)
}

// refusedByGate is a statement each backend's gate refuses, and a word
// of the refusal.
var refusedByGate = map[string][2]string{
	"sqlite":   {"ATTACH DATABASE '/etc/passwd' AS x;", "ATTACH"},
	"postgres": {"SELECT pg_read_file('/etc/passwd');", "pg_read_file"},
}

func testGatewayPsql(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql is not installed (scripts/deps.sh installs postgresql-client): %v", err)
	}
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	script := `CREATE TABLE acct (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, bal INTEGER NOT NULL);
INSERT INTO acct (id, owner, bal) VALUES (1, 'ann', 100), (2, 'bo', 50);
\d acct
BEGIN;
SELECT bal FROM acct WHERE id = 1;
UPDATE acct SET bal = bal - 30 WHERE id = 1;
UPDATE acct SET bal = bal + 30 WHERE id = 2;
COMMIT;
SELECT id, owner, bal FROM acct ORDER BY id;
%s
\q
`
	refusal := refusedByGate[backend]
	script = fmt.Sprintf(script, refusal[0])
	cmd := exec.Command(psql, psqlConn(c.pgAddr(1), "alice"), "-X", "-v", "ON_ERROR_STOP=0")
	cmd.Env = append(os.Environ(), "PGPASSWORD="+pgPassword("alice"))
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	text := string(out)
	t.Logf("psql:\n%s", text)
	if err != nil {
		t.Fatalf("psql: %v", err)
	}
	for _, want := range []string{"CREATE TABLE", "INSERT 0 2", "BEGIN", "UPDATE 1", "COMMIT", "(2 rows)"} {
		if !strings.Contains(text, want) {
			t.Errorf("psql's output lacks %q", want)
		}
	}
	// Read-your-writes: the session's read after COMMIT shows the transfer.
	if !strings.Contains(text, "1 | ann   |  70") || !strings.Contains(text, "2 | bo    |  80") {
		t.Errorf("the read after COMMIT does not show the transfer")
	}
	if !strings.Contains(text, "ERROR:") || !strings.Contains(text, refusal[1]) {
		t.Errorf("%s was not refused with an error naming %s", refusal[0], refusal[1])
	}
	if backend == "postgres" {
		if !strings.Contains(text, `Table "public.acct"`) || !strings.Contains(text, "owner") {
			t.Errorf("\\d acct does not describe the table on a PostgreSQL network")
		}
	} else if !strings.Contains(text, "catalog queries") {
		t.Errorf("\\d acct on %s does not name the limitation", backend)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, rows := c.consistentRead(ctx, "SELECT id, bal FROM acct ORDER BY id")
	c.requireSameRows(h, "acct", rows[0])
}
