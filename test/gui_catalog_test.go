package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// What GUI tools ask (issue 33, item 9), on a 4-validator PostgreSQL
// network whose nodes share one server (each with a database and roles of
// its own): psql's \l, \du, \dx and the rest of its \d family, pgcli's
// completion refresh and pgjdbc's DatabaseMetaData as DBeaver calls it
// run without an error, through a node's listener and through the
// standalone gateway (SCRAM), and show this network's database (named
// relchain) and the node's own roles only: none of the other nodes'
// databases or roles on the shared server. On main \l and \du failed
// (42501 on pg_database, pg_auth_members), pgcli's refresh raised on
// pg_database and pgjdbc's getImportedKeys on pg_settings.
func TestGUIToolsSeeThisNetworkOnly_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	psql := lookPathOrFail(t, "psql", "postgresql-client")
	python := lookPathOrFail(t, "/usr/bin/python3", "python3-pgcli (pgcli)")
	javac := lookPathOrFail(t, "javac", "openjdk-17-jdk-headless")
	java := lookPathOrFail(t, "java", "openjdk-17-jdk-headless")
	const jdbcJar = "/usr/share/java/postgresql.jar"
	if _, err := os.Stat(jdbcJar); err != nil {
		t.Fatalf("pgjdbc is not installed (libpostgresql-jdbc-java): %v", err)
	}
	classes := t.TempDir()
	if out, err := exec.Command(javac, "-d", classes, "-cp", jdbcJar, filepath.Join("testdata", "jdbc", "GuiCatalog.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}

	c := mustStartCluster(t, clusterOptions{backend: "postgres", pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, stmt := range []string{
		`CREATE TABLE acct (id bigint PRIMARY KEY, owner text NOT NULL, balance bigint NOT NULL DEFAULT 0)`,
		`CREATE TABLE child (id bigint PRIMARY KEY, acct_id bigint REFERENCES acct (id))`,
		`CREATE INDEX child_acct ON child (acct_id)`,
		`CREATE VIEW rich AS SELECT id, balance FROM acct WHERE balance > 50`,
	} {
		mustPgxExec(t, conn, stmt)
	}

	// The server's databases and roles of this network: one of each
	// node's per node. Node 0 answers; the others' must not show.
	admin, err := pgx.Connect(ctx, pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	prefix := networkPrefix(t, c.pgDSN)
	dbs := adminColumn(t, admin, `SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1`, prefix)
	roles := adminColumn(t, admin, `SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1) ORDER BY 1`, prefix)
	if len(dbs) < 4 || len(roles) < 8 {
		t.Fatalf("the server holds databases %q and roles %q for the network; want 4 and 8", dbs, roles)
	}

	gctx, gcancel := context.WithTimeout(ctx, 30*time.Second)
	gw, err := gateway.Start(gctx, gateway.Config{Classifier: pgclass.Classifier{}, Listen: "127.0.0.1:0", Nodes: []string{c.nodes[0].RPC},
		UsersFile: node.PGConfig{}.UsersFile(c.nodes[0].Home)})
	gcancel()
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()

	for _, front := range []struct{ name, addr string }{
		{"listener", c.pgAddr(0)},
		{"gateway", gw.Addr().String()},
	} {
		t.Run(front.name, func(t *testing.T) {
			host, port, _ := strings.Cut(front.addr, ":")
			var seen []string // every output, for the leak check below

			// psql: each meta-command alone, as a user types it.
			owner := ""
			for _, cmd := range []string{`\dt acct`, `\l`, `\l+`, `\du`, `\du+`, `\dg`, `\dx`, `\dx+`, `\dn+`, `\dp`, `\df`, `\dT`,
				`\dv`, `\dm`, `\ds`, `\dt+`, `\di+`, `\d+ acct`, `\d+ child`, `\conninfo`} {
				out := runPsql(t, psql, front.addr, cmd)
				seen = append(seen, out)
				switch cmd {
				case `\dt acct`:
					// Schema|Name|Type|Owner
					if f := strings.Split(firstLine(out), "|"); len(f) == 4 {
						owner = f[3]
					}
					if !slices.Contains(roles, owner) {
						t.Fatalf(`\dt acct shows owner %q, not one of the network's roles %q: %s`, owner, roles, out)
					}
				case `\l`:
					if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "relchain|"+owner+"|UTF8|") {
						t.Errorf(`\l lists %q; want the one database relchain owned by %s`, lines, owner)
					}
				case `\l+`:
					if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "relchain|"+owner+"|UTF8|") || !strings.Contains(lines[0], "|pg_default|") || strings.Contains(lines[0], "No Access") {
						t.Errorf(`\l+ lists %q; want relchain with its size and tablespace`, lines)
					}
				case `\du`, `\du+`, `\dg`:
					var names []string
					for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
						names = append(names, strings.SplitN(l, "|", 2)[0])
					}
					if !slices.Equal(names, []string{"relchain"}) {
						t.Errorf(`%s lists %q; want the network's one role, relchain (not the node's writer %s)`, cmd, names, owner)
					}
					for _, r := range roles {
						if slices.Contains(names, r) {
							t.Errorf(`%s lists %s, a role of the server`, cmd, r)
						}
					}
				case `\dx`:
					requireIn(t, cmd, out, "plpgsql|")
				case `\dx+`:
					requireIn(t, cmd, out, "function plpgsql_call_handler()", "language plpgsql")
				case `\dn+`:
					requireIn(t, cmd, out, "public|")
				case `\dp`, `\dt+`:
					requireIn(t, cmd, out, "public|acct|table|", "public|child|table|")
				case `\di+`:
					requireIn(t, cmd, out, "public|child_acct|index|")
				case `\dv`:
					requireIn(t, cmd, out, "public|rich|view|")
				case `\d+ acct`:
					requireIn(t, cmd, out, "balance", "acct_pkey", `TABLE "child" CONSTRAINT "child_acct_id_fkey" FOREIGN KEY (acct_id) REFERENCES acct(id)`)
				case `\d+ child`:
					requireIn(t, cmd, out, `"child_acct_id_fkey" FOREIGN KEY (acct_id) REFERENCES acct(id)`, "child_acct")
				case `\conninfo`:
					requireIn(t, cmd, out, `database "relchain" as user "alice"`)
				}
			}

			// pgcli: its completion refresh and catalog methods.
			out, err := exec.Command(python, filepath.Join("testdata", "pgcli", "completion.py"), host, port, "alice", pgPassword("alice")).CombinedOutput()
			if err != nil {
				t.Fatalf("pgcli's completion refresh: %v\n%s", err, out)
			}
			seen = append(seen, string(out))
			var pgcli struct {
				CompleterDatabases []string   `json:"completer_databases"`
				CompleterTables    []string   `json:"completer_tables"`
				Databases          []string   `json:"databases"`
				Tables             [][]string `json:"tables"`
				ForeignKeys        [][]string `json:"foreignkeys"`
				ViewDefinition     string     `json:"view_definition"`
			}
			if err := json.Unmarshal(out, &pgcli); err != nil {
				t.Fatalf("pgcli's output: %v\n%s", err, out)
			}
			if !slices.Equal(pgcli.Databases, []string{"relchain"}) || !slices.Equal(pgcli.CompleterDatabases, []string{"relchain"}) {
				t.Errorf("pgcli completes databases %q (refresh: %q); want relchain alone", pgcli.Databases, pgcli.CompleterDatabases)
			}
			if !slices.Equal(pgcli.CompleterTables, []string{"acct", "child"}) {
				t.Errorf("pgcli completes tables %q", pgcli.CompleterTables)
			}
			if !slices.ContainsFunc(pgcli.ForeignKeys, func(fk []string) bool { return len(fk) == 6 && fk[1] == "acct" && fk[4] == "child" }) {
				t.Errorf("pgcli's foreign keys lack child -> acct: %q", pgcli.ForeignKeys)
			}
			if !strings.Contains(pgcli.ViewDefinition, "CREATE OR REPLACE VIEW") {
				t.Errorf("pgcli's view definition of rich: %q", pgcli.ViewDefinition)
			}
			for _, r := range pgcli.Tables {
				if r[0] == "relchain" {
					t.Errorf("pgcli completes relchain's table %q", r)
				}
			}

			// pgjdbc's DatabaseMetaData, as DBeaver calls it.
			url := "jdbc:postgresql://" + front.addr + "/relchain?sslmode=disable"
			out, err = exec.Command(java, "-cp", classes+string(os.PathListSeparator)+jdbcJar, "GuiCatalog", url, "alice", pgPassword("alice"), "child", "acct").CombinedOutput()
			if err != nil {
				t.Fatalf("pgjdbc's DatabaseMetaData: %v\n%s", err, out)
			}
			seen = append(seen, string(out))
			requireIn(t, "pgjdbc", string(out),
				"getTables: table_cat=null, table_schem=public, table_name=acct, table_type=TABLE",
				"getColumns: table_cat=null, table_schem=public, table_name=child, column_name=acct_id",
				"getPrimaryKeys: table_cat=null, table_schem=public, table_name=child, column_name=id, key_seq=1, pk_name=child_pkey",
				"getImportedKeys: pktable_cat=null, pktable_schem=public, pktable_name=acct, pkcolumn_name=id, fktable_cat=null, fktable_schem=public, fktable_name=child, fkcolumn_name=acct_id",
				"getExportedKeys: pktable_cat=null, pktable_schem=public, pktable_name=acct, pkcolumn_name=id, fktable_cat=null, fktable_schem=public, fktable_name=child",
				"index_name=child_acct", "getTypeInfo rows=", "done")

			// Nothing shows another node's database or role. (The node's
			// own database name still shows where PostgreSQL computes
			// current_database() itself: information_schema's *_catalog
			// columns, pgjdbc's getFunctions.)
			all := strings.Join(seen, "\n")
			own := strings.TrimSuffix(owner, "_writer")
			ownDB := regexp.MustCompile(regexp.QuoteMeta(own) + `([^_]|$)`) // not its roles' names
			for i, out := range seen {
				if ownDB.MatchString(out) {
					t.Logf("answer %d of %d names the node's own database %s", i, len(seen), own)
				}
			}
			for _, name := range append(slices.Clone(dbs), roles...) {
				if name != owner && name != own+"_reader" && name != own && strings.Contains(all, name) {
					t.Errorf("a GUI tool's answer names %s, a database or role of another node on the server", name)
				}
			}
		})
	}
}

// runPsql runs one meta-command with psql (unaligned, tuples only but
// for \d+, stop on an error) as alice on addr and returns its output; an error, or a
// message on stderr other than psql's "Did not find any …" for an empty
// listing, fails the test.
func runPsql(t *testing.T, psql, addr, cmd string) string {
	t.Helper()
	args := []string{psqlConn(addr, "alice"), "-X", "-v", "ON_ERROR_STOP=1", "-c", cmd}
	if !strings.HasPrefix(cmd, `\d+ `) { // \d+ shows its footers (indexes, keys) only in full
		args = append(args, "-A", "-t")
	}
	c := exec.Command(psql, args...)
	c.Env = append(os.Environ(), "PGPASSWORD="+pgPassword("alice"))
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if msg := stderr.String(); err != nil || msg != "" && !strings.HasPrefix(msg, "Did not find any ") {
		t.Fatalf("psql -c %q: %v\n%s%s", cmd, err, out, stderr.String())
	}
	return string(out)
}

func requireIn(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s's output lacks %q:\n%s", what, w, out)
		}
	}
}

// networkPrefix is the start of the names of the network's databases and
// roles on the server: the DSN template's database up to {node}.
func networkPrefix(t *testing.T, tmpl string) string {
	t.Helper()
	i, j := strings.Index(tmpl, "relchain_e2e_"), strings.Index(tmpl, "{node}")
	if i < 0 || j < i {
		t.Fatalf("the nodes' DSN template %q names no relchain_e2e_ database", tmpl)
	}
	return tmpl[i:j]
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func lookPathOrFail(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (scripts/deps.sh installs %s): %v", name, pkg, err)
	}
	return p
}

func adminColumn(t *testing.T, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}
