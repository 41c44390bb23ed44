package lint

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Database-neutral layering (issue 34, part 4): what the client side links,
// which way the lab and the executor's harness depend on each other, and
// where database names may steer code.

// driverFreePkgs are the client side: they link no database driver, no SQL
// parser, no backend and no cgo, so `relchain gateway`'s, the client
// commands' (clientcmd: exec, query, tx, status, keys, admin) and a Go
// client's code builds without a C toolchain and does not grow with each
// database. cmd/relchain-client is the binary of the client commands: the
// whole program, main and all, is checked, not only its libraries.
// statetree and rowcanon are what a verifying client checks proofs and
// row images with (issue 36), so they are client side too.
var driverFreePkgs = []string{mod + "/api", mod + "/txn", mod + "/keyring", mod + "/dialect", mod + "/client", mod + "/pgwire", mod + "/gateway",
	mod + "/cmd/internal/clientcmd", mod + "/cmd/relchain-client", mod + "/statetree", mod + "/rowcanon"}

// driverPkgs are database drivers, the databases' parsers and relchain's
// backends (a prefix ending in "/" names a folder; otherwise the package
// and those below it). pgx's pgproto3 and pgtype (the wire protocol and
// its types, which pgwire serves) are not drivers; pgx's connection
// packages are.
var driverPkgs = []string{
	"github.com/ncruces/go-sqlite3", "github.com/go-sql-driver/", "github.com/lib/pq",
	"github.com/jackc/pgx/v5/pgconn", "github.com/jackc/pgx/v5/stdlib", "github.com/jackc/pgx/v5/pgxpool",
	"github.com/pganalyze/pg_query_go", "github.com/dolthub/vitess",
	mod + "/backend",
}

// driverFreeExceptions are the known, named departures: package → the
// dependencies it may still have. Each is a debt with its reason; the
// test fails when one is no longer needed, so the list only shrinks.
// None today: the gateway's libpg_query (catalog-only reads, plain
// writes) moved to sqlcheck/pgclass, passed in as gateway.Classifier.
var driverFreeExceptions = map[string][]string{}

// listedDep is one dependency as `go list -deps -json` reports it.
type listedDep struct {
	ImportPath string
	Standard   bool
	CgoFiles   []string
}

// driverFreeViolations lists what pkg's dependencies deps break: a driver,
// a parser or a backend (driverPkgs), or a non-standard package with cgo
// files; allowed are the prefixes pkg may still depend on.
func driverFreeViolations(pkg string, deps []listedDep, allowed []string) []string {
	var out []string
	for _, d := range deps {
		if slices.ContainsFunc(allowed, func(a string) bool { return under(d.ImportPath, a) }) {
			continue
		}
		if slices.ContainsFunc(driverPkgs, func(f string) bool { return matchesPrefix(d.ImportPath, f) }) {
			out = append(out, pkg+" depends on "+d.ImportPath+": a database driver, parser or backend")
		} else if len(d.CgoFiles) > 0 && !d.Standard {
			out = append(out, pkg+" depends on "+d.ImportPath+": cgo")
		}
	}
	return out
}

// matchesPrefix: f ending in "/" names a folder, otherwise a package and
// those below it.
func matchesPrefix(path, f string) bool {
	if strings.HasSuffix(f, "/") {
		return strings.HasPrefix(path, f)
	}
	return under(path, f)
}

// listDeps runs `go list -deps` on pkg (below it: pkg/...).
func listDeps(t *testing.T, pkg string) []listedDep {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,CgoFiles", pkg+"/...").Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var deps []listedDep
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var d listedDep
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		deps = append(deps, d)
	}
	return deps
}

// TestClientSideLinksNoDriverNorCgo checks driverFreePkgs with `go list
// -deps` (tests' imports are not linked into a binary and are left out).
func TestClientSideLinksNoDriverNorCgo(t *testing.T) {
	for _, pkg := range driverFreePkgs {
		deps := listDeps(t, pkg)
		if len(deps) < 1 {
			t.Fatalf("go list -deps %s listed %d packages", pkg, len(deps))
		}
		for _, v := range driverFreeViolations(pkg, deps, driverFreeExceptions[pkg]) {
			t.Error(v)
		}
		for _, a := range driverFreeExceptions[pkg] {
			if !slices.ContainsFunc(deps, func(d listedDep) bool { return under(d.ImportPath, a) }) {
				t.Errorf("%s no longer depends on %s: remove it from driverFreeExceptions", pkg, a)
			}
		}
	}
}

// The rule fails on a planted violation: a driver, a cgo package, a
// backend; the wire protocol's pgx packages and std's cgo (net) pass.
func TestDriverFreeRuleCatchesPlantedViolations(t *testing.T) {
	deps := []listedDep{
		{ImportPath: "net", Standard: true, CgoFiles: []string{"cgo_unix.go"}},
		{ImportPath: "github.com/jackc/pgx/v5/pgproto3"},
		{ImportPath: "github.com/go-sql-driver/mysql"},
		{ImportPath: "github.com/example/cgolib", CgoFiles: []string{"lib.go"}},
		{ImportPath: mod + "/backend/registry"},
	}
	got := driverFreeViolations("planted", deps, nil)
	if len(got) != 3 || !strings.Contains(got[0], "go-sql-driver") || !strings.Contains(got[1], "cgo") || !strings.Contains(got[2], "backend/registry") {
		t.Fatalf("violations = %q, want the driver, the cgo package and the backend", got)
	}
	if got := driverFreeViolations("planted", deps[2:3], []string{"github.com/go-sql-driver/mysql"}); len(got) != 0 {
		t.Fatalf("an allowed dependency was reported: %q", got)
	}
}

// layerCycles are pairs (low, high): low, with its tests, never imports
// high, whose tests use low. The executor's harness app/workloadtest is
// used by the lab's tests, so app must not import the lab back: the
// executor's benchmarks that run the lab's workloads live on the lab's
// side (bench/appbench), with no exception.
var layerCycles = [][2]string{
	{mod + "/app", mod + "/bench"},
}

// cycleViolations lists the imports of path (a package, or one of its
// test variants) that go from a low layer to its high one.
func cycleViolations(path string, imports []string) []string {
	var out []string
	for _, c := range layerCycles {
		if !under(path, c[0]) {
			continue
		}
		for _, imp := range imports {
			imp = strip(imp)
			if under(imp, c[1]) {
				out = append(out, path+" imports "+imp+": "+c[1]+" depends on "+c[0]+", not the other way round")
			}
		}
	}
	return out
}

// TestNoLayerCycles checks layerCycles on every package and its tests.
func TestNoLayerCycles(t *testing.T) {
	for _, p := range listPackages(t) {
		path, _ := p.base()
		if path == "" {
			continue
		}
		for _, v := range cycleViolations(path, p.Imports) {
			t.Error(v)
		}
	}
}

// The cycle rule fails on a planted violation, in a test variant too:
// app's external tests importing the lab's Smallbank, as app's Smallbank
// benchmark once did, is one again.
func TestCycleRuleCatchesPlantedViolation(t *testing.T) {
	got := cycleViolations(mod+"/app/workloadtest", []string{mod + "/txn", mod + "/bench/workload [" + mod + "/app/workloadtest.test]"})
	if len(got) != 1 || !strings.Contains(got[0], "bench/workload") {
		t.Fatalf("violations = %q, want the import of bench/workload", got)
	}
	got = cycleViolations(mod+"/app", []string{mod + "/app", mod + "/bench/smallbank", mod + "/bench/workload"})
	if len(got) != 2 || !strings.Contains(got[0], "bench/smallbank") || !strings.Contains(got[1], "bench/workload") {
		t.Fatalf("violations of app's tests = %q, want the imports of bench/smallbank and bench/workload", got)
	}
}

// dialectNameAllowed are the folders and files outside backend/<db>/ and
// backend/registry whose non-test code may branch on a database's name,
// each with why no Capabilities field or package dialect question does.
var dialectNameAllowed = map[string]string{
	"backend/sqlite/":   "the database's own folder",
	"backend/postgres/": "the database's own folder",
	"backend/mysql/":    "the database's own folder",
	"backend/registry/": "opens each database by name",
	"dialect/":          "describes each database by name",
	// Starts each server database's private test server, by name.
	"backend/internal/serverdb/cmd/testdb/": "the test-database launcher picks a server by name",
	// Not the lab (bench/, cmd/relchain-bench/): it looks up per-database
	// data by the dialect's name (bench/workload's Database, each
	// workload's spellings, raw's openers), each table checked by a test
	// against dialect.Names(), or asks package dialect (Server,
	// Wire.Placeholders).
}

// comparedDialectNames are the database names a comparison or case may not
// use: the literals, and the lab's constants for them (inside package
// workload, where they are bare identifiers, too).
var comparedDialectNames = map[string]bool{`"sqlite"`: true, `"postgres"`: true, `"mysql"`: true,
	"workload.SQLite": true, "workload.Postgres": true, "workload.MySQL": true}

// dialectComparisons lists where src, a Go file, compares with a database
// name: == or !=, a switch case, or slices.Contains/Index over them.
func dialectComparisons(path string, fset *token.FileSet, f *ast.File) []string {
	var out []string
	report := func(e ast.Expr) {
		name := exprName(e)
		if id, ok := e.(*ast.Ident); ok {
			name = f.Name.Name + "." + id.Name // a package's own constant, as its importers spell it
		}
		if comparedDialectNames[name] {
			out = append(out, path+":"+strconv.Itoa(fset.Position(e.Pos()).Line)+" compares with the database name "+name)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				report(n.X)
				report(n.Y)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				report(e)
			}
		case *ast.CallExpr:
			if fn := exprName(n.Fun); fn == "slices.Contains" || fn == "slices.Index" {
				for _, a := range n.Args {
					if cl, ok := a.(*ast.CompositeLit); ok {
						for _, e := range cl.Elts {
							report(e)
						}
					}
					report(a)
				}
			}
		}
		return true
	})
	return out
}

// exprName is a string literal's source text or a selector's x.Sel.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			return e.Value
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	}
	return ""
}

// dialectNameIsAllowed reports whether path (slash-separated, from the
// module root) is on dialectNameAllowed.
func dialectNameIsAllowed(path string) bool {
	for p := range dialectNameAllowed {
		if path == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			return true
		}
	}
	return false
}

// TestNoDialectNamesOutsideTheirFolders: outside backend/<db>/, the
// registry and dialectNameAllowed, no non-test code steers on a database's
// name (backend/ included, unlike TestNoDialectNamesAboveBackend): it asks
// package dialect, backend/registry's Driver or backend.Capabilities.
func TestNoDialectNamesOutsideTheirFolders(t *testing.T) {
	files := 0
	used := map[string]bool{}
	goFiles(t, ".", func(path string, fset *token.FileSet, f *ast.File) {
		path = filepath.ToSlash(path)
		files++
		found := dialectComparisons(path, fset, f)
		if dialectNameIsAllowed(path) {
			for p := range dialectNameAllowed {
				if len(found) > 0 && (path == p || strings.HasPrefix(path, p)) {
					used[p] = true
				}
			}
			return
		}
		for _, v := range found {
			t.Error(v + ": ask package dialect, backend/registry's Driver or backend.Capabilities")
		}
	})
	if files < 50 {
		t.Fatalf("checked only %d files; is the module root right?", files)
	}
	for p, why := range dialectNameAllowed {
		if !used[p] && !strings.HasPrefix(p, "backend/sqlite") && !strings.HasPrefix(p, "backend/postgres") && !strings.HasPrefix(p, "backend/mysql") && p != "backend/registry/" && p != "dialect/" {
			t.Errorf("dialectNameAllowed[%q] (%s) matches no comparison any more: remove it", p, why)
		}
	}
}

// The scan fails on planted violations and passes neutral code.
func TestDialectScanCatchesPlantedViolations(t *testing.T) {
	src := `package p
func f(d string) bool {
	switch d {
	case "postgres":
	}
	if slices.Contains([]string{"sqlite"}, d) {
	}
	_ = d == workload.MySQL
	_ = d == "oracle"
	return d != "mysql"
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := dialectComparisons("planted.go", fset, f)
	want := []string{`planted.go:4 compares with the database name "postgres"`, `planted.go:6 compares with the database name "sqlite"`,
		`planted.go:8 compares with the database name workload.MySQL`, `planted.go:10 compares with the database name "mysql"`}
	if !slices.Equal(got, want) {
		t.Fatalf("scan found\n%q\nwant\n%q", got, want)
	}
	for _, p := range []string{"node/planted.go", "bench/tpcc/gen.go", "bench/workload/planted.go", "cmd/relchain-bench/bench.go"} {
		if dialectNameIsAllowed(p) {
			t.Errorf("allow-list: %s must not be allowed (the lab asks its per-database tables)", p)
		}
	}
	if !dialectNameIsAllowed("backend/registry/mysql.go") || !dialectNameIsAllowed("dialect/dialects.go") {
		t.Error("allow-list: the registry and package dialect must be allowed")
	}
}

// The lab's own constants are caught inside package workload, where they
// are bare identifiers, as in a file of the lab that imports them.
func TestDialectScanCatchesTheLabsConstants(t *testing.T) {
	for path, src := range map[string]string{
		"bench/workload/planted.go": "package workload\nconst MySQL = \"mysql\"\nfunc f(d string) bool { return d != MySQL }\n",
		"bench/tpcc/planted.go":     "package tpcc\nfunc f(d string) bool { return d == workload.Postgres }\n",
		"bench/other/planted.go":    "package other\nconst MySQL = 3\nfunc f(d int) bool { return d == MySQL }\n",
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := dialectComparisons(path, fset, f)
		if want := path != "bench/other/planted.go"; (len(got) == 1) != want || dialectNameIsAllowed(path) {
			t.Errorf("%s: scan found %q (allowed: %v); want a violation: %v", path, got, dialectNameIsAllowed(path), want)
		}
	}
}
