package pgruntime

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// The largest and smallest float4 values print as PostgreSQL prints them
// (their upper neighbour is infinite: a read of one panicked).
func TestFloat4Extremes(t *testing.T) {
	for f, want := range map[float32]string{
		math.MaxFloat32:             "3.4028235e+38",
		-math.MaxFloat32:            "-3.4028235e+38",
		math.SmallestNonzeroFloat32: "1e-45",
		float32(math.Inf(1)):        "+Inf",
		1.5:                         "1.5e+00",
	} {
		if got := float4Text(f); got != want {
			t.Errorf("float4Text(%g) = %s, want %s", f, got, want)
		}
	}
	if v, err := Value(pgdialect.Type{Name: "float4", Typmod: -1}, float64(math.MaxFloat32)); err != nil || v != 3.4028235e38 {
		t.Errorf("Value(float4 max) = %v, %v", v, err)
	}
}

// A runtime function that panics fails its statement with XX000.
func TestGuardedFunction(t *testing.T) {
	d, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.CreateFunction("pg_boom", 1, pure, guarded("pg_boom", func(sqlite3.Context, ...sqlite3.Value) { panic("boom") })); err != nil {
		t.Fatal(err)
	}
	err = d.Exec("SELECT pg_boom(1)")
	if code, _ := SQLState(err); code != "XX000" || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a panicking function: %v, want XX000", err)
	}
}

// runeSlice is the []rune conversion's slice for every range of texts
// mixing ASCII, multi-byte characters and invalid UTF-8.
func TestRuneSliceMatchesRuneConversion(t *testing.T) {
	pieces := []string{"a", "b", " ", "é", "中", "😀", "\xff", "\xe4\xb8", "\xc3", "~"}
	r := rand.New(rand.NewPCG(62, 37))
	texts := []string{"", "abc", "\xff\xfe", "é\xe4\xb8中"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		rs := []rune(s)
		for i := 0; i <= len(rs); i++ {
			for j := i; j <= len(rs); j++ {
				if got, want := runeSlice(s, int64(i), int64(j)), string(rs[i:j]); got != want {
					t.Fatalf("runeSlice(%q, %d, %d) = %q, want %q", s, i, j, got, want)
				}
			}
		}
	}
}
