package pgdialect

import (
	"strings"
	"testing"
)

var updateFromCatalog = staticCatalog{
	"s": {col("w", "int4", -1), col("i", "int4", -1), col("qty", "int4", -1)},
	"u": {col("k", "int4", -1)},
}

// TestUpdateFromValues: UPDATE ... FROM one VALUES list is SQLite's own
// UPDATE ... FROM; anything whose matching row would depend on the
// physical row order is refused by name.
func TestUpdateFromValues(t *testing.T) {
	for _, sql := range []string{
		"UPDATE s SET qty = qty - l.column3 FROM (VALUES (1, 1, 5), (2, 1, 4)) AS l WHERE s.w = l.column2 AND s.i = l.column1",
		"UPDATE s AS x SET qty = v.column2 FROM (VALUES ($1::integer, $2::integer)) AS v WHERE x.i = v.column1",
	} {
		tr, err := Translate(sql, updateFromCatalog)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		// SQLite's gate (backend/sqlite, order.go) takes a VALUES list
		// written as FROM (VALUES ...) alone.
		if len(tr.Statements) != 1 || !strings.Contains(tr.Statements[0], " FROM (VALUES (") {
			t.Errorf("%s: translated to %q, want one UPDATE ... FROM (VALUES ...)", sql, tr.Statements)
		}
	}
	for _, c := range []struct{ sql, code, mention string }{
		{"UPDATE s SET qty = 1 FROM u WHERE u.k = s.i", "0A000", "physical row order"},
		{"UPDATE s SET qty = 1 FROM (SELECT k FROM u) AS l WHERE l.k = s.i", "0A000", "physical row order"},
		{"UPDATE s SET qty = 1 FROM (VALUES (1)) AS l, u WHERE u.k = s.i", "0A000", "physical row order"},
		{"UPDATE s SET qty = 1 FROM (VALUES (1)) AS l WHERE l.column1 = s.i RETURNING qty", "0A000", "RETURNING"},
		{"WITH c AS (SELECT 1) UPDATE s SET qty = 1", "0A000", "WITH"},
		{"UPDATE s SET qty = 1 FROM (VALUES (1)) AS s WHERE s.column1 = 1", "42712", "more than once"},
		{"UPDATE s SET qty = 1 FROM (VALUES (1, 2)) AS l(i, q) WHERE l.i = 1", "0A000", "column names"},
		{"UPDATE s SET qty = l.column2 FROM (VALUES (1, 2), (2, 'a')) AS l WHERE i = l.column1", "22P02", "integer"},
	} {
		_, err := Translate(c.sql, updateFromCatalog)
		e, ok := err.(*Error)
		if !ok || e.Code != c.code || !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s: got %v, want %s mentioning %q", c.sql, err, c.code, c.mention)
		}
	}
}
