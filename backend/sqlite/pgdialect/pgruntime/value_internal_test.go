package pgruntime

import (
	"math"
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
