package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the module root, from this package's directory.
const root = "../.."

// maxFuncLines is how long a function may be, from func to its closing
// brace, in the folders readers change most (funcLengthDirs).
const maxFuncLines = 80

// funcLengthDirs are the trees whose non-test functions must fit on one
// screen: the executor, the gates, the wire protocol and the benchmark
// lab's runner.
var funcLengthDirs = []string{"app", "backend/sqlite", "backend/postgres/pggate", "backend/mysql/mysqlgate", "pgwire", "bench", "cmd/relchain-bench"}

// goFiles calls fn for every parsed non-test Go file below dir (relative
// to the module root), skipping testdata and the tools module.
func goFiles(t *testing.T, dir string, fn func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	base := filepath.Join(root, dir)
	if _, err := os.Stat(base); os.IsNotExist(err) {
		return
	}
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != base && (d.Name() == "testdata" || d.Name() == "tools" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFunctionLength keeps functions short where most changes land.
func TestFunctionLength(t *testing.T) {
	n := 0
	for _, dir := range funcLengthDirs {
		goFiles(t, dir, func(path string, fset *token.FileSet, f *ast.File) {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				n++
				lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				if lines > maxFuncLines {
					t.Errorf("%s:%d: %s is %d lines; split it into named steps (at most %d)", path, fset.Position(fd.Pos()).Line, fd.Name.Name, lines, maxFuncLines)
				}
			}
		})
	}
	if n < 100 {
		t.Fatalf("checked only %d functions; are the folders right?", n)
	}
}
