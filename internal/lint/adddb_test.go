package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// addDBSample is the database whose footprint stands for a new one's: the
// last added, a server database, so every server-only place shows.
const addDBSample = "mysql"

// addDBConstants are the lab's constants for addDBSample's name
// (bench/workload), which the workloads branch on.
var addDBConstants = map[string]bool{"workload.MySQL": true}

// addDBPlaces reads the places ARCHITECTURE.md's "Adding a database" lists
// outside backend/<db>/: the backticked path at the start of each list item
// between the adddb:places markers, with <db> replaced by db. A path
// ending in "/" is a folder.
func addDBPlaces(t *testing.T, db string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- adddb:places -->")
	section, _, ok2 := strings.Cut(rest, "<!-- /adddb:places -->")
	if !ok || !ok2 {
		t.Fatal("ARCHITECTURE.md has no <!-- adddb:places --> … <!-- /adddb:places --> list")
	}
	var places []string
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "- `") {
			continue
		}
		p, _, _ := strings.Cut(strings.TrimPrefix(line, "- `"), "`")
		places = append(places, strings.ReplaceAll(p, "<db>", db))
	}
	if len(places) < 3 {
		t.Fatalf("ARCHITECTURE.md lists only %d places for a new database", len(places))
	}
	return places
}

// mentionsDatabase reports whether f names db in code (not in comments): a
// string literal that is its name, an import of its backend folder, or one
// of the lab's constants for it.
func mentionsDatabase(f *ast.File, db string, constants map[string]bool) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			p, _ := strconv.Unquote(n.Path.Value)
			found = found || under(p, mod+"/backend/"+db)
			return false
		case *ast.BasicLit:
			found = found || n.Value == strconv.Quote(db)
		case *ast.SelectorExpr:
			found = found || constants[exprName(n)]
		}
		return !found
	})
	return found
}

// placeCovers reports whether place (a file, or a folder ending in "/")
// holds path.
func placeCovers(place, path string) bool {
	return path == place || (strings.HasSuffix(place, "/") && strings.HasPrefix(path, place))
}

// TestAddingADatabaseTouchesOnlyTheListedPlaces walks ARCHITECTURE.md's
// steps: every non-test Go file outside backend/<db>/ that names the
// sample database is one of the listed places, and every listed place
// still names it, so the list is exactly what adding a database touches.
func TestAddingADatabaseTouchesOnlyTheListedPlaces(t *testing.T) {
	places := addDBPlaces(t, addDBSample)
	used := map[string]bool{}
	goFiles(t, ".", func(path string, _ *token.FileSet, f *ast.File) {
		path = filepath.ToSlash(path)
		if strings.HasPrefix(path, "backend/"+addDBSample+"/") || !mentionsDatabase(f, addDBSample, addDBConstants) {
			return
		}
		i := slices.IndexFunc(places, func(p string) bool { return placeCovers(p, path) })
		if i < 0 {
			t.Errorf("%s names %s but ARCHITECTURE.md's \"Adding a database\" does not list it: ask package dialect, "+
				"the registry or Capabilities, or list the place with its reason", path, addDBSample)
			return
		}
		used[places[i]] = true
	})
	for _, p := range places {
		if !used[p] {
			t.Errorf("ARCHITECTURE.md lists %s, which no longer names %s: drop it from \"Adding a database\"", p, addDBSample)
		}
	}
}

// The walk fails on a planted violation: a file that names the database
// outside the listed places.
func TestAddDBWalkCatchesPlantedMention(t *testing.T) {
	src := "package p\nimport _ \"" + mod + "/backend/mysql\"\nvar x = workload.MySQL\n"
	for i, s := range []string{src, "package p\nfunc f(d string) bool { return d == \"mysql\" }\n", "package p\n// mysql in a comment\nvar y = \"mysqlx\"\n"} {
		f := parseSource(t, s)
		if got, want := mentionsDatabase(f, "mysql", addDBConstants), i < 2; got != want {
			t.Errorf("source %d: mentionsDatabase = %v, want %v", i, got, want)
		}
	}
	places := []string{"dialect/dialects.go", "bench/"}
	if slices.ContainsFunc(places, func(p string) bool { return placeCovers(p, "node/planted.go") }) ||
		!slices.ContainsFunc(places, func(p string) bool { return placeCovers(p, "bench/tpcc/gen.go") }) {
		t.Fatal("placeCovers: node/planted.go must be outside the places, bench/tpcc/gen.go inside")
	}
}

// parseSource parses one Go file's source.
func parseSource(t *testing.T, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
