package pggate

import (
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

// scannerOpens counts the (, [ and { tokens PostgreSQL's own scanner
// (libpg_query) finds in sql; ok is false if it fails.
func scannerOpens(sql string) (n int, ok bool) {
	sc, err := pg_query.Scan(sql)
	if err != nil {
		return 0, false
	}
	for _, t := range sc.GetTokens() {
		if t.GetStart() < 0 || int(t.GetEnd()) > len(sql) || t.GetEnd() != t.GetStart()+1 {
			continue
		}
		switch sql[t.GetStart()] {
		case '(', '[', '{':
			n++
		}
	}
	return n, true
}

var prescanSeeds = []string{
	"SELECT (1)", "SELECT '(' || E'\\'(' || $$($$ || $a$ $$ ( $a$", `SELECT "(" FROM t`,
	"SELECT 1 /* ( /* ( */ ( */ + (2)", "SELECT 1 -- (\r(2)", "SELECT x$a$ + ($a$)", "SELECT 1$a$($a$",
	"SELECT U&'(' , B'1', X'(', N'('", "SELECT e'\\\\' || '(' ", "SELECT ARRAY[(1)][1]", "SELECT $1 + ($2)",
	"SELECT 1e(2)", "SELECT 1.e5 + (1)", "SELECT 1::int[]", "SELECT +/*(*/(1)", "SELECT $_$($_$",
}

// TestPrescanReadsAsPostgreSQL: on texts that mix every literal, comment
// and quoting form, the pre-scan finds in code exactly the parentheses
// and brackets PostgreSQL's scanner does.
func TestPrescanReadsAsPostgreSQL(t *testing.T) {
	for _, c := range corpus {
		agree(t, c.SQL)
	}
	for _, s := range prescanSeeds {
		agree(t, s)
	}
}

func agree(t *testing.T, sql string) {
	t.Helper()
	if strings.IndexByte(sql, 0) >= 0 {
		return // libpg_query reads a C string: it stops at NUL, the pre-scan does not (it sees more)
	}
	want, ok := scannerOpens(sql)
	if !ok {
		return
	}
	if got := prescan.Measure(sql, prescan.PostgreSQL).Opens; got != want {
		t.Fatalf("%q: the pre-scan finds %d (, [ and { in code, PostgreSQL's scanner %d", sql, got, want)
	}
}

// FuzzPrescanReadsAsPostgreSQL looks for a text the pre-scan lexes
// differently from PostgreSQL's scanner (a mis-scan would let nesting in
// code pass as a literal).
func FuzzPrescanReadsAsPostgreSQL(f *testing.F) {
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
