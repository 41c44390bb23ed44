package pgnames

import (
	"reflect"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func TestObjectNameClipsTheLongerName(t *testing.T) {
	long := strings.Repeat("a", 70)
	for _, c := range []struct{ n1, n2, label, want string }{
		{"t", "", "pkey", "t_pkey"},
		{"t", "a_b", "key", "t_a_b_key"},
		{long, "", "pkey", strings.Repeat("a", 58) + "_pkey"},
		{long, "col", "key", strings.Repeat("a", 55) + "_col_key"},
		{"é" + long, "", "pkey", "é" + strings.Repeat("a", 56) + "_pkey"},
	} {
		got := ObjectName(c.n1, c.n2, c.label)
		if got != c.want || len(got) > MaxNameBytes {
			t.Errorf("ObjectName(%q, %q, %q) = %q, want %q", c.n1, c.n2, c.label, got, c.want)
		}
	}
}

func TestKeyIndexesAndClash(t *testing.T) {
	tree, err := pg_query.Parse(`CREATE TABLE w (id int PRIMARY KEY, k text UNIQUE, a int, b int, CONSTRAINT w_ab UNIQUE (a, b), UNIQUE (b, a), CHECK (a > 0))`)
	if err != nil {
		t.Fatal(err)
	}
	elts := tree.GetStmts()[0].GetStmt().GetCreateStmt().GetTableElts()
	got := KeyIndexes("w", elts)
	want := []KeyIndex{{Name: "w_pkey", Primary: true}, {Name: "w_k_key"}, {Name: "w_ab", Named: true}, {Name: "w_b_a_key"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("KeyIndexes: %+v, want %+v", got, want)
	}
	none := func(string) bool { return false }
	if k, clash := Clash("w", got, none); clash {
		t.Fatalf("clash %+v in an empty schema", k)
	}
	if k, clash := Clash("w", got, func(n string) bool { return n == "w_k_key" }); !clash || k.Name != "w_k_key" || k.Named {
		t.Fatalf("a taken default name: %+v %v", k, clash)
	}
	// A named key is reserved before the default names are checked: the
	// default that matches it clashes, not the named one.
	keys := []KeyIndex{{Name: "w_k_key"}, {Name: "w_k_key", Named: true}}
	if k, clash := Clash("w", keys, none); !clash || k.Named {
		t.Fatalf("default against named: %+v %v", k, clash)
	}
	if k, clash := Clash("w_ab", []KeyIndex{{Name: "w_ab", Named: true}}, none); !clash || !k.Named {
		t.Fatalf("a constraint named as its table: %+v %v", k, clash)
	}
}
