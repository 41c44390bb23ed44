package rowcanon

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func mustRow(t *testing.T, table string, cols []Column) []byte {
	t.Helper()
	b, err := EncodeRow(table, cols)
	if err != nil {
		t.Fatalf("EncodeRow(%s, %v): %v", table, cols, err)
	}
	return b
}

func text(t *testing.T, s string) Value { return mustValue(t)(Text(s)) }

func TestRowsThatShareTheirBytesDoNotCollide(t *testing.T) {
	rows := []struct {
		table string
		cols  []Column
	}{
		{"ab", []Column{{"c", Int(1)}}},
		{"a", []Column{{"bc", Int(1)}}},
		{"a", []Column{{"b", text(t, "ab")}, {"c", text(t, "c")}}},
		{"a", []Column{{"b", text(t, "a")}, {"c", text(t, "bc")}}},
		{"a", []Column{{"b", Bytes([]byte("ab"))}, {"c", Bytes([]byte("c"))}}},
		{"a", []Column{{"b", text(t, "abc")}}},
		{"a", []Column{{"b", text(t, "")}, {"c", text(t, "")}}},
		{"a", []Column{{"b", Null()}, {"c", Null()}}},
		{"a", []Column{{"b", Null()}}},
		{"a", []Column{{"b", text(t, "")}}},
		{"a", []Column{{"b", Bytes(nil)}}},
		{"a", []Column{{"b", Int(0)}}},
		{"a", []Column{{"b", mustValue(t)(Numeric("0"))}}},
		{"a", []Column{{"b", Float(0)}}},
		{"a", []Column{{"b", Float(math.Copysign(0, -1))}}},
		{"a", []Column{{"b", Bool(false)}}},
		{"a", nil},
	}
	seen := map[[32]byte]int{}
	for i, r := range rows {
		h := LeafHash(mustRow(t, r.table, r.cols))
		if j, ok := seen[h]; ok {
			t.Errorf("rows %d and %d have one image: %s %v and %s %v", j, i, rows[j].table, rows[j].cols, r.table, r.cols)
		}
		seen[h] = i
	}
}

func TestRowImageIgnoresColumnOrder(t *testing.T) {
	cols := []Column{{"id", Int(7)}, {"name", text(t, "x")}, {"Balance", mustValue(t)(Numeric("10.50"))}, {"note", Null()}}
	want := mustRow(t, "accounts", cols)
	rev := slices.Clone(cols)
	slices.Reverse(rev)
	if got := mustRow(t, "accounts", rev); !bytes.Equal(got, want) {
		t.Errorf("reversed columns: %x, want %x", got, want)
	}
	_, back, err := DecodeRow(want)
	if err != nil {
		t.Fatal(err)
	}
	if names := []string{back[0].Name, back[1].Name, back[2].Name, back[3].Name}; !slices.Equal(names, []string{"Balance", "id", "name", "note"}) {
		t.Errorf("columns are sorted by the bytes of their names: %v", names)
	}
}

func TestEncodeRowRefusesAmbiguousNames(t *testing.T) {
	for _, c := range []struct {
		table string
		cols  []Column
	}{
		{"", nil},
		{"t\xff", nil},
		{"t", []Column{{"a", Int(1)}, {"a", Int(2)}}},
		{"t", []Column{{"", Int(1)}}},
		{"t", []Column{{"a\xc3", Int(1)}}},
	} {
		if _, err := EncodeRow(c.table, c.cols); !errors.Is(err, ErrInvalid) {
			t.Errorf("EncodeRow(%q, %v) = %v, want ErrInvalid", c.table, c.cols, err)
		}
	}
}

func TestRowRoundTripAndDistinctRowsDistinctImages(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	kinds := append(slices.Clone(keyKinds), KindNull, KindJSON)
	images := map[string]string{}
	for n := 0; n < 20_000; n++ {
		table := pick(r, []string{"t", "tt", "accounts"})
		var cols []Column
		for i := range r.IntN(4) {
			cols = append(cols, Column{Name: pick(r, []string{"a", "b", "ab"})[:1] + strings.Repeat("x", i), Value: randValue(t, r, pick(r, kinds))})
		}
		img := mustRow(t, table, cols)
		gotTable, got, err := DecodeRow(img)
		if err != nil {
			t.Fatalf("DecodeRow(%x): %v", img, err)
		}
		slices.SortFunc(cols, func(a, b Column) int { return strings.Compare(a.Name, b.Name) })
		if gotTable != table || !sameColumns(got, cols) {
			t.Fatalf("DecodeRow(EncodeRow(%s, %v)) = %s, %v", table, cols, gotTable, got)
		}
		desc := table + " " + describe(cols)
		if prev, ok := images[string(img)]; ok && prev != desc {
			t.Fatalf("one image for %s and %s", prev, desc)
		}
		images[string(img)] = desc
	}
}

func sameColumns(a, b []Column) bool {
	return slices.EqualFunc(a, b, func(x, y Column) bool {
		return x.Name == y.Name && sameValue(x.Value, y.Value) && math.Signbit(x.Value.f) == math.Signbit(y.Value.f)
	})
}

// describe is cols with each value's kind, its text and (for floats)
// its sign: equal descriptions are equal rows.
func describe(cols []Column) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(c.Name + ":" + c.Value.Kind().String() + ":" + c.Value.String() + ";")
	}
	return b.String()
}

func TestDecodeRowRefusesNonCanonical(t *testing.T) {
	good := mustRow(t, "t", []Column{{"a", Int(1)}, {"b", Null()}})
	// header: version, table "t", count (10 bytes); column b (NULL) is
	// the last 10 bytes
	header, colA, colB := good[:10], good[10:len(good)-10], good[len(good)-10:]
	if _, _, err := DecodeRow(slices.Concat(header, colA, colB)); err != nil {
		t.Fatalf("the parts do not make the row back: %v", err)
	}
	unsorted := slices.Concat(header, colB, colA)
	for name, b := range map[string][]byte{
		"empty":         {},
		"version 2":     slices.Concat([]byte{2}, good[1:]),
		"truncated":     good[:len(good)-1],
		"trailing byte": slices.Concat(good, []byte{0}),
		"unsorted":      unsorted,
		"huge count":    slices.Concat(good[:6], []byte{0xff, 0xff, 0xff, 0xff}, good[10:]),
	} {
		if _, _, err := DecodeRow(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: DecodeRow(%x) = %v, want ErrInvalid", name, b, err)
		}
	}
}
