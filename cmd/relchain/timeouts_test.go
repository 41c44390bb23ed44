package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/relchain/relchain/node"
)

// relchain init and testnet write relchain's consensus timeouts into each
// node's config.toml, and their --timeout-* flags override them (localnet
// shares testnet's flags and netctl.Generate).
func TestInitAndTestnetWriteConsensusTimeouts(t *testing.T) {
	d := node.DefaultTuning()
	def := [3]time.Duration{d.TimeoutPropose, d.TimeoutProposeDelta, d.TimeoutPrecommit}
	set := [3]time.Duration{700 * time.Millisecond, 70 * time.Millisecond, 350 * time.Millisecond}
	override := []string{"--timeout-propose", "700ms", "--timeout-propose-delta", "70ms", "--timeout-precommit", "350ms"}
	dir := t.TempDir()
	testnet := func(out string) []string {
		return []string{"testnet", "--open", "--validators", "2", "--base-port", "0", "--output", filepath.Join(dir, out)}
	}
	for _, c := range []struct {
		args  []string
		homes string // a glob
		want  [3]time.Duration
	}{
		{[]string{"init", "--open", "--home", filepath.Join(dir, "init")}, "init", def},
		{append([]string{"init", "--open", "--home", filepath.Join(dir, "init-set")}, override...), "init-set", set},
		{testnet("net"), "net/*", def},
		{append(testnet("net-set"), override...), "net-set/*", set},
	} {
		root := rootCmd()
		root.SetArgs(c.args)
		if err := root.Execute(); err != nil {
			t.Fatalf("relchain %v: %v", c.args, err)
		}
		homes, err := filepath.Glob(filepath.Join(dir, c.homes, "config", "config.toml"))
		if err != nil || len(homes) == 0 {
			t.Fatalf("relchain %v wrote no config.toml under %s (%v)", c.args, c.homes, err)
		}
		for _, h := range homes {
			cc, _, err := node.LoadConfig(filepath.Dir(filepath.Dir(h)))
			if err != nil {
				t.Fatal(err)
			}
			got := [3]time.Duration{cc.Consensus.TimeoutPropose, cc.Consensus.TimeoutProposeDelta, cc.Consensus.TimeoutPrecommit}
			if got != c.want {
				t.Errorf("relchain %v: %s has timeout_propose, _delta, timeout_precommit %v, want %v", c.args, h, got, c.want)
			}
		}
	}
}
