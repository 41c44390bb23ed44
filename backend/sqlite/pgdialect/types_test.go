package pgdialect

import "testing"

// TestFloatDeclaredTypes: float columns are declared with BLOB affinity
// (REAL affinity stores a whole float as an integer and loses -0's sign),
// read back as their type, and the spelling of earlier builds (REAL
// affinity) still reads back.
func TestFloatDeclaredTypes(t *testing.T) {
	for _, name := range []string{"float4", "float8"} {
		typ := Type{Name: name, Typmod: -1}
		d := DeclaredType(typ)
		if d != name+" blob" {
			t.Errorf("%s is declared %q, want %q", name, d, name+" blob")
		}
		for _, spelled := range []string{d, name, " " + name + " BLOB "} {
			if got, ok := ParseDeclaredType(spelled); !ok || got != typ {
				t.Errorf("%q reads back as %v %v, want %v", spelled, got, ok, typ)
			}
		}
	}
}
