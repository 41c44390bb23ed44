package sqlite

import (
	"math"
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
