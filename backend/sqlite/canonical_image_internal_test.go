package sqlite

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// parseImage reads back the values SQLite's own quote() wrote, joined by
// commas as an image is: integers at both ends, REALs whole, tiny, huge,
// infinite and of 17 digits, texts holding quotes, commas and multibyte
// characters, BLOBs and NULL.
func TestParseImageReadsQuote(t *testing.T) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, _, err := c.Prepare("SELECT quote(?1)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vals := []any{int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(-7),
		1.0, -0.5, 0.1, 1.0 / 3, 1e300, 5e-324, math.Inf(1), math.Inf(-1), 123456789012345680.0,
		"", "it's, a ''test''", "ä€😀,NULL", "X'00'", []byte{}, []byte{0, 0xde, 0xad}, nil}
	var parts []string
	for _, v := range vals {
		if err := bindRaw(st, 1, v); err != nil {
			t.Fatal(err)
		}
		if !st.Step() {
			t.Fatalf("quote(%v): %v", v, st.Err())
		}
		parts = append(parts, st.ColumnText(0))
		if err := st.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	img := strings.Join(parts, ",")
	got, err := parseImage([]byte(img), len(vals))
	if err != nil {
		t.Fatalf("parseImage(%s): %v", img, err)
	}
	for i, v := range vals {
		if !reflect.DeepEqual(got[i], v) {
			t.Errorf("column %d (%s): got %#v, want %#v", i+1, parts[i], got[i], v)
		}
	}
	for _, bad := range []string{"'open", "X'0'", "1,2,3", "1;2", "abc"} {
		if _, err := parseImage([]byte(bad), 2); err == nil {
			t.Errorf("parseImage(%q) took it", bad)
		}
	}
}

// Every REAL survives quote() and parseImage bit for bit, but NaN (SQLite
// stores it as NULL) and -0, which quote() writes as 0.0: harmless for a
// key, which rowcanon writes with +0 for either zero (the row's image,
// read from the table, keeps the sign). quote() writes 20 significant
// digits whenever 15 do not give the value back.
func TestParseImageReadsEveryReal(t *testing.T) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, _, err := c.Prepare("SELECT quote(?1)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := rand.New(rand.NewPCG(36, 2))
	for i := 0; i < 20000; i++ {
		f := math.Float64frombits(r.Uint64())
		switch {
		case i == 0:
			f = math.Copysign(0, -1)
		case math.IsNaN(f) || f == 0:
			continue
		case i%2 == 0:
			f = float64(r.IntN(1e6)) / float64(1+r.IntN(1e4)) // short decimals
		}
		if err := st.BindFloat(1, f); err != nil {
			t.Fatal(err)
		}
		if !st.Step() {
			t.Fatal(st.Err())
		}
		q := st.ColumnText(0)
		if err := st.Reset(); err != nil {
			t.Fatal(err)
		}
		got, err := parseImage([]byte(q), 1)
		if err != nil {
			t.Fatalf("parseImage(%s): %v", q, err)
		}
		if i == 0 {
			if got[0] != 0.0 || math.Signbit(got[0].(float64)) {
				t.Fatalf("quote(-0) = %s, read back as %#v, want 0", q, got[0])
			}
			continue
		}
		if g, ok := got[0].(float64); !ok || math.Float64bits(g) != math.Float64bits(f) {
			t.Fatalf("quote(%v) = %s, read back as %#v", f, q, got[0])
		}
	}
}
