package netctl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/netctl"
)

// Options.Backends gives one backend per validator: a count that does not
// match, or a server backend without a DSN template, is refused before
// anything is written; one engine listed for all is an ordinary network
// (genesis backend, no backends). A network over several engines is in
// the e2e manifest mixed-engines.toml (it needs a PostgreSQL server).
func TestGenerateWithOneBackendPerValidator(t *testing.T) {
	for _, c := range []struct {
		backends []string
		want     string
	}{
		{[]string{"sqlite", "sqlite"}, "lists 2 backends for 3 validators"},
		{[]string{"sqlite", "postgres", "sqlite"}, "needs --dsn-template"},
		{[]string{"sqlite", "oracle", "sqlite"}, "oracle"},
	} {
		dir := t.TempDir()
		_, err := netctl.Generate(netctl.Options{Validators: 3, Dir: dir, Backends: c.backends})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Generate(backends %v) = %v, want an error containing %q", c.backends, err, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("Generate(backends %v) wrote %d entries before refusing", c.backends, len(entries))
		}
	}
	dir := t.TempDir()
	nodes, err := netctl.Generate(netctl.Options{Validators: 2, Dir: dir, Backends: []string{"sqlite", "sqlite"}, Params: app.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := types.GenesisDocFromFile(filepath.Join(nodes[1].Home, "config", "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.ParseParams(gen.AppState)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mixed() || p.Backend != "sqlite" {
		t.Fatalf("genesis of a network all on sqlite: backend %q, backends %v", p.Backend, p.Backends)
	}
}
