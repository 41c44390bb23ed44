package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/node"
)

// relchain init and testnet (localnet shares testnet's flags) write
// --sql-dialect postgres and the binary's translator version to the
// genesis; without the flag, or with the backend's own dialect, the
// genesis names none (it reads as before dialects existed); a dialect the
// backend cannot speak is refused.
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
		{[]string{"init", "--open", "--home", filepath.Join(dir, "init")}, "init", node.SQLDialect{}},
		{[]string{"init", "--open", "--sql-dialect", "postgres", "--home", filepath.Join(dir, "init-pg")}, "init-pg", pg},
		{testnet("net"), "net/*", node.SQLDialect{}},
		{testnet("net-native", "--sql-dialect", "sqlite"), "net-native/*", node.SQLDialect{}},
		{testnet("net-pg", "--sql-dialect", "postgres"), "net-pg/*", pg},
	} {
		root := rootCmd()
		root.SetArgs(c.args)
		if err := root.Execute(); err != nil {
			t.Fatalf("relchain %v: %v", c.args, err)
		}
		gens, err := filepath.Glob(filepath.Join(dir, c.homes, "config", "genesis.json"))
		if err != nil || len(gens) == 0 {
			t.Fatalf("relchain %v wrote no genesis under %s (%v)", c.args, c.homes, err)
		}
		for _, g := range gens {
			_, rc, err := node.LoadConfig(filepath.Dir(filepath.Dir(g)))
			if err != nil {
				t.Fatal(err)
			}
			if rc.SQL != c.want {
				t.Errorf("relchain %v: %s fixes SQL dialect %+v, want %+v", c.args, g, rc.SQL, c.want)
			}
			text, _ := os.ReadFile(g)
			if c.want == (node.SQLDialect{}) && strings.Contains(string(text), "sql_dialect") {
				t.Errorf("relchain %v: %s names a sql_dialect for the backend's own", c.args, g)
			}
		}
	}
	root := rootCmd()
	root.SetArgs([]string{"testnet", "--open", "--backend", "mysql", "--dsn-template", "root@tcp(127.0.0.1:1)/r_{node}", "--sql-dialect", "postgres", "--output", filepath.Join(dir, "my")})
	root.SilenceErrors, root.SilenceUsage = true, true
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), `cannot run the "postgres" SQL dialect`) {
		t.Errorf("testnet --backend mysql --sql-dialect postgres = %v, want a refusal", err)
	}
}
