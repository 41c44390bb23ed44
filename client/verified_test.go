package client

import (
	"errors"
	"testing"
	"time"

	"github.com/relchain/relchain/client/proof"
	"github.com/relchain/relchain/rowcanon"
)

// CanonicalValue types a key value by its column's type, and refuses a
// value the type cannot hold or a type without a canonical key form.
func TestCanonicalValue(t *testing.T) {
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		typ  string
		in   any
		want rowcanon.Kind
	}{
		{"int8", 5, rowcanon.KindInt}, {"int4", "-7", rowcanon.KindInt}, {"numeric", "1.50", rowcanon.KindNumeric},
		{"float8", "2.5", rowcanon.KindFloat}, {"text", "x", rowcanon.KindText}, {"varchar", 12, rowcanon.KindText},
		{"bytea", `\x00ff`, rowcanon.KindBytes}, {"bool", "true", rowcanon.KindBool}, {"date", "2024-01-02", rowcanon.KindDate},
		{"timestamptz", day, rowcanon.KindTimestamp}, {"uuid", "123e4567-e89b-12d3-a456-426614174000", rowcanon.KindUUID},
		{"jsonb", rowcanon.Int(3), rowcanon.KindInt},
	} {
		v, err := CanonicalValue(c.typ, c.in)
		if err != nil || v.Kind() != c.want {
			t.Errorf("CanonicalValue(%s, %v) = %v, %v; want a %v", c.typ, c.in, v, err, c.want)
		}
	}
	for _, c := range []struct {
		typ string
		in  any
	}{{"int8", "x"}, {"int8", "1.5"}, {"bytea", "zz"}, {"bool", "maybe"}, {"date", "yesterday"}, {"uuid", "42"}, {"jsonb", "{}"}} {
		if v, err := CanonicalValue(c.typ, c.in); err == nil {
			t.Errorf("CanonicalValue(%s, %v) = %v, want an error", c.typ, c.in, v)
		}
	}
}

// A node that names other columns than the primary key is caught by a
// row whose key is not its columns' values; a key of the wrong length is
// refused before any request.
func TestTableKeyChecksRows(t *testing.T) {
	tk := &TableKey{Table: "acct", Columns: []string{"id"}, Types: []string{"int8"}}
	key, err := tk.Encode([]any{7})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tk.Encode([]any{7, 8}); err == nil {
		t.Fatal("a key of two values for a one-column key: no error")
	}
	row := []rowcanon.Column{{Name: "id", Value: rowcanon.Int(7)}, {Name: "bal", Value: rowcanon.Int(100)}}
	if err := tk.checkImage(key, row); err != nil {
		t.Fatalf("the honest row: %v", err)
	}
	lied := &TableKey{Table: "acct", Columns: []string{"bal"}, Types: []string{"int8"}}
	if err := lied.checkImage(key, row); !errors.Is(err, ErrKeyColumns) || !errors.Is(err, proof.ErrRejected) {
		t.Fatalf("key columns (bal) for a row keyed by id: %v, want ErrKeyColumns", err)
	}
	missing := &TableKey{Table: "acct", Columns: []string{"nope"}, Types: []string{"int8"}}
	if err := missing.checkImage(key, row); !errors.Is(err, ErrKeyColumns) {
		t.Fatalf("a key column the row lacks: %v, want ErrKeyColumns", err)
	}
}

// project keeps the asked columns in the asked order, case-insensitively.
func TestProject(t *testing.T) {
	r := &VerifiedRows{Table: "t", Columns: []string{"a", "b"}, Rows: [][]rowcanon.Value{{rowcanon.Int(1), rowcanon.Int(2)}}}
	p, err := r.project([]string{"B", "a"})
	if err != nil || p.Rows[0][0].AsInt() != 2 || p.Rows[0][1].AsInt() != 1 {
		t.Fatalf("project(B, a) = %+v, %v", p, err)
	}
	if _, err := r.project([]string{"c"}); err == nil {
		t.Fatal("project on a column the rows lack: no error")
	}
}
