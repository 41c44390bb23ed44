package e2e

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/statedigest"
)

func TestTamperedNodeIsCaught(t *testing.T) { onBackendsSampled(t, testTamperedNodeIsCaught) }

// testTamperedNodeIsCaught changes node 3's database outside the chain:
//   - with relchain's capture triggers dropped first, an UPDATE leaves no
//     trace but the row: `relchain verify` names the table and fails;
//   - with the triggers active, `relchain verify` fails too, and once the
//     node runs again its next block refuses to start on the change records
//     no block made: the node stops by itself before applying anything,
//     exits non-zero naming the table and `relchain recover`, and verify
//     reports the recorded stop, while the other three keep committing.
//     (An untraced change, its records deleted too, is caught by the
//     AppHash: divergence_test.go.)
//
// Untouched, `relchain verify` passes, and it passes on the others at the
// end.
func testTamperedNodeIsCaught(t *testing.T, backend string) {
	c := mustStartCluster(t, clusterOptions{backend: backend, consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("CREATE TABLE other (id INTEGER PRIMARY KEY)"))
	for i := 1; i <= 20; i++ {
		c.mustExec(ctx, i%validators, stmt(fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, %d)", i, 100*i)))
	}

	// With triggers: verify fails, and the node cannot follow the chain.
	if err := c.net.Stop(victim); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(victim, true, "")
	c.tamper(victim, `UPDATE acct SET bal = bal + 1 WHERE id = 7`)
	c.mustVerify(victim, false, "acct")
	stopped, _ := c.storedState(ctx, victim)
	if err := c.net.Start(victim); err != nil {
		t.Fatal(err)
	}
	before := c.maxHeight(ctx, 0, 1)
	for i := 0; i < 5; i++ {
		c.mustExec(ctx, i%2, stmt(fmt.Sprintf("INSERT INTO other (id) VALUES (%d)", i)))
	}
	after := c.maxHeight(ctx, 0, 1)
	c.mustReportOutOfBand(ctx, victim, "acct", stopped)
	c.mustVerify(victim, false, "acct")
	c.mustVerifyStopped(victim, "its database was changed outside the chain")
	t.Logf("the network went from height %d to %d; the tampered node stopped at %d", before, after, stopped)
	// Rebuilt from nothing, node 3 replays the chain from its peers and
	// ends with their state.
	if err := c.net.Stop(victim); err != nil {
		t.Fatal(err)
	}
	c.wipe(victim)
	if err := c.net.Start(victim); err != nil {
		t.Fatal(err)
	}
	target := c.maxHeight(ctx, 0, 1, 2)
	if err := c.net.WaitHeight(ctx, victim, target); err != nil {
		t.Fatalf("the rebuilt node 3: %v", err)
	}
	h, rows := c.consistentRead(ctx, "SELECT id, bal FROM acct ORDER BY id")
	c.requireSameRows(h, "acct", rows[0])
	t.Logf("node 3, rebuilt, holds the network's rows at height %d", h)

	// Without triggers: only verify can tell. (The network has lost its
	// quorum now: two of four nodes are left.)
	const quiet = 2
	if err := c.net.Stop(quiet); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(quiet, true, "")
	dropTrigger := map[string]string{
		"sqlite":   `DROP TRIGGER IF EXISTS relchain_cap_u_acct`,
		"postgres": `DROP TRIGGER relchain_capture ON acct`,
		"mysql":    `DROP TRIGGER ` + mysqlCaptureTrigger("acct", 'u'),
	}[backend]
	c.tamper(quiet, dropTrigger, `UPDATE acct SET bal = 1 WHERE id = 5`)
	c.mustVerify(quiet, false, "acct")

	// An untouched node verifies.
	if err := c.net.Stop(0); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(0, true, "")
}

// divergence is a node's divergence report, as its log states it.
type divergence struct {
	height          int64
	expected, local string
	line            string
	source          string // how the node learnt the network's AppHash
}

var divergenceLine = regexp.MustCompile(`AppHash mismatch at height (\d+): expected ([0-9A-F]{64}) \(network\), local ([0-9A-F]{64})`)

// mustReportDivergence waits for node i's process to exit by itself and
// checks that it failed with a divergence report whose AppHashes are the
// network's (block height+1's header, from node 0) and the node's own (its
// database's, which it stopped at).
func (c *cluster) mustReportDivergence(ctx context.Context, i int) divergence {
	c.t.Helper()
	select {
	case <-c.net.Exited(i):
	case <-ctx.Done():
		c.t.Fatalf("%s did not stop by itself on the AppHash mismatch: %v", c.nodes[i].Name, ctx.Err())
	}
	if err := c.net.ExitError(i); err == nil {
		c.t.Fatalf("%s exited with status 0 after a divergence", c.nodes[i].Name)
	}
	b, err := os.ReadFile(c.net.LogFile(i))
	if err != nil {
		c.t.Fatal(err)
	}
	var d divergence
	for _, line := range strings.Split(string(b), "\n") {
		if m := divergenceLine.FindStringSubmatch(line); m != nil && strings.HasPrefix(line, "error: ") {
			d.height, _ = strconv.ParseInt(m[1], 10, 64)
			d.expected, d.local, d.line = m[2], m[3], line
		} else if m != nil {
			// The node's log line: how the divergence was detected.
			if j := strings.Index(line, " source="); j >= 0 {
				d.source = line[j+len(" source="):]
			}
		}
	}
	if d.line == "" {
		c.t.Fatalf("%s exited (%v) without the report line \"error: AppHash mismatch at height ...\"", c.nodes[i].Name, c.net.ExitError(i))
	}
	c.t.Logf("%s exited (%v), having learnt the network's AppHash from %s: %s", c.nodes[i].Name, c.net.ExitError(i), d.source, d.line)
	next := d.height + 1
	// Node 3 can learn of block next from +2/3 prevotes before node 0 has
	// committed it.
	if err := c.net.WaitHeight(ctx, 0, next); err != nil {
		c.t.Fatalf("%s did not commit block %d: %v", c.nodes[0].Name, next, err)
	}
	hdr, err := c.client(0, nil).RPC().Header(ctx, &next)
	if err != nil {
		c.t.Fatalf("header %d from %s: %v", next, c.nodes[0].Name, err)
	}
	if got := hdr.Header.AppHash.String(); got != d.expected {
		c.t.Errorf("the report's expected AppHash %s is not the network's %s (header of block %d)", d.expected, got, next)
	}
	h, appHash := c.storedState(ctx, i)
	if h != d.height || appHash != d.local {
		c.t.Errorf("the report says height %d, local AppHash %s; the node's database holds height %d, AppHash %s", d.height, d.local, h, appHash)
	}
	if d.local == d.expected {
		c.t.Errorf("a divergence with equal AppHashes: %s", d.line)
	}
	return d
}

// storedState is the height and AppHash a stopped node's database holds.
func (c *cluster) storedState(ctx context.Context, i int) (int64, string) {
	c.t.Helper()
	_, rc, err := node.LoadConfig(c.nodes[i].Home)
	if err != nil {
		c.t.Fatal(err)
	}
	be, err := node.OpenBackend(ctx, c.nodes[i].Home, rc)
	if err != nil {
		c.t.Fatalf("open %s's database: %v", c.nodes[i].Name, err)
	}
	defer be.Close()
	st, err := be.LoadState(ctx)
	if err != nil {
		c.t.Fatalf("%s's state: %v", c.nodes[i].Name, err)
	}
	return st.Height, fmt.Sprintf("%X", st.AppHash)
}

// mustVerify runs `relchain verify` on node i's home and checks its verdict
// (and, for a mismatch, that it names table).
func (c *cluster) mustVerify(i int, ok bool, table string) {
	c.t.Helper()
	out, err := exec.Command(relchainBin, "verify", "--home", c.nodes[i].Home).CombinedOutput()
	switch {
	case ok && err != nil:
		c.t.Fatalf("verify %s: %v\n%s", c.nodes[i].Name, err, out)
	case !ok && err == nil:
		c.t.Fatalf("verify %s passed on a tampered database:\n%s", c.nodes[i].Name, out)
	case !ok && !strings.Contains(string(out), "MISMATCH") || !strings.Contains(string(out), table):
		c.t.Fatalf("verify %s does not name the table %q:\n%s", c.nodes[i].Name, table, out)
	}
	c.t.Logf("verify %s: %s", c.nodes[i].Name, strings.TrimSpace(string(out)))
}

// wipe deletes node i's database and CometBFT's data except the
// validator's signing state (the node must be stopped).
func (c *cluster) wipe(i int) {
	c.t.Helper()
	data := filepath.Join(c.nodes[i].Home, "data")
	entries, err := os.ReadDir(data)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "priv_validator_state.json" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(data, e.Name())); err != nil {
			c.t.Fatal(err)
		}
	}
	engine := c.engineOf(i)
	if engine == "mysql" {
		cfg, err := gomysql.ParseDSN(c.adminDSN(i))
		if err != nil {
			c.t.Fatal(err)
		}
		mysqltest.Exec(c.t, "DROP DATABASE `"+cfg.DBName+"`")
	}
	if engine == "postgres" {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, pgtest.ServerDSN(c.t))
		if err != nil {
			c.t.Fatal(err)
		}
		defer conn.Close(ctx)
		db := c.pgDatabase(i)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
			c.t.Fatalf("drop %s: %v", db, err)
		}
	}
}

// tamperUntraced is tamper by someone who knows relchain: the change
// records the capture triggers wrote are deleted too and, on SQLite (whose
// pre-update-hook capture compares every table with its stored sum at the
// first block after a start), the stored sums are made to match the
// tampered tables, so the next block starts (no
// backend.ErrOutOfBandChange) and only the AppHash can tell.
func (c *cluster) tamperUntraced(i int, stmts ...string) {
	c.t.Helper()
	engine := c.engineOf(i)
	changes := map[string]string{"sqlite": "relchain_changes", "postgres": "relchain.changes", "mysql": "relchain_changes"}[engine]
	changed := c.tamperCounted(i, append(stmts, "DELETE FROM "+changes)...)
	for k, s := range stmts {
		if changed[k] == 0 {
			c.t.Fatalf("%s on %s changed no row: the node does not hold the rows it should (stopped before it committed them?)", s, c.nodes[i].Name)
		}
	}
	if engine == "sqlite" {
		resealSQLiteSums(c.t, filepath.Join(c.nodes[i].Home, "data", "relchain.db"))
	}
}

// resealSQLiteSums recomputes the stored sum of every table relchain_digest
// names from the table's rows, with the row image relchain uses (quote() of
// every column, comma-separated).
func resealSQLiteSums(t *testing.T, path string) {
	t.Helper()
	db, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	st, _, err := db.Prepare("SELECT tbl FROM relchain_digest WHERE tbl IN (SELECT name FROM sqlite_schema WHERE type = 'table') ORDER BY tbl")
	if err != nil {
		t.Fatal(err)
	}
	for st.Step() {
		tables = append(tables, st.ColumnText(0))
	}
	st.Close()
	for _, tbl := range tables {
		var cols []string
		ci, _, err := db.Prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid")
		if err != nil {
			t.Fatal(err)
		}
		ci.BindText(1, tbl)
		for ci.Step() {
			cols = append(cols, `quote("`+strings.ReplaceAll(ci.ColumnText(0), `"`, `""`)+`")`)
		}
		ci.Close()
		rows, _, err := db.Prepare("SELECT " + strings.Join(cols, "||','||") + ` FROM "` + strings.ReplaceAll(tbl, `"`, `""`) + `"`)
		if err != nil {
			t.Fatal(err)
		}
		scan := statedigest.NewScan(tbl)
		for rows.Step() {
			scan.Add(rows.ColumnRawText(0))
		}
		rows.Close()
		sum := scan.Sum()
		up, _, err := db.Prepare("UPDATE relchain_digest SET sum = ? WHERE tbl = ?")
		if err != nil {
			t.Fatal(err)
		}
		up.BindBlob(1, sum[:])
		up.BindText(2, tbl)
		if err := up.Exec(); err != nil {
			t.Fatalf("reseal %s: %v", tbl, err)
		}
		up.Close()
	}
}

// mustReportOutOfBand waits for node i's process to exit by itself and
// checks that it failed saying its database was changed outside the
// chain, naming table and the recover command, without having applied a
// block after the change (its database holds height h, as before).
func (c *cluster) mustReportOutOfBand(ctx context.Context, i int, table string, h int64) {
	c.t.Helper()
	select {
	case <-c.net.Exited(i):
	case <-ctx.Done():
		c.t.Fatalf("%s did not stop by itself on the out-of-band change: %v", c.nodes[i].Name, ctx.Err())
	}
	if err := c.net.ExitError(i); err == nil {
		c.t.Fatalf("%s exited with status 0 after an out-of-band change", c.nodes[i].Name)
	}
	b, err := os.ReadFile(c.net.LogFile(i))
	if err != nil {
		c.t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(b), "\n") {
		// The report: relchain's last line, or, when the node was catching
		// up by block sync, CometBFT's panic (block sync panics on a block
		// the app cannot apply), which carries the same message.
		if (strings.HasPrefix(l, "error: ") || strings.HasPrefix(l, "panic: Failed to process committed block")) &&
			strings.Contains(l, "the database was changed outside the chain") {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, table) || !strings.Contains(line, "relchain recover --home "+c.nodes[i].Home) {
		c.t.Fatalf("%s exited (%v) without the report line naming the out-of-band change in %s and the recover command:\n%s", c.nodes[i].Name, c.net.ExitError(i), table, line)
	}
	c.t.Logf("%s: %s", c.nodes[i].Name, line)
	if got, _ := c.storedState(ctx, i); got != h {
		c.t.Errorf("%s's database holds height %d after the out-of-band stop, want %d (no block applied)", c.nodes[i].Name, got, h)
	}
}

// mustVerifyStopped runs `relchain verify` on node i's home and checks it
// fails and reports the node's recorded stop (what, as verify words it).
func (c *cluster) mustVerifyStopped(i int, what string) {
	c.t.Helper()
	out, err := exec.Command(relchainBin, "verify", "--home", c.nodes[i].Home).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "STOPPED: this node stopped after height") || !strings.Contains(string(out), what) {
		c.t.Fatalf("verify %s does not fail on the recorded stop (%q): %v\n%s", c.nodes[i].Name, what, err, out)
	}
	c.t.Logf("verify %s: %s", c.nodes[i].Name, strings.TrimSpace(string(out)))
}

// engineOf is node i's engine (relchain.toml backend.kind): a network
// over several engines has more than c.backend.
func (c *cluster) engineOf(i int) string {
	c.t.Helper()
	_, rc, err := node.LoadConfig(c.nodes[i].Home)
	if err != nil {
		c.t.Fatal(err)
	}
	return rc.Backend.Kind
}

// tamper runs statements directly on node i's database, outside the chain
// (the node must be stopped for SQLite).
func (c *cluster) tamper(i int, stmts ...string) {
	c.t.Helper()
	c.tamperCounted(i, stmts...)
}

// tamperCounted is tamper, returning the rows each statement changed.
func (c *cluster) tamperCounted(i int, stmts ...string) []int64 {
	c.t.Helper()
	var changed []int64
	switch c.engineOf(i) {
	case "sqlite":
		db, err := sqlite3.Open(filepath.Join(c.nodes[i].Home, "data", "relchain.db"))
		if err != nil {
			c.t.Fatalf("open %s's database: %v", c.nodes[i].Name, err)
		}
		defer db.Close()
		if err := db.BusyTimeout(30 * time.Second); err != nil {
			c.t.Fatal(err)
		}
		for _, s := range stmts {
			if err := db.Exec(s); err != nil {
				c.t.Fatalf("%s on %s: %v", s, c.nodes[i].Name, err)
			}
			changed = append(changed, db.Changes())
		}
	case "postgres":
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, c.adminDSN(i))
		if err != nil {
			c.t.Fatalf("connect to %s's database: %v", c.nodes[i].Name, err)
		}
		defer conn.Close(ctx)
		for _, s := range stmts {
			tag, err := conn.Exec(ctx, s)
			if err != nil {
				c.t.Fatalf("%s on %s: %v", s, c.nodes[i].Name, err)
			}
			changed = append(changed, tag.RowsAffected())
		}
	case "mysql":
		cfg, err := gomysql.ParseDSN(c.adminDSN(i))
		if err != nil {
			c.t.Fatal(err)
		}
		conn, err := gomysql.NewConnector(cfg)
		if err != nil {
			c.t.Fatal(err)
		}
		db := sql.OpenDB(conn)
		defer db.Close()
		for _, s := range stmts {
			res, err := db.Exec(s)
			if err != nil {
				c.t.Fatalf("%s on %s: %v", s, c.nodes[i].Name, err)
			}
			n, _ := res.RowsAffected()
			changed = append(changed, n)
		}
	}
	return changed
}

// mysqlCaptureTrigger is the name backend/mysql gives table's capture
// trigger for op (i, u, d).
func mysqlCaptureTrigger(table string, op byte) string {
	h := sha256.Sum256([]byte(table))
	return "relchain_" + hex.EncodeToString(h[:8]) + "_" + string(op)
}
