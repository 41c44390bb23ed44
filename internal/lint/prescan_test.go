package lint

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// parserEntries are the functions that hand statement text to a parser
// or a tokenizer: libpg_query (cgo: a stack overflow there is a SIGSEGV no
// recover catches; pgparse.Parse is pg_query.Parse once per text) and
// Vitess.
var parserEntries = map[string]map[string]bool{
	"pgparse":   {"Parse": true},
	"parser":    {"ParseToProtobuf": true, "ParseToJSON": true},
	"pg_query":  {"Parse": true, "Scan": true, "ParsePlPgSqlToJSON": true, "ParseToJSON": true, "Normalize": true, "Fingerprint": true, "SplitWithParser": true, "SplitWithScanner": true},
	"sqlparser": {"Parse": true, "ParseOne": true, "ParseWithOptions": true, "NewStringTokenizer": true, "NewTokenizer": true, "SplitStatement": true, "SplitStatementToPieces": true},
}

// behindPrescan are the functions allowed to call a parser entry: each is
// reached only with text that passed sqlcheck/prescan, for the reason
// given. A new call site fails this test until it is reviewed and listed.
var behindPrescan = map[string]string{
	"backend/postgres/syntax.go parseOne":                "calls prescan.Check first",
	"backend/postgres/pggate/params.go ParamCount":       "calls prescan.Check first",
	"backend/postgres/pggate/check.go parse":             "calls bounded (prescan) first",
	"backend/postgres/pggate/routine.go checkSQLText":    "calls bounded (prescan) on the body first",
	"backend/postgres/pggate/plpgsql.go checkPLpgSQL":    "its body passed bounded in checkRoutine; the statement in parse",
	"backend/postgres/pggate/plpgsql.go splitAssignment": "calls bounded first",
	"backend/postgres/pggate/env.go sameTree":            "the deparse of a tree parsed from pre-scanned text: the same bounded tree",
	"backend/postgres/pggate/limit.go parseBounded":      "calls bounded (prescan) first",
	"backend/postgres/pggate/limit.go reparses":          "the deparse of a tree parsed from pre-scanned text, with an ORDER BY of column names added",
	"backend/postgres/pggate/read.go substitute":         "relchain's own constant catalog texts",
	"backend/postgres/pggate/read.go guardCalls":         "relchain's own constant guard texts (readGuarded)",
	"backend/sqlite/pgdialect/translate.go parse":        "calls prescan.Check first",
	"backend/mysql/pgdialect/translate.go parse":         "calls prescan.Check first",
	"backend/sqlite/pgdialect/beyondgate.go BeyondGate":  "calls prescan.Check first",
	"backend/sqlite/deferfk.go parseSetConstraints":      "calls prescan.Check first",
	"backend/sqlite/deferevents.go rowEventsOf":          "calls prescan.Check first",
	"backend/sqlite/deferevents.go ddlTargets":           "calls prescan.Check first",
	"backend/pgcatalog/rewrite.go parseSelect":           "calls prescan.Check first",
	"sqlcheck/conflict/analyze.go parsed":                "calls prescan.Check first",
	"sqlcheck/pgclass/catalogonly.go CatalogOnly":        "calls prescan.Check first",
	"sqlcheck/pgclass/plainwrite.go PlainWrite":          "calls prescan.Check first",
	"sqlcheck/pgclass/keyread.go KeyRead":                "calls prescan.Check first",
	"sqlcheck/pghistory/pghistory.go Rewrite":            "calls prescan.Check first",
	"sqlcheck/pghistory/replace.go replacement":          "calls prescan.Check first (on the node's own relation text)",
	"sqlcheck/pgparse/pgparse.go Parse":                  "pg_query.Parse for its callers, each listed here",
	"backend/mysql/mysqlgate/check.go parseOne":          "called by parse after prescan.Check",
	"backend/mysql/mysqlgate/check.go checkDashComments": "called by parse after prescan.Check",
	"backend/mysql/mysqlgate/tokens.go scanFrom":         "Tokens: inspect calls prescan.Check first; linear (TestTokensLinear)",
	"internal/dbrestore/crossengine.go dumpStatements":   "relchain's own dump text, split by the scanner (linear, no recursion)",
}

// sqlitePrepares are the functions of backend/sqlite that compile a text
// that is not a constant (SQLite compiles client text itself): each is
// reached only with pre-scanned or relchain's own text.
var sqlitePrepares = map[string]string{
	"backend/sqlite/sqlite.go prepareOne":                 "calls prescan.Check first: every client text (gate, reads, Describe)",
	"backend/sqlite/block.go internalStmt":                "relchain's own statements",
	"backend/sqlite/readcache.go own":                     "relchain's own control statements",
	"backend/sqlite/dump.go eachRow":                      "relchain's own dump queries",
	"backend/sqlite/costs.go helperStmt":                  "a SELECT of an allowlisted function with placeholders",
	"backend/sqlite/rewrite.go helperStmt":                "a SELECT of an allowlisted function with placeholders",
	"backend/sqlite/sqlite.go readState":                  "relchain's own state query",
	"backend/sqlite/state.go loadSums":                    "relchain's own digest query",
	"backend/sqlite/state.go scanTables":                  "relchain's own row-image query over a table name",
	"backend/sqlite/outofband.go outOfBand":               "relchain's own capture table",
	"backend/sqlite/system.go LoadSystem":                 "relchain's own system table",
	"backend/sqlite/canonical_sequences.go sequenceState": "relchain's own query over a sequence state table's name, quoted",
}

// TestParsersBehindPrescan: every call of a parser entry in the module is
// in a function known to see only pre-scanned text (issue 32: no cgo
// parser may see a text that can exhaust its stack, and every gate's work
// is linear).
func TestParsersBehindPrescan(t *testing.T) {
	found := map[string]bool{}
	goFiles(t, ".", func(path string, fset *token.FileSet, f *ast.File) {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if sel.Sel.Name == "Prepare" && strings.HasPrefix(path, "backend/sqlite/") && len(call.Args) == 1 {
					if _, lit := call.Args[0].(*ast.BasicLit); !lit {
						site := path + " " + fn.Name.Name
						found[site] = true
						if sqlitePrepares[site] == "" {
							t.Errorf("%s: SQLite compiles a non-constant text in %s: call prescan.Check first (prepareOne) and list it in sqlitePrepares",
								fset.Position(call.Pos()), fn.Name.Name)
						}
					}
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok || !parserEntries[x.Name][sel.Sel.Name] {
					return true
				}
				site := path + " " + fn.Name.Name
				found[site] = true
				if behindPrescan[site] == "" {
					t.Errorf("%s: %s.%s in %s is not known to see only pre-scanned text: call prescan.Check first and list it in behindPrescan",
						fset.Position(call.Pos()), x.Name, sel.Sel.Name, fn.Name.Name)
				}
				return true
			})
		}
	})
	var stale []string
	for _, m := range []map[string]string{behindPrescan, sqlitePrepares} {
		for site := range m {
			if !found[site] {
				stale = append(stale, site)
			}
		}
	}
	slices.Sort(stale)
	if len(stale) > 0 {
		t.Errorf("behindPrescan lists call sites that no longer exist: %s", fmt.Sprint(stale))
	}
}
