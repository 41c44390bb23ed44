package prescan_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

var dialects = []prescan.Dialect{prescan.PostgreSQL, prescan.MySQL, prescan.SQLite}

func chain(n int) string { return "SELECT " + strings.Repeat("1+", n-1) + "1" }

func nest(open, mid, close string, n int) string {
	return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
}

// TestDepth checks the measured depth of each nesting construct.
func TestDepth(t *testing.T) {
	cases := []struct {
		d    prescan.Dialect
		sql  string
		want int
	}{
		{prescan.PostgreSQL, "SELECT 1", 1},
		{prescan.PostgreSQL, chain(100), 100},
		{prescan.PostgreSQL, "SELECT " + nest("(", "1", ")", 50), 51},
		{prescan.PostgreSQL, "SELECT " + nest("ARRAY[", "1", "]", 50), 51},
		{prescan.PostgreSQL, "SELECT " + nest("abs(", "1", ")", 50), 51},
		{prescan.PostgreSQL, "SELECT " + nest("(SELECT ", "1", ")", 50), 101},
		{prescan.PostgreSQL, "SELECT " + nest("CASE WHEN true THEN ", "1", " END", 50), 101},
		{prescan.PostgreSQL, "SELECT " + nest("(", "1", ")+1", 50), 101},
		{prescan.PostgreSQL, "SELECT " + strings.Repeat("-", 3) + "1", 1}, // -- comment
		{prescan.MySQL, "SELECT " + strings.Repeat("-", 100) + "1", 101},
		{prescan.PostgreSQL, "SELECT " + strings.Repeat("+-", 50) + "1", 101},
		{prescan.PostgreSQL, "SELECT 1" + strings.Repeat("::int", 50), 51},
		{prescan.PostgreSQL, "SELECT 1 WHERE " + strings.Repeat("a = 1 AND ", 99) + "a = 1", 2},
		{prescan.MySQL, "SELECT 1 WHERE " + strings.Repeat("a = 1 OR ", 9999) + "a = 1", 2},
		{prescan.SQLite, "SELECT 1 WHERE " + strings.Repeat("(a = 1 OR a = 2) AND ", 999) + "a = 1", 3},
		{prescan.PostgreSQL, "SELECT 1 WHERE " + strings.Repeat("a = 1+1 AND ", 99) + "a = 1", 3},
		{prescan.PostgreSQL, strings.Repeat("SELECT 1 UNION ", 99) + "SELECT 1", 100},
		{prescan.MySQL, "SELECT 1 " + strings.Repeat("XOR 1 ", 99), 100},
		{prescan.PostgreSQL, "SELECT " + strings.Repeat("f(1+1), ", 99) + "1", 3},
		{prescan.PostgreSQL, "SELECT CASE " + strings.Repeat("WHEN a = 1 THEN 2+2 ", 99) + " END", 4},
		// Literals, quoted identifiers and comments hide what they hold.
		{prescan.PostgreSQL, "SELECT '" + strings.Repeat("(", 500) + "'", 1},
		{prescan.PostgreSQL, "SELECT 'it''s " + strings.Repeat("(", 500) + "'", 1},
		{prescan.PostgreSQL, `SELECT E'\'' , ` + chain(3)[7:], 2},
		{prescan.PostgreSQL, `SELECT '\' , ` + "'" + strings.Repeat("+", 500) + "'", 1},
		{prescan.PostgreSQL, "SELECT $$" + strings.Repeat("+", 500) + "$$", 1},
		{prescan.PostgreSQL, "SELECT $a$ $$ $b$ " + strings.Repeat("+", 500) + "$a$", 1},
		{prescan.PostgreSQL, "SELECT x$a$ + " + strings.Repeat("1+", 9) + "1", 11},
		{prescan.PostgreSQL, "SELECT 1$a$" + strings.Repeat("+", 500) + "$a$", 1},
		{prescan.PostgreSQL, `SELECT "` + strings.Repeat("(", 500) + `"`, 1},
		{prescan.PostgreSQL, "SELECT /* /* */ " + strings.Repeat("(", 500) + " */ 1", 1},
		{prescan.PostgreSQL, "SELECT 1 -- " + strings.Repeat("(", 500) + "\r+1", 2},
		{prescan.MySQL, `SELECT '\'' , ` + "'" + strings.Repeat("(", 500) + "'", 1},
		{prescan.MySQL, `SELECT "\"" , "` + strings.Repeat("(", 500) + `"`, 1},
		{prescan.MySQL, "SELECT `" + strings.Repeat("(", 500) + "`", 1},
		{prescan.MySQL, "SELECT 1 # " + strings.Repeat("(", 500) + "\n+1", 2},
		{prescan.MySQL, "SELECT 1 -- " + strings.Repeat("(", 500) + "\r(1)", 1},
		{prescan.MySQL, "SELECT 1 /* /* */ " + nest("(", "1", ")", 50) + " */", 53},
		{prescan.MySQL, "SELECT 1 /*! " + nest("(", "1", ")", 50) + " */", 51},
		{prescan.SQLite, "SELECT '\\' , " + chain(3)[7:], 2},
		{prescan.SQLite, "SELECT [" + strings.Repeat("(", 500) + "]", 1},
		{prescan.SQLite, "SELECT 1 /* " + strings.Repeat("(", 500), 1},
		// Block keywords.
		{prescan.PostgreSQL, strings.Repeat("IF a THEN ", 50) + strings.Repeat("END IF; ", 50), 100},
		{prescan.PostgreSQL, strings.Repeat("DROP TABLE IF EXISTS t; ", 500), 1},
		{prescan.PostgreSQL, strings.Repeat("CREATE TABLE IF NOT EXISTS t (a int); ", 500), 3},
		{prescan.PostgreSQL, "BEGIN " + strings.Repeat("IF NOT found THEN x := 1; END IF; ", 500) + "END", 6},
		{prescan.PostgreSQL, strings.Repeat("IF NOT a THEN ", 50) + strings.Repeat("END IF; ", 50), 150},
		{prescan.PostgreSQL, strings.Repeat("LOOP ", 50) + strings.Repeat("END LOOP; ", 50), 100},
		{prescan.SQLite, "SELECT " + strings.Repeat("CASE WHEN end THEN ", 50) + "1", 52},
	}
	for _, c := range cases {
		got := prescan.Measure(c.sql, c.d)
		if got.Depth != c.want {
			t.Errorf("%s %.60q: depth %d, want %d", c.d, c.sql, got.Depth, c.want)
		}
	}
}

// TestCheck checks each refusal and its message.
func TestCheck(t *testing.T) {
	cases := []struct {
		sql, msg string
	}{
		{chain(4400), "statement nesting depth 4400 exceeds relchain's limit of 128 (parentheses, brackets, CASE, block keywords, operator chains, subqueries)"},
		{strings.Repeat(" ", prescan.MaxBytes+1), "statement size 1048577 bytes exceeds relchain's limit of 1048576"},
		{"SELECT " + strings.Repeat("1,", prescan.MaxTokens/2) + "1", "statement token count 262146 exceeds relchain's limit of 262144"},
		{"SELECT '" + strings.Repeat("[", 200) + "'::jsonb", "statement literal nesting depth 200 exceeds relchain's limit of 128"},
		{"SELECT " + strings.Repeat("a", 2000), "statement identifier length 2000 bytes exceeds relchain's limit of 1024"},
		{`SELECT "` + strings.Repeat("a", 2000) + `"`, "statement identifier length 2000 bytes exceeds"},
	}
	for _, c := range cases {
		for _, d := range dialects {
			if d == prescan.MySQL && c.sql[7] == '"' {
				continue // a string in MySQL
			}
			err := prescan.Check(c.sql, d)
			if err == nil || !strings.HasPrefix(err.Error(), c.msg) || !errors.Is(err, prescan.ErrLimit) {
				t.Errorf("%s %.40q: %v, want %q", d, c.sql, err, c.msg)
			}
		}
	}
	for _, sql := range []string{"SELECT 1 " + strings.Repeat("/*", 4000), "SELECT 1 /* " + strings.Repeat("/*+*/", 3000) + "*/"} {
		err := prescan.Check(sql, prescan.PostgreSQL)
		if err == nil || !strings.Contains(err.Error(), "lexer work") {
			t.Errorf("%.40q: %v, want the lexer work bound", sql, err)
		}
	}
	if s := prescan.Measure("SELECT 1 /*"+strings.Repeat("*", 1000)+"*/ + 1", prescan.PostgreSQL); s.LexWork > 2100 {
		t.Errorf("a comment banner costs %d", s.LexWork)
	}
	for _, sql := range []string{chain(128), "SELECT 1 WHERE " + strings.Repeat("a = 1 AND ", 120) + "a = 1",
		"INSERT INTO t VALUES " + strings.Repeat("(1, 'x', 2.5), ", 10000) + "(1, 'x', 2.5)"} {
		for _, d := range dialects {
			if err := prescan.Check(sql, d); err != nil {
				t.Errorf("%s %.40q: %v", d, sql, err)
			}
		}
	}
}

// families are the pathological inputs of the issue: each at size n.
var families = map[string]func(n int) string{
	"dashes":       func(n int) string { return strings.Repeat("-", n) },
	"slashes":      func(n int) string { return strings.Repeat("/", n) },
	"star-slashes": func(n int) string { return strings.Repeat("*//*x*/", n/7) },
	"open parens":  func(n int) string { return strings.Repeat("(", n) },
	"close parens": func(n int) string { return strings.Repeat("(", n/2) + strings.Repeat("]", n/2) },
	"quotes":       func(n int) string { return strings.Repeat("'", n) },
	"dquotes":      func(n int) string { return strings.Repeat(`"`, n) },
	"backquotes":   func(n int) string { return strings.Repeat("`", n) },
	"comments":     func(n int) string { return strings.Repeat("/*", n/2) },
	"comment ends": func(n int) string { return strings.Repeat("*/", n/2) },
	"backslashes":  func(n int) string { return "'" + strings.Repeat(`\`, n) },
	"dollars":      func(n int) string { return strings.Repeat("$", n) },
	"dollar tags":  func(n int) string { return strings.Repeat("$a", n/2) },
	"identifier":   func(n int) string { return strings.Repeat("a", n) },
	"case":         func(n int) string { return strings.Repeat("CASE ", n/5) },
	"ends":         func(n int) string { return strings.Repeat("END ", n/4) },
	"ifs":          func(n int) string { return strings.Repeat("IF ", n/3) },
	"chain":        func(n int) string { return chain(n / 2) },
	"hashes":       func(n int) string { return strings.Repeat("#", n) },
	"brackets":     func(n int) string { return strings.Repeat("[", n) },
}

// TestLinear shows the scan's work linear in the text on every
// pathological family: the steps at 2n are at most 2.2 times those at n.
func TestLinear(t *testing.T) {
	const n = 1 << 15
	for name, f := range families {
		for _, d := range dialects {
			a, b := prescan.Measure(f(n), d).Steps, prescan.Measure(f(2*n), d).Steps
			if a == 0 || float64(b)/float64(a) > 2.2 || b > 4*2*n {
				t.Errorf("%s %s: %d steps at n, %d at 2n", d, name, a, b)
			}
		}
	}
}

// FuzzMeasure: the scan never panics, its work is linear in the text
// and its depth bounded by the tokens.
func FuzzMeasure(f *testing.F) {
	for _, sql := range []string{chain(10), "SELECT $a$ x $a$", "SELECT E'\\''", "/* /* */ */", "CASE WHEN 1 THEN 2 END", "IF x THEN END IF"} {
		f.Add(sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range dialects {
			s := prescan.Measure(sql, d)
			if s.Steps > 4*len(sql)+4 || s.Depth > 2*s.Tokens+1 {
				t.Fatalf("%s %q: %+v", d, sql, s)
			}
			_ = prescan.Check(sql, d)
		}
	})
}
