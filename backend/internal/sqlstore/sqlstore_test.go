package sqlstore

import (
	"cmp"
	"errors"
	"reflect"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/statedigest"
)

// fakeRows yields its rows of two []byte columns, then err.
type fakeRows struct {
	rows [][2][]byte
	i    int
	err  error
}

func (r *fakeRows) Next() bool { r.i++; return r.i <= len(r.rows) }
func (r *fakeRows) Err() error { return r.err }
func (r *fakeRows) Scan(dest ...any) error {
	row := r.rows[r.i-1]
	for j, d := range dest {
		switch d := d.(type) {
		case *string:
			*d = string(row[j])
		case *[]byte:
			*d = row[j]
		}
	}
	return nil
}

func TestLoadSystemGivesEmptyValuesNotNil(t *testing.T) {
	kv, err := LoadSystem(&fakeRows{rows: [][2][]byte{{[]byte("a"), []byte("1")}, {[]byte("b"), nil}}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kv, map[string][]byte{"a": []byte("1"), "b": {}}) || kv["b"] == nil {
		t.Fatalf("LoadSystem = %#v", kv)
	}
	boom := errors.New("boom")
	if _, err := LoadSystem(&fakeRows{err: boom}); !errors.Is(err, boom) {
		t.Fatalf("LoadSystem of failed rows = %v", err)
	}
}

func TestLoadSumsDecodesEachTable(t *testing.T) {
	var s statedigest.Sum
	s.Add([]byte("row"))
	tables, err := LoadSums(&fakeRows{rows: [][2][]byte{{[]byte("t"), s[:]}}})
	if err != nil || len(tables) != 1 || tables["t"] == nil || *tables["t"] != s {
		t.Fatalf("LoadSums = %v, %v", tables, err)
	}
	if _, err := LoadSums(&fakeRows{rows: [][2][]byte{{[]byte("t"), []byte("x")}}}); err == nil {
		t.Fatal("LoadSums of a malformed sum: no error")
	}
}

func TestSortedKeys(t *testing.T) {
	if got := SortedKeys(map[string][]byte{"b": nil, "a": nil, "c": nil}); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("SortedKeys = %v", got)
	}
}

func TestNextSumsRescansOrFoldsTheDelta(t *testing.T) {
	var row statedigest.Sum
	row.Add([]byte("r"))
	delta := backend.TableDelta{"b": &row}
	stored := func() (statedigest.Tables, error) { return statedigest.Tables{"a": &statedigest.Sum{}}, nil }
	scanned := func() (statedigest.Tables, error) {
		return statedigest.Tables{"z": &statedigest.Sum{}, "a": &statedigest.Sum{}}, nil
	}
	cleared := false
	clear := func() error { cleared = true; return nil }

	tables, changed, err := NextSums(false, delta, scanned, stored, clear)
	if err != nil || cleared || !reflect.DeepEqual(changed, []string{"b"}) || *tables["b"] != row {
		t.Fatalf("fold: %v %v %v, cleared %v", tables, changed, err, cleared)
	}
	tables, changed, err = NextSums(true, delta, scanned, stored, clear)
	if err != nil || !cleared || !reflect.DeepEqual(changed, []string{"a", "z"}) || len(tables) != 2 {
		t.Fatalf("rescan: %v %v %v, cleared %v", tables, changed, err, cleared)
	}
}

func TestCompareRowsPutsNullFirstThenText(t *testing.T) {
	text := func(v []byte) ([]byte, bool) { return v, v == nil }
	sorted := [][][]byte{{nil, nil}, {nil, []byte("b")}, {[]byte(""), []byte("z")}, {[]byte("a"), nil}}
	for i := range sorted {
		for j := range sorted {
			if got, want := CompareRows(sorted[i], sorted[j], text), cmp.Compare(i, j); got != want {
				t.Errorf("CompareRows(%q, %q) = %d, want %d", sorted[i], sorted[j], got, want)
			}
		}
	}
}
