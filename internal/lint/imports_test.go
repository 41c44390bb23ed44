package lint

import (
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/relchain/relchain"

// pkg is one package as `go list -test` reports it: a package, its
// in-package test variant ("p [p.test]") or its external test package
// ("p_test [p.test]"), each with its direct imports and all it depends on.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	ForTest    string
}

// base is the package a listed variant belongs to ("" for the generated
// test main "p.test"), and whether the variant is test code.
func (p pkg) base() (string, bool) {
	path, _, variant := strings.Cut(p.ImportPath, " [")
	if strings.HasSuffix(path, ".test") {
		return "", true
	}
	if p.ForTest != "" {
		return p.ForTest, true
	}
	return path, variant
}

// strip drops the " [p.test]" suffix go list puts on test-built deps.
func strip(path string) string {
	path, _, _ = strings.Cut(path, " [")
	return path
}

// under reports whether path is prefix or a package below it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// listPackages runs `go list -test` over the module: every package with
// its tests' imports too (plain `go list -deps` leaves test imports out).
func listPackages(t *testing.T) []pkg {
	t.Helper()
	return listPackagesTags(t, "")
}

// rule forbids the packages below pkg to import (direct) or depend on
// (transitive) what forbidden names, unless it is under one of allowed.
// testToo applies it to the packages' tests as well.
type rule struct {
	pkg        string
	direct     bool
	exact      bool // forbidden names packages, not folders
	testToo    bool
	forbidden  []string
	allowed    []string
	exceptPkgs []string
	why        string
}

var (
	concreteBackends = []string{mod + "/backend/sqlite", mod + "/backend/postgres", mod + "/backend/mysql"}
	databaseDrivers  = []string{"database/sql", "github.com/jackc/pgx", "github.com/go-sql-driver", "github.com/ncruces/go-sqlite3", "github.com/lib/pq"}
	testServers      = []string{mod + "/backend/postgres/pgtest", mod + "/backend/mysql/mysqltest"}
)

var rules = []rule{
	{pkg: mod + "/backend", testToo: true, forbidden: []string{mod + "/app", mod + "/node", mod + "/client", mod + "/netctl", mod + "/cmd", mod + "/bench", "github.com/cometbft/cometbft"},
		why: "a backend only runs SQL; it knows nothing of consensus"},
	{pkg: mod + "/txn", forbidden: []string{"github.com/", mod + "/"}, why: "the envelope depends on the standard library only"},
	{pkg: mod + "/api", forbidden: []string{"github.com/", mod + "/"}, why: "the wire contract depends on the standard library only"},
	{pkg: mod + "/client", testToo: true, forbidden: []string{mod + "/app", mod + "/backend", mod + "/node"}, why: "clients speak RPC only"},
	{pkg: mod + "/app", testToo: true, forbidden: []string{mod + "/node", mod + "/client", mod + "/cmd", mod + "/netctl"},
		why: "the application is driven, it does not drive"},
	{pkg: mod + "/sqlcheck", testToo: true, forbidden: append([]string{mod + "/backend"}, databaseDrivers...),
		why: "the dialect-independent gate types are pure: no database, no storage"},
	{pkg: mod + "/backend/postgres/pggate", forbidden: append([]string{mod + "/backend/postgres"}, databaseDrivers...),
		allowed: []string{mod + "/backend/postgres/pggate"}, why: "a gate judges text: no database connection"},
	{pkg: mod + "/backend/mysql/mysqlgate", forbidden: append([]string{mod + "/backend/mysql"}, databaseDrivers...),
		allowed: []string{mod + "/backend/mysql/mysqlgate"}, why: "a gate judges text: no database connection"},
	{pkg: mod + "/pgwire", testToo: true, forbidden: []string{mod + "/"}, allowed: []string{mod + "/pgwire"},
		why: "the PostgreSQL wire protocol knows nothing of the chain: a gateway's Session brings the semantics"},
	{pkg: mod + "/cmd/relchain", forbidden: []string{"gonum.org/", mod + "/bench", mod + "/backend/backendtest", mod + "/backend/internal/serverdb", testServers[0], testServers[1]},
		why: "the node binary links neither the benchmark lab nor the test-database launchers"},
	{pkg: mod + "/test", direct: true, testToo: true, forbidden: []string{mod + "/app", mod + "/backend"}, allowed: testServers,
		why: "black-box tests speak RPC only (they may start private database servers)"},
	{pkg: mod, direct: true, exact: true, forbidden: concreteBackends, exceptPkgs: []string{mod + "/backend", mod + "/bench/raw"},
		why: "above backend/, a backend is opened by name through backend/registry (the raw baseline drives the databases itself)"},
}

// TestDependencyRules checks every rule against every package and, where
// the rule says so, its tests.
func TestDependencyRules(t *testing.T) {
	for _, p := range listPackages(t) {
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
				if bad := r.violates(path, strip(d)); bad {
					t.Errorf("%s (test=%v) %s %s: %s", path, isTest, map[bool]string{true: "imports", false: "depends on"}[r.direct], strip(d), r.why)
				}
			}
		}
	}
}

func (r rule) violates(path, dep string) bool {
	if under(dep, path) || slices.ContainsFunc(r.allowed, func(a string) bool { return under(dep, a) }) {
		return false
	}
	return slices.ContainsFunc(r.forbidden, func(f string) bool {
		if r.exact {
			return dep == f
		}
		return dep == f || strings.HasPrefix(dep, strings.TrimSuffix(f, "/")+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f))
	})
}
