package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// SQLite captures row changes with its pre-update hook only (issue 34):
// the capture by triggers on every table, and the switch between the two,
// left the block path. The trigger capture lives on as a test-only oracle
// (backend/sqlite/triggeroracle_export_test.go). These rules keep the
// production package free of it: the identifiers of the capture mode and
// of the trigger path's tx attribution, the oracle's, and the test switch
// that ran the package on triggers may not appear in a non-test file.

// sqliteCaptureDir is the SQLite backend, checked with its subpackages.
const sqliteCaptureDir = "backend/sqlite"

// triggerCaptureIdents are the removed trigger-capture code path's names.
var triggerCaptureIdents = []string{
	"captureMode", "captureHook", "defaultCapture", "SetDefaultCapture", "hooked", // the mode and its switch
	"txStart", "txStarts", "startTx", "outsideTx", "txOf", "newTxOf", "lastChange", // the trigger path's tx attribution
	"captureMissing",                                                               // re-creating capture triggers at Open
	"TriggerOracle", "OpenTriggerOracle", "MakeTriggerEra", "reconcileAllTriggers", // the test-only oracle
	"WithTriggerCapture", "WithHookCapture", "triggerCapture", // the options that chose a capture
}

// triggerCaptureLiterals are strings of the removed path: the switch
// that ran the package's tests on triggers.
var triggerCaptureLiterals = []string{"RELCHAIN_TEST_SQLITE_CAPTURE"}

// triggerCaptureViolations lists where f names the trigger
// capture path: an identifier of triggerCaptureIdents, a selector
// opts.capture (the mode's field), or a string literal containing one of
// triggerCaptureLiterals.
func triggerCaptureViolations(fset *token.FileSet, f *ast.File) []string {
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if slices.Contains(triggerCaptureIdents, n.Name) {
				at(n, "names "+n.Name)
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.SelectorExpr); ok && x.Sel.Name == "opts" && n.Sel.Name == "capture" {
				at(n, "reads the capture mode opts.capture")
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				break
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				s = n.Value
			}
			for _, lit := range triggerCaptureLiterals {
				if strings.Contains(s, lit) {
					at(n, "names "+lit)
				}
			}
		}
		return true
	})
	return out
}

func TestSQLiteHasNoTriggerCapturePath(t *testing.T) {
	files := 0
	goFiles(t, sqliteCaptureDir, func(path string, fset *token.FileSet, f *ast.File) {
		files++
		for _, v := range triggerCaptureViolations(fset, f) {
			t.Errorf("%s: the trigger capture left backend/sqlite's production code (issue 34); it lives on only in its tests' oracle", v)
		}
	})
	if files < 20 {
		t.Fatalf("checked only %d files below %s; is the module root right?", files, sqliteCaptureDir)
	}
}

// The rule finds each kind of planted violation, and passes the hook's
// own code.
func TestTriggerCaptureScanCatchesPlantedViolations(t *testing.T) {
	const planted = `package sqlite

import "os"

type captureMode int

func (b *Backend) hooked() bool { return b.opts.capture == 1 }

func (k *block) Savepoint() error {
	if !k.b.hooked() {
		return k.b.startTx(0)
	}
	_ = os.Getenv("RELCHAIN_TEST_SQLITE_CAPTURE")
	return nil
}
`
	const clean = `package sqlite

func (k *block) Savepoint() error {
	k.b.hook.txMark = k.b.hook.mark()
	_, err := k.b.captureTriggers()
	return err
}
`
	scan := func(src string) []string {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "planted.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return triggerCaptureViolations(fset, f)
	}
	got := strings.Join(scan(planted), "\n")
	for _, want := range []string{"names captureMode", "names hooked", "reads the capture mode opts.capture", "names startTx", "names RELCHAIN_TEST_SQLITE_CAPTURE"} {
		if !strings.Contains(got, want) {
			t.Errorf("planted violations: %q not reported; got:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "names hooked"); n != 2 {
		t.Errorf("planted violations: %d reports of hooked, want 2 (its declaration and its call)", n)
	}
	if v := scan(clean); len(v) != 0 {
		t.Errorf("the hook's own code reported: %v", v)
	}
}
