package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeLab writes a relchain-bench into dir that prints its arguments and
// RELCHAIN_BIN and exits with status.
func fakeLab(t *testing.T, dir, status string) string {
	t.Helper()
	p := filepath.Join(dir, labBinary)
	script := "#!/bin/sh\necho \"args:$*\"\necho \"bin:$RELCHAIN_BIN\"\necho lab-stderr >&2\nexit " + status + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBenchFindsTheLabNextToTheExecutableFirst(t *testing.T) {
	next, inPath := t.TempDir(), t.TempDir()
	want := fakeLab(t, next, "0")
	fakeLab(t, inPath, "0")
	t.Setenv("PATH", inPath)
	got, err := findLab(filepath.Join(next, "relchain"))
	if err != nil || got != want {
		t.Fatalf("findLab: %q, %v; want %q", got, err, want)
	}
}

func TestBenchFindsTheLabInPath(t *testing.T) {
	inPath := t.TempDir()
	want := fakeLab(t, inPath, "0")
	t.Setenv("PATH", inPath)
	got, err := findLab(filepath.Join(t.TempDir(), "relchain"))
	if err != nil || got != want {
		t.Fatalf("findLab: %q, %v; want %q", got, err, want)
	}
}

func TestBenchWithoutTheLabSaysToMakeBuild(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := findLab(filepath.Join(t.TempDir(), "relchain"))
	if err == nil || !strings.Contains(err.Error(), "make build") || !strings.Contains(err.Error(), "relchain-bench") {
		t.Fatalf("findLab without a lab: %v; want an error naming relchain-bench and make build", err)
	}
}

func TestBenchPassesArgumentsStreamsAndExitStatus(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "relchain")
	for _, tc := range []struct {
		status string
		code   int
	}{{"0", 0}, {"7", 7}} {
		lab := fakeLab(t, dir, tc.status)
		var stdout, stderr bytes.Buffer
		err := runLab(lab, self, []string{"paper", "--output", "out dir", "--quick"}, strings.NewReader(""), &stdout, &stderr)
		if want := "args:paper --output out dir --quick\nbin:" + self + "\n"; stdout.String() != want {
			t.Errorf("lab stdout %q, want %q", stdout.String(), want)
		}
		if stderr.String() != "lab-stderr\n" {
			t.Errorf("lab stderr %q", stderr.String())
		}
		var le *labExit
		switch {
		case tc.code == 0 && err != nil:
			t.Errorf("status 0: %v", err)
		case tc.code != 0 && (!errors.As(err, &le) || le.code != tc.code):
			t.Errorf("status %d: got %v", tc.code, err)
		}
	}
}

// `relchain bench` parses no flags itself: --help and the lab's flags
// reach the lab unchanged.
func TestBenchCommandForwardsItsFlagsUnparsed(t *testing.T) {
	inPath := t.TempDir()
	fakeLab(t, inPath, "3")
	t.Setenv("PATH", inPath)
	root := rootCmd()
	var stdout bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"bench", "--workload", "tpcc", "--help"})
	err := root.Execute()
	if !strings.Contains(stdout.String(), "args:--workload tpcc --help\n") {
		t.Fatalf("lab output %q", stdout.String())
	}
	if !isLabExit(err, 3) {
		t.Fatalf("exit: %v, want the lab's status 3", err)
	}
}

func isLabExit(err error, code int) bool {
	var le *labExit
	return errors.As(err, &le) && le.code == code
}
