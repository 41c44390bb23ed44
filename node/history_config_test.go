package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/app"
)

// A new home keeps every block's history and proves 100 past states;
// [history] retain_blocks and off reach the executor's configuration,
// and a negative count is refused naming the key.
func TestHistoryConfigFile(t *testing.T) {
	home := t.TempDir()
	if _, err := Init(home, InitOptions{Params: app.DefaultParams(), Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	_, rc, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.AppHistory(); got != (app.HistoryConfig{ProofHeights: app.DefaultProofHeights}) {
		t.Fatalf("a new home's history: %+v", got)
	}
	path := filepath.Join(home, RelchainConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "[history]") || !strings.Contains(string(b), "retain_blocks = 0") {
		t.Fatalf("relchain.toml lacks the [history] section:\n%s", b)
	}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.Replace(string(b), "retain_blocks = 0", "retain_blocks = 500", 1))
	if _, rc, err := LoadConfig(home); err != nil || rc.AppHistory().RetainBlocks != 500 || rc.AppHistory().Off {
		t.Fatalf("retain_blocks = 500: %v, %+v", err, rc.History)
	}
	write(strings.Replace(string(b), "off = false", "off = true", 1))
	if _, rc, err := LoadConfig(home); err != nil || !rc.AppHistory().Off {
		t.Fatalf("off = true: %v, %+v", err, rc.History)
	}
	write(strings.Replace(string(b), "retain_blocks = 0", "retain_blocks = -1", 1))
	if _, _, err := LoadConfig(home); err == nil || !strings.Contains(err.Error(), "[history] retain_blocks = -1") {
		t.Fatalf("retain_blocks = -1 accepted: %v", err)
	}
}
