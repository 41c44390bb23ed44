package docgate

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pending are pages that other work adds; linked before they exist. The test
// fails once one exists, so that it is removed from here.
var pending = []string{}

// pages are the markdown pages whose relative links must resolve.
func pages(t *testing.T, root string) []string {
	t.Helper()
	ps := []string{"README.md", "BENCHMARKS.md", "RELIABILITY.md", "ARCHITECTURE.md", "CHANGELOG.md", "benchmarks/README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		ps = append(ps, filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator))))
	}
	return ps
}

// TestRepositoryDocs: every relative link of the documentation and every
// documentation hint in the Go code resolves, anchor included.
func TestRepositoryDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	c := &Checker{Root: root, Pending: pending, Skip: []string{"internal/docgate"}}
	for _, p := range c.PendingThatExist() {
		t.Errorf("%s exists now: remove it from pending in docgate_test.go", p)
	}
	var problems []Problem
	for _, p := range pages(t, root) {
		ps, err := c.CheckPage(p)
		if err != nil {
			t.Fatal(err)
		}
		problems = append(problems, ps...)
	}
	ps, err := c.CheckGo()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(problems, ps...) {
		t.Error(p)
	}
}

// TestCheckerFindsBrokenReferences runs the checker on a fixture with planted
// broken anchors, a missing page and a hint in the old form.
func TestCheckerFindsBrokenReferences(t *testing.T) {
	c := &Checker{Root: filepath.Join("testdata", "repo"), Pending: []string{"docs/later.md"}}
	var got []string
	for _, p := range []string{"README.md", "docs/sql.md"} {
		ps, err := c.CheckPage(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			got = append(got, p.String())
		}
	}
	ps, err := c.CheckGo()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		got = append(got, p.String())
	}
	want := []string{
		"README.md:3: docs/sql.md#what-the-gate-forbids: docs/sql.md has no heading with the anchor #what-the-gate-forbids",
		"README.md:4: #nowhere: README.md has no heading with the anchor #nowhere",
		"README.md:4: docs/missing.md: no such file",
		"cmd/hints.go:6: docs/sql.md#what-the-gate-forbids: docs/sql.md has no heading with the anchor #what-the-gate-forbids",
		"cmd/hints.go:9: README: What the gate refuses: a hint by section name cannot be checked: write docs/PAGE.md#anchor",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"What the gate refuses":                          "what-the-gate-refuses",
		"Builtin or server variant (ABCI over a socket)": "builtin-or-server-variant-abci-over-a-socket",
		"Go client: sync, pseudo-sync and async":         "go-client-sync-pseudo-sync-and-async",
		"`relchain verify`: checking a node":             "relchain-verify-checking-a-node",
		"[0.12.0] — unreleased":                          "0120--unreleased",
		"A [link](x.md) and **bold**":                    "a-link-and-bold",
		"snake_case and  two spaces":                     "snake_case-and--two-spaces",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestAnchorsNumberRepeatsAndSkipCode(t *testing.T) {
	got := Anchors("# A\n## A\n```\n# B\n```\n#C\n### A ###\n")
	for _, a := range []string{"a", "a-1", "a-2"} {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
	if got["b"] || got["c"] || len(got) != 3 {
		t.Errorf("anchors %v: want only a, a-1, a-2", got)
	}
}
