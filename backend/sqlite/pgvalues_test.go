package sqlite_test

import (
	"context"
	"testing"
)

// The extreme float4 values are read back, on the read path and in a
// block, as PostgreSQL prints them (reading the largest one panicked).
func TestPostgresDialectFloat4Extremes(t *testing.T) {
	ctx := context.Background()
	b := mustOpenPostgresDialect(t)
	pgDigestBlock(t, b, 1,
		"CREATE TABLE f (id int4 PRIMARY KEY, r real)",
		"INSERT INTO f VALUES (1, 3.4028235e38), (2, -3.4028235e38), (3, 1e-45)")
	rows, _, err := b.Query(ctx, "SELECT r FROM f ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{3.4028235e38, -3.4028235e38, 1e-45}
	for i, r := range rows.Rows {
		if r[0] != want[i] {
			t.Errorf("row %d: %v, want %v", i, r[0], want[i])
		}
	}
	pgDigestBlock(t, b, 2, "UPDATE f SET r = r WHERE id = 1 RETURNING r")
}
