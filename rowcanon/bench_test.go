package rowcanon

import "testing"

// BenchmarkRowImageAndLeafHash is the canonical cost per changed row
// (issue 37 measures it against the native digests): the image and its
// hash of an eleven-column row of every kind (golden.json's accounts).
func BenchmarkRowImageAndLeafHash(b *testing.B) {
	var cols []Column
	for _, c := range goldenRows[1].Columns {
		v, err := parseLiteral(c.Literal)
		if err != nil {
			b.Fatal(err)
		}
		cols = append(cols, Column{c.Name, v})
	}
	b.ReportAllocs()
	for b.Loop() {
		img, err := EncodeRow("accounts", cols)
		if err != nil {
			b.Fatal(err)
		}
		LeafHash(img)
	}
}

// BenchmarkEncodeKey is the key of a (bigint, text) tuple.
func BenchmarkEncodeKey(b *testing.B) {
	vals := []Value{Int(123456789), mustValue(b)(Text("customer-0042"))}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeKey(vals); err != nil {
			b.Fatal(err)
		}
	}
}
