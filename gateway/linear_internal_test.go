package gateway

import (
	"testing"

	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// scanAll runs every text scan of the gateway on one simple-query string:
// the splitter of both dialect families, the classifier and the
// placeholder rewriting of each statement.
func scanAll(sql string) {
	for _, dollar := range []bool{true, false} {
		stmts, _ := split(sql, dollar)
		for _, s := range stmts {
			_ = classify(s)
			_, _ = placeholders(s, dialect.PlaceholdersNumbered)
			_ = stripLiteralsKeepLength(s)
		}
	}
}

// Issue 32, build item 1: the gateway's own lexer, splitter and classifier
// do work linear in the text on every pathological family.
func TestScanLinear(t *testing.T) {
	sqlchecktest.Linear(t, 1<<16, scanAll)
}

// FuzzSplit: no text makes the gateway's scanning panic, and splitting
// keeps every byte outside the separators (statements never grow).
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"SELECT 1; SELECT 2", "SELECT $a$;$a$; x", "/* /* */ */ SELECT ';'", "E'\\';' ; 1", "`a;b`; c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		scanAll(sql)
		for _, dollar := range []bool{true, false} {
			stmts, err := split(sql, dollar)
			n := 0
			for _, s := range stmts {
				n += len(s)
			}
			if err == nil && n > len(sql) {
				t.Fatalf("%q: statements of %d bytes from %d", sql, n, len(sql))
			}
		}
	})
}
