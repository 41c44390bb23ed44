package pgdialect

import (
	"strings"
	"testing"
)

// serialCatalog is a staticCatalog whose "id" columns are serials.
type serialCatalog struct{ staticCatalog }

func (c serialCatalog) Serial(table, column string) (string, bool) {
	return table + "_" + column + "_seq", column == "id"
}

var upsertCatalog = serialCatalog{staticCatalog{
	"gorm_authors": {col("id", "int8", -1), col("name", "text", -1), col("created_at", "timestamptz", -1)},
	"kv":           {col("k", "int4", -1), col("v", "text", -1)},
}}

// TestUpsertSeveralRows: ON CONFLICT DO UPDATE on several VALUES rows is
// guarded against two rows with one key (21000, pg_raise) unless the
// arbiter is a serial the sequence fills; what the guard cannot judge is
// refused by name. (The rows' behaviour is compared with PostgreSQL's in
// difftest/testdata/upsert.case.)
func TestUpsertSeveralRows(t *testing.T) {
	for _, c := range []struct {
		sql   string
		guard bool
	}{
		{`INSERT INTO "gorm_authors" ("name","created_at") VALUES ($1,$2),($3,$4) ON CONFLICT ("id") DO UPDATE SET "name"="excluded"."name" RETURNING "id"`, false},
		{`INSERT INTO kv VALUES ($1, $2), ($3, $4) ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING k`, true},
		{`INSERT INTO kv VALUES (1, 'a'), ('2'::int4, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, true},
	} {
		tr, err := Translate(c.sql, upsertCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		last := tr.Statements[len(tr.Statements)-1]
		if got := strings.Contains(last, "pg_raise('21000'"); got != c.guard {
			t.Errorf("%s: translated to %q, guard %v, want %v", c.sql, last, got, c.guard)
		}
	}
	for _, c := range []struct{ sql, mention string }{
		{"INSERT INTO kv VALUES (1 + 1, 'a'), (3, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v", "not a parameter or a constant"},
		{"INSERT INTO kv (v) VALUES ('a'), ('b') ON CONFLICT (k) DO UPDATE SET v = excluded.v", "takes its default"},
		{"INSERT INTO kv VALUES (1, 'a'), (2, 'b') ON CONFLICT (k) DO UPDATE SET k = excluded.k + 10", "sets an arbiter column"},
		{"INSERT INTO kv VALUES (1, 'a'), (2, 'b') ON CONFLICT (k) DO UPDATE SET v = 'x' WHERE kv.v = 'y'", "WHERE"},
		{"INSERT INTO kv SELECT 1, 'a' ON CONFLICT (k) DO UPDATE SET v = excluded.v", "on a SELECT"},
	} {
		_, err := Translate(c.sql, upsertCatalog)
		e, ok := err.(*Error)
		if !ok || e.Code != "0A000" || !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s: got %v, want 0A000 mentioning %q", c.sql, err, c.mention)
		}
	}
}
