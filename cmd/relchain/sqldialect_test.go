package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/types"
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/app"
	mysqlpg "github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/node"
)

// A new network on SQLite speaks PostgreSQL's SQL unless told otherwise
// (issue 35): relchain init, testnet and localnet without --sql-dialect
// write sql_dialect postgres and the binary's translator version to the
// genesis; --sql-dialect sqlite writes the backend's own, which the
// genesis does not name (it reads as before dialects existed); a dialect
// the backend cannot speak is refused.
func TestSQLDialectFlagWritesTheGenesis(t *testing.T) {
	dir := t.TempDir()
	testnet := func(out string, more ...string) []string {
		return append([]string{"testnet", "--open", "--validators", "2", "--base-port", "0", "--output", filepath.Join(dir, out)}, more...)
	}
	pg := node.SQLDialect{Name: "postgres", Version: pgdialect.Version}
	for _, c := range []struct {
		args  []string
		homes string
		want  node.SQLDialect
	}{
		{[]string{"init", "--open", "--home", filepath.Join(dir, "init")}, "init", pg},
		{[]string{"init", "--open", "--sql-dialect", "sqlite", "--home", filepath.Join(dir, "init-native")}, "init-native", node.SQLDialect{}},
		{[]string{"init", "--open", "--sql-dialect", "postgres", "--home", filepath.Join(dir, "init-pg")}, "init-pg", pg},
		{testnet("net"), "net/*", pg},
		{testnet("net-native", "--sql-dialect", "sqlite"), "net-native/*", node.SQLDialect{}},
		{testnet("net-pg", "--sql-dialect", "postgres"), "net-pg/*", pg},
	} {
		root := rootCmd()
		root.SetArgs(c.args)
		if err := root.Execute(); err != nil {
			t.Fatalf("relchain %v: %v", c.args, err)
		}
		checkGenesisSQLDialect(t, filepath.Join(dir, c.homes), c.want)
	}
	root := rootCmd()
	root.SetArgs([]string{"testnet", "--open", "--backend", "mysql", "--dsn-template", "root@tcp(127.0.0.1:1)/r_{node}", "--sql-dialect", "sqlite", "--output", filepath.Join(dir, "my")})
	root.SilenceErrors, root.SilenceUsage = true, true
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), `cannot run the "sqlite" SQL dialect`) {
		t.Errorf("testnet --backend mysql --sql-dialect sqlite = %v, want a refusal", err)
	}
}

// relchain localnet creates its network with testnet's flags: without
// --sql-dialect a new SQLite localnet speaks PostgreSQL's SQL, with
// --sql-dialect sqlite SQLite's own.
func TestLocalnetDefaultsToThePostgresDialect(t *testing.T) {
	t.Setenv("RELCHAIN_HOME", t.TempDir())
	pg := node.SQLDialect{Name: "postgres", Version: pgdialect.Version}
	for _, c := range []struct {
		args []string
		want node.SQLDialect
	}{
		{nil, pg},
		{[]string{"--sql-dialect", "sqlite"}, node.SQLDialect{}},
	} {
		var f netFlags
		cmd := &cobra.Command{Use: "localnet"}
		f.register(cmd, 0)
		f.adminFlags.register(cmd)
		if err := cmd.ParseFlags(append([]string{"--validators", "2"}, c.args...)); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "net")
		if _, err := createLocalnet(&f, dir, 0, true); err != nil {
			t.Fatalf("localnet %v: %v", c.args, err)
		}
		checkGenesisSQLDialect(t, filepath.Join(dir, "*"), c.want)
	}
}

// Without --sql-dialect a new network speaks PostgreSQL's SQL where its
// backend speaks it (translated on SQLite, natively on PostgreSQL, where
// the genesis names no dialect as before) and its backend's own where not
// (MySQL).
func TestNewNetworkSQLDialectPerBackend(t *testing.T) {
	for _, c := range []struct {
		backend, flag, sql string
		version            int
	}{
		{"sqlite", "", "postgres", pgdialect.Version},
		{"sqlite", "sqlite", "", 0},
		{"sqlite", "postgres", "postgres", pgdialect.Version},
		{"postgres", "", "", 0},
		{"mysql", "", "", 0},
		{"mysql", "mysql", "", 0},
		{"mysql", "postgres", "postgres", mysqlpg.Version},
	} {
		flag, err := newNetworkSQLDialect(c.backend, c.flag)
		if err != nil {
			t.Fatalf("newNetworkSQLDialect(%s, %q): %v", c.backend, c.flag, err)
		}
		sql, version, err := registry.GenesisSQLDialect(c.backend, flag)
		if err != nil || sql != c.sql || version != c.version {
			t.Errorf("backend %s, --sql-dialect %q: genesis sql_dialect %q version %d (%v), want %q version %d", c.backend, c.flag, sql, version, err, c.sql, c.version)
		}
	}
	if _, err := newNetworkSQLDialect("no-such-backend", ""); err == nil || !strings.Contains(err.Error(), "(supported: ") {
		t.Errorf("an unknown backend: %v, want the supported ones named", err)
	}
}

// A network created before the default changed keeps its dialect: a
// genesis whose app_state names no sql_dialect (as every genesis before
// dialects, and --sql-dialect sqlite's today) is read as the backend's
// own, by the node's configuration and by the application alike.
func TestGenesisWithoutSQLDialectReadsAsNative(t *testing.T) {
	home := filepath.Join(t.TempDir(), "old")
	root := rootCmd()
	root.SetArgs([]string{"init", "--open", "--home", home})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "config", "genesis.json")
	gen, err := types.GenesisDocFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(gen.AppState, &state); err != nil {
		t.Fatal(err)
	}
	delete(state, "sql_dialect")
	delete(state, "sql_dialect_version")
	if gen.AppState, err = json.Marshal(state); err != nil {
		t.Fatal(err)
	}
	if err := gen.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	checkGenesisSQLDialect(t, home, node.SQLDialect{})
	p, err := app.ParseParams(gen.AppState)
	if err != nil || p.SQLDialect != "" || p.SQLDialectVersion != 0 {
		t.Errorf("app_state without sql_dialect parses to %+v (%v), want the backend's own dialect", p, err)
	}
}

// checkGenesisSQLDialect checks that every node home homes (a glob) fixes
// SQL dialect want, and that a genesis of the backend's own dialect does
// not name it.
func checkGenesisSQLDialect(t *testing.T, homes string, want node.SQLDialect) {
	t.Helper()
	gens, err := filepath.Glob(filepath.Join(homes, "config", "genesis.json"))
	if err != nil || len(gens) == 0 {
		t.Fatalf("no genesis under %s (%v)", homes, err)
	}
	for _, g := range gens {
		_, rc, err := node.LoadConfig(filepath.Dir(filepath.Dir(g)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rc.SQL, want) {
			t.Errorf("%s fixes SQL dialect %+v, want %+v", g, rc.SQL, want)
		}
		text, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(want, node.SQLDialect{}) && strings.Contains(string(text), "sql_dialect") {
			t.Errorf("%s names a sql_dialect for the backend's own", g)
		}
	}
}
