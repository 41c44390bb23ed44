package pgparse_test

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// Parse answers as pg_query.Parse, the first time and from its cache, and
// each caller owns its tree: a change to one is not seen by the next.
func TestParseIsPgQueryParse(t *testing.T) {
	texts := []string{"SELECT 1", "INSERT INTO kv (k, v) VALUES ($1, $2) -- 7", "SELECT * FROM", "SELECT 1; SELECT 2", ""}
	for _, s := range sqlchecktest.BenchStatements {
		texts = append(texts, s.SQL)
	}
	for _, sql := range texts {
		want, werr := pg_query.Parse(sql)
		for round := range 2 {
			got, err := pgparse.Parse(sql)
			if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
				t.Fatalf("%q round %d: error %v, pg_query.Parse's %v", sql, round, err, werr)
			}
			if err != nil {
				continue
			}
			if !proto.Equal(got, want) {
				t.Fatalf("%q round %d: tree differs from pg_query.Parse's", sql, round)
			}
			got.Stmts = nil // the caller's own: the next Parse must not see it
		}
	}
}

// BenchmarkParse is libpg_query's parse (a text not seen before) against
// pgparse's answer for a text parsed before (the decoding alone).
//
//	go test ./sqlcheck/pgparse -run '^$' -bench Parse -count 5
func BenchmarkParse(b *testing.B) {
	const sql = "INSERT INTO kv (k, v) VALUES ($1, $2)"
	b.Run("pg_query", func(b *testing.B) {
		for b.Loop() {
			if _, err := pg_query.Parse(sql); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			if _, err := pgparse.Parse(sql); err != nil {
				b.Fatal(err)
			}
		}
	})
}
