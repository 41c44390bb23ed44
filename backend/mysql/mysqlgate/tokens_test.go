package mysqlgate

import (
	"reflect"
	"testing"
)

func raws(toks []Token) []string {
	var r []string
	for _, t := range toks {
		r = append(r, t.Raw)
	}
	return r
}

// Tokens reads a text as MySQL's lexer does where Vitess's tokenizer
// differs: the backend decides statement kinds and boundaries on them.
func TestTokensReadTheTextAsMySQLDoes(t *testing.T) {
	cases := []struct {
		sql  string
		want []string
	}{
		{"SELECT 1 -- c\n; x", []string{"SELECT", "1", ";", "x"}},
		{"SELECT 1 --1, 2", []string{"SELECT", "1", "-", "-", "1", ",", "2"}},
		{"SELECT 1 --", []string{"SELECT", "1"}},
		{"SELECT 4 // 2", []string{"SELECT", "4", "/", "/", "2"}},
		{"SELECT 1 # c\n;", []string{"SELECT", "1", ";"}},
		{"/*!50700 SELECT 1 */ SELECT 2", []string{"SELECT", "2"}},
		{"SELECT\f1\v;", []string{"SELECT", "1", ";"}},
		{"SELECT café, t$x FROM `a``b`", []string{"SELECT", "café", ",", "t$x", "FROM", "`a``b`"}},
		{"SELECT @x := 1, @@sql_mode", []string{"SELECT", "@", "x", ":", "=", "1", ",", "@", "@", "sql_mode"}},
		{"SELECT 1\x00, 2", []string{"SELECT", "1", "\x00", ",", "2"}},
		{"SELECT {d '2024-01-01'}", []string{"SELECT", "{", "d", "'2024-01-01'", "}"}},
		{"SELECT 'a' 'b'  ;", []string{"SELECT", "'a' 'b'", ";"}},
		{"SELECT a FROM t FOR  UPDATE", []string{"SELECT", "a", "FROM", "t", "FOR", "UPDATE"}},
		{"SELECT a <=> b, j->>'$.x'", []string{"SELECT", "a", "<=>", "b", ",", "j", "->>", "'$.x'"}},
	}
	for _, c := range cases {
		toks, ok := Tokens(c.sql)
		if !ok || !reflect.DeepEqual(raws(toks), c.want) {
			t.Errorf("Tokens(%q) = %q, %v; want %q", c.sql, raws(toks), ok, c.want)
		}
		for _, tok := range toks {
			if c.sql[tok.Start:tok.End] != tok.Raw {
				t.Errorf("Tokens(%q): %q at [%d:%d] is %q", c.sql, tok.Raw, tok.Start, tok.End, c.sql[tok.Start:tok.End])
			}
		}
	}
}

func TestTokensMarkQuotedNamesAndStrings(t *testing.T) {
	toks, ok := Tokens("UPDATE `My``T` SET s = \"x\", b = x'41', w = ';'")
	if !ok {
		t.Fatal("not ok")
	}
	if q := toks[1]; !q.Quoted || q.Up != "My`T" || q.Word() {
		t.Errorf("quoted name = %+v", q)
	}
	for _, i := range []int{5, 9, 13} {
		if s := toks[i]; !s.Str || s.Up != "" || s.Word() {
			t.Errorf("literal %d = %+v", i, s)
		}
	}
	if w := toks[3]; w.Up != "S" || !w.Word() {
		t.Errorf("word = %+v", w)
	}
}

func TestTokensReportUnterminatedText(t *testing.T) {
	for _, sql := range []string{"SELECT 'a", "SELECT \"a\\\"", "SELECT `a", "SELECT 1 /* c", "SELECT 'a' 'b"} {
		if _, ok := Tokens(sql); ok {
			t.Errorf("Tokens(%q) ok, want unterminated", sql)
		}
	}
}
