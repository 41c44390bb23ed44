package mysqlgate

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

var prescanSeeds = []string{
	"SELECT (1)", `SELECT '(\'(' , "(\"(" , ` + "`(``(`", "SELECT 1 # (\n(2)", "SELECT 1 -- (\n(2)",
	"SELECT 1 --(2)", "SELECT 1 /* ( /* */ (2)", "SELECT x'28', _utf8mb4'(' , N'('", "SELECT $a$ + ($a$)",
	"SELECT 1 -(-(2))", "SELECT '\\\\' , ('x')", "SELECT `a``(` + (1)", "SELECT 1 --\t(\n(1)",
}

// tokenOpens counts the (, [ and { tokens of Tokens (the backend's reading
// of the text, MySQL's); ok is false if it cannot read it.
func tokenOpens(sql string) (int, bool) {
	toks, ok := Tokens(sql)
	n := 0
	for _, t := range toks {
		if t.Word() && (t.Up == "(" || t.Up == "[" || t.Up == "{") {
			n++
		}
	}
	return n, ok
}

func agree(t *testing.T, sql string) {
	t.Helper()
	if strings.Contains(sql, "/*!") || strings.Contains(sql, "/*M!") || strings.Contains(sql, "/*m!") || strings.IndexByte(sql, 0) >= 0 {
		return // executable comments: code to MySQL and the pre-scan, a comment to Tokens (the gate refuses them)
	}
	want, ok := tokenOpens(sql)
	if !ok {
		return
	}
	if got := prescan.Measure(sql, prescan.MySQL).Opens; got != want {
		t.Fatalf("%q: the pre-scan finds %d (, [ and { in code, the tokenizer %d", sql, got, want)
	}
}

// TestPrescanReadsAsMySQL: the pre-scan finds in code exactly the
// parentheses, brackets and braces the gate's tokenizer does.
func TestPrescanReadsAsMySQL(t *testing.T) {
	for _, c := range corpus {
		agree(t, c.SQL)
	}
	for _, s := range prescanSeeds {
		agree(t, s)
	}
}

// FuzzPrescanReadsAsMySQL looks for a text the pre-scan lexes differently
// from the gate's tokenizer read as MySQL reads it.
func FuzzPrescanReadsAsMySQL(f *testing.F) {
	for _, s := range prescanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		if len(sql) > 4096 {
			return
		}
		agree(t, sql)
	})
}
