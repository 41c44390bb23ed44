package pgdialect

import "testing"

func TestBeyondGate(t *testing.T) {
	for sql, want := range map[string]bool{
		"ALTER TABLE t RENAME TO u":                   true,
		`ALTER TABLE "T" RENAME COLUMN "a" TO "b"`:    true,
		"ALTER TABLE public.t RENAME a TO b":          true,
		"ALTER TABLE t RENAME TO relchain_meta":       false,
		"ALTER TABLE relchain_meta RENAME TO t":       false,
		"ALTER TABLE t RENAME TO sqlite_x":            false,
		"ALTER TABLE t RENAME TO pg_x":                false,
		"ALTER TABLE other.t RENAME TO u":             false,
		"ALTER TABLE t RENAME CONSTRAINT c TO d":      false,
		"ALTER INDEX i RENAME TO j":                   false,
		"ALTER VIEW v RENAME TO w":                    false,
		"ALTER TABLE t RENAME TO u; DROP TABLE x":     false,
		"ALTER TRIGGER x ON t RENAME TO relchain_cap": false,
		"SELECT 1":                false,
		"ALTER TABLE t RENAME TO": false,
	} {
		if got := BeyondGate(sql); got != want {
			t.Errorf("BeyondGate(%q) = %v, want %v", sql, got, want)
		}
	}
}
