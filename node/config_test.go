package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"

	"github.com/relchain/relchain/app"
)

func TestRecoverConfigValidate(t *testing.T) {
	for _, c := range []struct {
		onMismatch string
		every      int64
		err        string // "" if valid
	}{
		{"", 1000, ""},
		{"stop", 1000, ""},
		{"stop", 0, ""},
		{"recover", 1000, ""},
		{"recover", 0, `on_mismatch = "recover" restores a checkpoint, but checkpoints are off`},
		{"Recover", 1000, `on_mismatch = "Recover": use "stop"`},
		{"restart", 1000, `or "recover"`},
	} {
		rc := DefaultConfig()
		rc.Recover.OnMismatch = c.onMismatch
		rc.Checkpoint.Every = c.every
		err := rc.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("on_mismatch %q, every %d: %v", c.onMismatch, c.every, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("on_mismatch %q, every %d: got %v, want an error containing %q", c.onMismatch, c.every, err, c.err)
		}
		if err == nil && rc.AutoRecover() != (c.onMismatch == "recover") {
			t.Errorf("on_mismatch %q: AutoRecover() = %v", c.onMismatch, rc.AutoRecover())
		}
	}
}

// A new home says on_mismatch = "stop"; a bad value in relchain.toml is
// refused when the node loads it, naming the key.
func TestRecoverConfigFile(t *testing.T) {
	home := t.TempDir()
	if _, err := Init(home, InitOptions{Params: app.DefaultParams(), Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	_, rc, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Recover.OnMismatch != OnMismatchStop || rc.AutoRecover() {
		t.Fatalf("default on_mismatch = %q", rc.Recover.OnMismatch)
	}
	path := filepath.Join(home, RelchainConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "[recover]\n  on_mismatch = \"stop\"") {
		t.Fatalf("relchain.toml lacks the [recover] section:\n%s", b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `on_mismatch = "stop"`, `on_mismatch = "reboot"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadConfig(home); err == nil || !strings.Contains(err.Error(), `on_mismatch = "reboot"`) {
		t.Fatalf("bad on_mismatch accepted: %v", err)
	}
	// A relchain.toml written before the section existed still loads, as "stop".
	old := strings.Replace(string(b), "[recover]\n  on_mismatch = \"stop\"\n", "", 1)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, rc, err := LoadConfig(home); err != nil || rc.AutoRecover() {
		t.Fatalf("relchain.toml without [recover]: %v, %+v", err, rc.Recover)
	}
}

// The config.toml relchain writes carries the consensus timeouts measured
// with `relchain-bench absent` (BENCHMARKS.md); a Tuning's zero timeout
// keeps CometBFT's own.
func TestCometConfigCarriesConsensusTimeouts(t *testing.T) {
	home := t.TempDir()
	if _, err := Init(home, InitOptions{Params: app.DefaultParams(), Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	cc, _, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	c := cc.Consensus
	if c.TimeoutPropose != 500*time.Millisecond || c.TimeoutProposeDelta != 100*time.Millisecond || c.TimeoutPrecommit != 200*time.Millisecond {
		t.Errorf("config.toml: timeout_propose %v (+%v), timeout_precommit %v; want 500ms (+100ms), 200ms",
			c.TimeoutPropose, c.TimeoutProposeDelta, c.TimeoutPrecommit)
	}
	if c.TimeoutCommit != 10*time.Millisecond {
		t.Errorf("config.toml: timeout_commit %v, want 10ms", c.TimeoutCommit)
	}
	if err := cc.ValidateBasic(); err != nil {
		t.Errorf("the written config does not validate: %v", err)
	}
	zero := CometConfig(Tuning{}).Consensus
	cometbft := cmtcfg.DefaultConsensusConfig()
	if zero.TimeoutPropose != cometbft.TimeoutPropose || zero.TimeoutProposeDelta != cometbft.TimeoutProposeDelta || zero.TimeoutPrecommit != cometbft.TimeoutPrecommit {
		t.Errorf("zero Tuning: timeout_propose %v (+%v), timeout_precommit %v; want CometBFT's %v (+%v), %v",
			zero.TimeoutPropose, zero.TimeoutProposeDelta, zero.TimeoutPrecommit, cometbft.TimeoutPropose, cometbft.TimeoutProposeDelta, cometbft.TimeoutPrecommit)
	}
}

// The read limit sits below tx_timeout by design: a third of it by
// default, and a node refuses a read_timeout at or above it (issue 32,
// reproduction 6: both were 30 s).
func TestReadTimeoutBelowTxTimeout(t *testing.T) {
	for _, c := range []struct {
		read, tx string
		want     time.Duration
		err      string // "" if valid
	}{
		{"", "", app.DefaultTxTimeout / 3, ""},
		{"", "30s", 10 * time.Second, ""},
		{"", "3s", time.Second, ""},
		{"5s", "30s", 5 * time.Second, ""},
		{"29s", "30s", 29 * time.Second, ""},
		{"30s", "30s", 0, "must be below [block] tx_timeout = 30s"},
		{"30s", "", 0, "must be below [block] tx_timeout = 30s"},
		{"1m", "30s", 0, "must be below [block] tx_timeout = 30s"},
		{"0s", "30s", 0, "give a positive duration"},
		{"-1s", "30s", 0, "give a positive duration"},
		{"ten", "30s", 0, `read_timeout = "ten"`},
	} {
		rc := DefaultConfig()
		rc.Query.ReadTimeout, rc.Block.TxTimeout = c.read, c.tx
		got, err := rc.ReadTimeout()
		verr := rc.Validate()
		switch {
		case c.err == "" && (err != nil || verr != nil || got != c.want):
			t.Errorf("read_timeout %q, tx_timeout %q: %v, %v (Validate %v), want %v", c.read, c.tx, got, err, verr, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || verr == nil || !strings.Contains(verr.Error(), c.err)):
			t.Errorf("read_timeout %q, tx_timeout %q: %v (Validate %v), want an error containing %q", c.read, c.tx, err, verr, c.err)
		}
	}
	// The backend is opened with it.
	rc := DefaultConfig()
	rc.Query.ReadTimeout = "7s"
	_, s, err := rc.backendSpec(t.TempDir(), nil)
	if err != nil || s.ReadTimeout != 7*time.Second {
		t.Fatalf("backend spec: %v, read timeout %v, want 7s", err, s.ReadTimeout)
	}
}
