package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/internal/longtest"
	"github.com/relchain/relchain/test/e2e"
)

func TestChooseSeed(t *testing.T) {
	fixed := &e2e.Manifest{}
	seeded := &e2e.Manifest{Random: &e2e.RandomPlan{Seed: 77}}
	drawn := &e2e.Manifest{Random: &e2e.RandomPlan{}}
	for _, c := range []struct {
		name string
		m    *e2e.Manifest
		o    runOptions
		want int64
	}{
		{"flag wins", seeded, runOptions{seed: 5, seedSet: true}, 5},
		{"flag zero is a seed too", seeded, runOptions{seed: 0, seedSet: true}, 0},
		{"manifest seed", seeded, runOptions{}, 77},
		{"fixed schedule", fixed, runOptions{}, 1},
	} {
		got, err := chooseSeed(c.m, c.o)
		if err != nil || got != c.want {
			t.Errorf("%s: seed %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	a, errA := chooseSeed(drawn, runOptions{})
	b, errB := chooseSeed(drawn, runOptions{})
	if errA != nil || errB != nil || a == b || a < 0 {
		t.Errorf("a random plan without a seed drew %d and %d (%v, %v): want two different fresh seeds", a, b, errA, errB)
	}
}

func TestDSNTemplate(t *testing.T) {
	if got, err := dsnTemplate("sqlite", "ignored"); got != "" || err != nil {
		t.Errorf("sqlite: %q, %v; want no DSN", got, err)
	}
	if _, err := dsnTemplate("postgres", ""); err == nil || !strings.Contains(err.Error(), "--dsn-template") {
		t.Errorf("postgres without a template: %v; want an error naming --dsn-template", err)
	}
	if got, err := dsnTemplate("mysql", "u@tcp(127.0.0.1:3306)/db_{node}"); got != "u@tcp(127.0.0.1:3306)/db_{node}" || err != nil {
		t.Errorf("mysql: %q, %v", got, err)
	}
}

func TestRunRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{{"run"}, {"run", "a.toml", "b.toml"}, {"run", filepath.Join(t.TempDir(), "missing.toml")}} {
		cmd := rootCmd()
		cmd.SetArgs(args)
		cmd.SetOut(new(strings.Builder))
		cmd.SetErr(new(strings.Builder))
		if err := cmd.Execute(); err == nil {
			t.Errorf("relchain-e2e %v succeeded", args)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("backend = \"sqlite\"\n[[perturb]]\naction = \"explode\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := rootCmd()
	cmd.SetArgs([]string{"run", bad})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "explode") {
		t.Errorf("a manifest with an unknown action: %v; want an error naming it", err)
	}
}

func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{&violationsError{"x"}, exitViolation},
		{fmt.Errorf("run: %w", e2e.ErrUnsupported), exitUnsupported},
		{errors.New("network did not start"), exitError},
	} {
		if got, _ := exitStatus(c.err); got != c.want {
			t.Errorf("exitStatus(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// TestRunFailsOnViolation runs, in process, a manifest whose
// expect_halt cannot hold (one of four validators killed) with a relchain
// built for it: run must end with a violation (exit status 1) naming it,
// and leave its report and history in --out.
func TestRunFailsOnViolation(t *testing.T) {
	longtest.Require(t, "runs a 4-validator network from a manifest")
	bin := filepath.Join(t.TempDir(), "relchain")
	if b, err := exec.Command("go", "build", "-o", bin, "github.com/relchain/relchain/cmd/relchain").CombinedOutput(); err != nil {
		t.Fatalf("build relchain: %v\n%s", err, b)
	}
	out := t.TempDir()
	cmd := rootCmd()
	cmd.SetArgs([]string{"run", "testdata/violation.toml", "--out", out, "--bin", bin})
	err := cmd.Execute()
	if code, _ := exitStatus(err); code != exitViolation || !strings.Contains(err.Error(), "should halt the chain") {
		t.Fatalf("relchain-e2e run: %v (exit status %d), want a violation naming the halt that did not happen", err, code)
	}
	var rep struct {
		Manifest   string `json:"manifest"`
		Violations []struct {
			Invariant string `json:"invariant"`
		} `json:"violations"`
		Ops struct {
			Acked int `json:"acked"`
		} `json:"ops"`
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Manifest != "violation" || len(rep.Violations) != 1 || rep.Violations[0].Invariant != "fault-effect" || rep.Ops.Acked == 0 {
		t.Errorf("report.json: %s", raw)
	}
	hist, err := os.ReadFile(filepath.Join(out, "history.jsonl"))
	if err != nil || strings.Count(string(hist), "\n") < rep.Ops.Acked {
		t.Errorf("history.jsonl has %d lines for %d acknowledged writes (%v)", strings.Count(string(hist), "\n"), rep.Ops.Acked, err)
	}
}
