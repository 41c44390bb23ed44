package mysqlgate

import (
	"reflect"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// FuzzCheck: the checker never panics; its verdict is a pure function of
// the text (same message uncached, twice, and through the cache); Analyze
// and Rewrite agree with it; and an accepted statement parses again, a
// query or DML statement also from the parser's rendering of its tree.
func FuzzCheck(f *testing.F) {
	sqlchecktest.Fuzz(f, corpus, sqlchecktest.Gate{Check: Check, Uncached: check}, func(t *testing.T, sql string, a error) {
		an, aerr := Analyze(sql)
		if !sameVerdict(a, aerr) {
			t.Fatalf("%q: Analyze says %v, Check %v", sql, aerr, a)
		}
		r, rerr := Rewrite(sql, sqlcheck.Env{Time: time.Unix(1_790_000_000, 0)})
		if !sameVerdict(a, rerr) || (a == nil && r != sql) {
			t.Fatalf("%q: Rewrite = %q, %v; want the text unchanged or Check's %v", sql, r, rerr, a)
		}
		if a != nil {
			return
		}
		if an.UsesEnv {
			t.Fatalf("%q: UsesEnv set", sql)
		}
		if again, _ := Analyze(sql); !reflect.DeepEqual(an, again) {
			t.Fatalf("%q: Analyze is not deterministic: %+v, then %+v", sql, an, again)
		}
		stmt, err := parse(sql)
		if err != nil {
			t.Fatalf("%q: accepted, but does not parse again: %v", sql, err)
		}
		// The parser renders DDL in a form it does not always read back
		// (column lists of ALTER TABLE, table options); queries and DML it
		// does.
		if an.DDL {
			return
		}
		if _, err := sqlparser.Parse(sqlparser.String(stmt)); err != nil {
			t.Fatalf("%q: accepted, but its rendering %q does not parse: %v", sql, sqlparser.String(stmt), err)
		}
	})
}
