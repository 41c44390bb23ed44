package proxy

import (
	"fmt"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/rowcanon"
)

// The Describe cache keeps a statement's columns until dropped, and is
// emptied rather than grown past describeCacheSize.
func TestDescribeCacheBounded(t *testing.T) {
	var d describeCache
	cols := []api.ColumnType{{Name: "k", Type: "int8"}}
	d.put("q", cols)
	if got, ok := d.get("q"); !ok || len(got) != 1 || got[0].Name != "k" {
		t.Fatalf("get after put: %v, %v", got, ok)
	}
	d.drop("q")
	if _, ok := d.get("q"); ok {
		t.Fatal("a dropped description is still cached")
	}
	for i := range describeCacheSize + 10 {
		d.put(fmt.Sprint("q", i), cols)
		if len(d.m) > describeCacheSize {
			t.Fatalf("%d descriptions cached, at most %d", len(d.m), describeCacheSize)
		}
	}
	if _, ok := d.get(fmt.Sprint("q", describeCacheSize+9)); !ok {
		t.Fatal("the newest description is not cached")
	}
}

// typesFit refuses a described type that does not hold a proven value's
// kind (a cached description a DDL made stale) and lets NULL and types it
// does not know pass.
func TestTypesFit(t *testing.T) {
	cols := []api.ColumnType{{Name: "k", Type: "int8"}, {Name: "v", Type: "mytype"}}
	idx := []int{0, 1}
	text, err := rowcanon.Text("7")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		row  []rowcanon.Value
		want bool
	}{
		{[]rowcanon.Value{rowcanon.Int(7), text}, true},
		{[]rowcanon.Value{{}, text}, true},
		{[]rowcanon.Value{text, rowcanon.Int(7)}, false},
	} {
		if got := typesFit(cols, idx, [][]rowcanon.Value{c.row}); got != c.want {
			t.Fatalf("typesFit(%v) = %v, want %v", c.row, got, c.want)
		}
	}
}
