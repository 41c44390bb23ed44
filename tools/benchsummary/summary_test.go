package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var root = filepath.Join("..", "..")

// TestBenchmarksUpToDate: the committed BENCHMARKS.md is exactly what
// benchmarks/current.json gives.
func TestBenchmarksUpToDate(t *testing.T) {
	d, err := load(filepath.Join(root, "benchmarks", "current.json"), root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != render(d) {
		t.Error("BENCHMARKS.md is not what benchmarks/current.json gives: run `make bench-summary` and commit both")
	}
}

// TestCheckRefusesIncompleteFigures: a figure without a command, with a
// malformed date or with a journal entry that does not exist is refused.
func TestCheckRefusesIncompleteFigures(t *testing.T) {
	good := Figure{What: "w", Backend: "SQLite", Value: "1", Unit: "x", Command: "c", Date: "2026-12-02", Journal: "benchmarks/JOURNAL.md#x"}
	for name, tc := range map[string]struct {
		edit func(*Figure)
		want string
	}{
		"no command":      {func(f *Figure) { f.Command = "" }, "needs what, value and command"},
		"bad date":        {func(f *Figure) { f.Date = "2 Dec" }, "not YYYY-MM-DD"},
		"missing journal": {func(f *Figure) { f.Journal = "benchmarks/NOPE.md#x" }, "journal entry"},
		"no journal":      {func(f *Figure) { f.Journal = "" }, "no journal entry"},
	} {
		f := good
		tc.edit(&f)
		err := Data{Sections: []Section{{Title: "s", Figures: []Figure{f}}}}.check(root)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tc.want)
		}
	}
	if err := (Data{Sections: []Section{{Title: "s", Figures: []Figure{good}}}}).check(root); err != nil {
		t.Errorf("a complete figure: %v", err)
	}
}
