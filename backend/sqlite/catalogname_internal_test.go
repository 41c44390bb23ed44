package sqlite

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// catalogName's pre-filter (mayNameCatalog) changes no answer: on texts
// built from catalog names' pieces, quotes, Unicode letters that (?i)
// folds to ASCII ones (K, ſ) and other bytes, it answers as the regular
// expressions alone do.
func TestCatalogNamePrefilterChangesNothing(t *testing.T) {
	full := func(sql string) string { return catalogNames.FindString(quotedText.ReplaceAllString(sql, "''")) }
	texts := []string{
		"SELECT * FROM pg_class", "select * from PG_CLASS", "SELECT * FROM information_schema.tables",
		"SELECT * FROM INFORMATION_ſCHEMA.tables", "SELECT * FROM pg_ſettings", "SELECT 'pg_class'",
		"SELECT * FROM p'x'g_class", "INSERT INTO kv (k, v) VALUES ($1, $2) -- 7", "SELECT pg_stat_activity",
		"SELECT * FROM pg_catalog.pg_namespace", "SELECT * FROM Pg_Indexes", "SELECT * FROM xpg_class",
	}
	pieces := []string{"pg_", "PG_", "Pg_", "information_", "INFORMATION_", "schema", "ſchema", "class", "ſettings",
		"Katalog", "catalog", "tables", "stat_", "'", "''", " ", ".", "x", "_", "é", "\u212a", "\u017f", "p", "g", "\x00", "\xff"}
	r := rand.New(rand.NewPCG(35, 1))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	matched := 0
	for _, sql := range texts {
		want := full(sql)
		if got := catalogName(sql); got != want {
			t.Fatalf("catalogName(%q) = %q, the regular expressions alone %q", sql, got, want)
		}
		if want != "" {
			matched++
		}
	}
	if matched < 300 {
		t.Fatalf("only %d texts name a catalog: the test does not exercise the pre-filter", matched)
	}
}
