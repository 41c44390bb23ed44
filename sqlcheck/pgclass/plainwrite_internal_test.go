package pgclass

import (
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

// TestPlainWrite: one INSERT, UPDATE or DELETE that returns no rows is a
// plain write; RETURNING, WITH (which may hold a query returning rows),
// any other statement, several statements or an unreadable text are not
// (fail closed).
func TestPlainWrite(t *testing.T) {
	for sql, want := range map[string]bool{
		"insert into t values ($1, $2)":                       true,
		"INSERT INTO t (a) SELECT a FROM u":                   true,
		"update t set a = $1 where b = $2":                    true,
		"delete from t where a = 1":                           true,
		"insert into t values (1) returning id":               false,
		"update t set a = 1 returning *":                      false,
		"delete from t returning a":                           false,
		"with x as (select 1) insert into t select * from x":  false,
		"with x as (delete from u returning *) delete from t": false,
		"select * from t":                                     false,
		"create table t (a int)":                              false,
		"insert into t values (1); insert into t values (2)":  false,
		"insert into t values (?)":                            false, // ? is not PostgreSQL
		"not sql at all":                                      false,
		"":                                                    false,
	} {
		if got := (Classifier{}).PlainWrite(sql); got != want {
			t.Errorf("PlainWrite(%q) = %v, want %v", sql, got, want)
		}
	}
}

// TestBeyondPrescanIsNeither: a text the parser would accept but that
// exceeds the pre-scan's bounds (here nesting depth 129 > 128) is neither
// catalog-only nor a plain write: the pre-scan answers before the parser.
func TestBeyondPrescanIsNeither(t *testing.T) {
	deep := strings.Repeat("(", prescan.MaxDepth+1) + "1" + strings.Repeat(")", prescan.MaxDepth+1)
	for _, sql := range []string{"select " + deep, "insert into t values (" + deep + ")"} {
		if prescan.Check(sql, prescan.PostgreSQL) == nil {
			t.Fatalf("the pre-scan accepts %q; the test needs a text beyond its bounds", sql[:20])
		}
		if _, err := pg_query.Parse(sql); err != nil {
			t.Fatalf("the parser refuses %q: %v; the test needs a text it accepts", sql[:20], err)
		}
		c := Classifier{}
		if c.CatalogOnly(sql) || c.PlainWrite(sql) {
			t.Errorf("%q…: beyond the pre-scan's bounds but classified", sql[:20])
		}
	}
}
