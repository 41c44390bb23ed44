package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Layering of the running node, the operator's tools and fault injection
// (issue 34 part 4). The rules reuse imports_test.go's rule type; they
// are checked on the default build and on the test-hooks build, whose
// extra files (relchain debug tamper, the backends' fault-injection
// hooks) must keep them too.

// Database drivers: every client library that talks to a database.
// pgx's pgproto3 and pgtype are the PostgreSQL wire protocol's messages
// and types, not a connection (allowed to pgwire below).
var opsDrivers = []string{"database/sql", "github.com/jackc/pgx", "github.com/go-sql-driver", "github.com/ncruces/go-sqlite3", "github.com/lib/pq"}

// driverImporters are the packages (with the packages below them) whose
// non-test code may import a database driver. Everything else reaches a
// database through a backend, opened by name with backend/registry.
var driverImporters = []string{
	mod + "/backend/sqlite",   // the backends themselves, their setup and
	mod + "/backend/postgres", // test-server helpers (pgsetup, pgtest,
	mod + "/backend/mysql",    // mysqltest) and fault-injection hooks
	// backend/registry registers the drivers: it parses a MySQL DSN
	// (mysql.go) to tell a node's accounts apart.
	mod + "/backend/registry",
	// The benchmark lab drives the databases itself (the raw baseline
	// bench/raw, the cost model bench/cost, SQLite's driver for its
	// reference runs); cmd/relchain never links it (imports_test.go).
	mod + "/bench",
	// The e2e harness kills, restarts and inspects its own private
	// database servers (test/e2e/dbfaults.go); it never writes a node's
	// database (tamper goes through a test-hooks relchain).
	mod + "/test/e2e",
	// The PostgreSQL wire protocol: pgx's message codec and types only
	// (the next rule).
	mod + "/pgwire",
	// The emulated PostgreSQL catalog answers catalog queries on a private
	// in-memory SQLite database of its own, filled from the Schema a
	// backend describes: it never opens a node's database.
	mod + "/backend/pgcatalog",
}

var opsRules = []rule{
	{pkg: mod + "/node", direct: true, forbidden: []string{mod + "/client"},
		why: "the running node does not import the client (the listener reports a failed read as api.QueryError); its tests may drive it through one"},
	{pkg: mod + "/node", testToo: true, forbidden: []string{mod + "/ops"},
		why: "the operator's tools (package ops) import node for a home's layout; node never depends on them: what both need is below both (internal/dbrestore, internal/cometstore)"},
	{pkg: mod + "/internal/dbrestore", testToo: true, forbidden: []string{mod + "/node", mod + "/ops", mod + "/client", mod + "/cmd"},
		why: "dbrestore lies below node and ops, which both use it"},
	{pkg: mod + "/internal/cometstore", testToo: true, forbidden: []string{mod + "/"},
		why: "cometstore lies below node and ops and knows nothing of relchain"},
	// database/sql/driver is the value interfaces (driver.Valuer), no connection.
	{pkg: mod, direct: true, forbidden: opsDrivers, allowed: []string{"database/sql/driver"}, exceptPkgs: driverImporters,
		why: "only backend/<db> (and the registration point backend/registry, the benchmark lab, the e2e harness's database servers) import a database driver"},
	{pkg: mod + "/pgwire", direct: true, forbidden: opsDrivers,
		allowed: []string{"github.com/jackc/pgx/v5/pgproto3", "github.com/jackc/pgx/v5/pgtype", "database/sql/driver"},
		why:     "the wire protocol uses pgx's message codec and types, never a connection"},
}

// opsViolations checks rules against pkgs (as go list -test lists them)
// and returns one line per violation.
func opsViolations(pkgs []pkg, rules []rule) []string {
	var out []string
	for _, p := range pkgs {
		path, isTest := p.base()
		if path == "" {
			continue
		}
		for _, r := range rules {
			if !under(path, r.pkg) || (isTest && !r.testToo) || slices.ContainsFunc(r.exceptPkgs, func(e string) bool { return under(path, e) }) {
				continue
			}
			deps := p.Deps
			if r.direct {
				deps = p.Imports
			}
			for _, d := range deps {
				if r.violates(path, strip(d)) {
					out = append(out, fmt.Sprintf("%s (test=%v) %s %s: %s", path, isTest, map[bool]string{true: "imports", false: "depends on"}[r.direct], strip(d), r.why))
				}
			}
		}
	}
	return out
}

// listPackagesTags is listPackages for a build with tags.
func listPackagesTags(t *testing.T, tags string) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-test", "-tags", tags, "-json=ImportPath,Imports,Deps,ForTest", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list -tags %q: %v", tags, err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 40 {
		t.Fatalf("go list found only %d packages; is the module root right?", len(pkgs))
	}
	return pkgs
}

func TestLayeringOps(t *testing.T) {
	for _, tags := range []string{"", "testhooks"} {
		for _, v := range opsViolations(listPackagesTags(t, tags), opsRules) {
			t.Errorf("tags=%q: %s", tags, v)
		}
	}
}

// Each rule catches a planted violation, and lets the allowed imports by.
func TestLayeringOpsRulesCatchViolations(t *testing.T) {
	planted := []struct {
		p    pkg
		want string // "" : no violation
	}{
		{pkg{ImportPath: mod + "/node", Imports: []string{mod + "/client"}}, "does not import the client"},
		{pkg{ImportPath: mod + "/node [" + mod + "/node.test]", Imports: []string{mod + "/client"}}, ""},
		{pkg{ImportPath: mod + "/node", Deps: []string{mod + "/ops"}}, "never depends on them"},
		{pkg{ImportPath: mod + "/node/sub", Deps: []string{mod + "/ops"}}, "never depends on them"},
		{pkg{ImportPath: mod + "/ops", Imports: []string{mod + "/node"}, Deps: []string{mod + "/node"}}, ""},
		{pkg{ImportPath: mod + "/internal/dbrestore", Deps: []string{mod + "/node"}}, "below node and ops"},
		{pkg{ImportPath: mod + "/internal/cometstore", Deps: []string{mod + "/backend"}}, "knows nothing of relchain"},
		{pkg{ImportPath: mod + "/cmd/relchain", Imports: []string{"github.com/go-sql-driver/mysql"}}, "import a database driver"},
		{pkg{ImportPath: mod + "/cmd/relchain", Imports: []string{"github.com/jackc/pgx/v5"}}, "import a database driver"},
		{pkg{ImportPath: mod + "/node", Imports: []string{"github.com/ncruces/go-sqlite3"}}, "import a database driver"},
		{pkg{ImportPath: mod + "/ops", Imports: []string{"database/sql"}}, "import a database driver"},
		{pkg{ImportPath: mod + "/backend", Imports: []string{"database/sql/driver"}}, ""},
		{pkg{ImportPath: mod + "/backend/postgres", Imports: []string{"github.com/jackc/pgx/v5"}}, ""},
		{pkg{ImportPath: mod + "/backend/registry", Imports: []string{"github.com/go-sql-driver/mysql"}}, ""},
		{pkg{ImportPath: mod + "/pgwire", Imports: []string{"github.com/jackc/pgx/v5/pgproto3"}}, ""},
		{pkg{ImportPath: mod + "/pgwire", Imports: []string{"github.com/jackc/pgx/v5/pgconn"}}, "never a connection"},
	}
	for _, c := range planted {
		got := opsViolations([]pkg{c.p}, opsRules)
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s importing %v: %v, want no violation", c.p.ImportPath, append(c.p.Imports, c.p.Deps...), got)
		case c.want != "" && (len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), c.want)):
			t.Errorf("%s importing %v: %v, want a violation saying %q", c.p.ImportPath, append(c.p.Imports, c.p.Deps...), got, c.want)
		}
	}
}

// debugCommand matches a cobra command named debug or tamper.
var debugCommand = regexp.MustCompile(`Use:\s*"(debug|tamper)\b`)

// releaseDebugFiles returns the files among files (name → source) that
// define relchain debug or debug tamper without a testhooks build
// constraint: the ones a release binary would compile it from.
func releaseDebugFiles(files map[string]string) []string {
	var bad []string
	for name, src := range files {
		if debugCommand.MatchString(src) && !strings.Contains(src, "//go:build testhooks") {
			bad = append(bad, name)
		}
	}
	slices.Sort(bad)
	return bad
}

// The release binary has no relchain debug tamper: no file of the
// default build of cmd/relchain defines the debug or tamper command.
// (cmd/relchain's TestReleaseBuildHasNoDebugTamper asks the command tree.)
func TestReleaseRelchainHasNoDebugTamper(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, mod+"/cmd/relchain").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 10 {
		t.Fatalf("go list cmd/relchain: %q", out)
	}
	files := map[string]string{}
	hooked := false
	for _, f := range fields[1:] {
		b, err := os.ReadFile(filepath.Join(fields[0], f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
		hooked = hooked || strings.Contains(string(b), "//go:build testhooks")
	}
	if hooked {
		t.Fatal("go list's default build of cmd/relchain lists a testhooks file: the check reads the wrong build")
	}
	if bad := releaseDebugFiles(files); len(bad) != 0 {
		t.Errorf("the release build of cmd/relchain defines relchain debug/tamper in %v: keep fault injection behind //go:build testhooks", bad)
	}
	// The planted violation: the same command in an untagged file is caught,
	// and in a tagged one is not.
	cmd := "cmd := &cobra.Command{\n\t\tUse:   \"tamper\",\n"
	if got := releaseDebugFiles(map[string]string{"debug.go": "package main\n" + cmd}); len(got) != 1 {
		t.Errorf("an untagged debug tamper was not caught: %v", got)
	}
	if got := releaseDebugFiles(map[string]string{"debug_testhooks.go": "//go:build testhooks\n\npackage main\n" + cmd}); len(got) != 0 {
		t.Errorf("a testhooks debug tamper was flagged: %v", got)
	}
}
