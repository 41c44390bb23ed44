package pgconv

import "testing"

// TypeName returns the name spelled, and a known one without allocating.
func TestTypeNameInternsKnownNames(t *testing.T) {
	for _, name := range []string{"numeric", "varchar", "unknown", "timestamptz", "int4[]", "mytype"} {
		if got := TypeName([]byte(name)); got != name {
			t.Errorf("TypeName(%q) = %q", name, got)
		}
	}
	raw := []byte("numeric")
	if n := testing.AllocsPerRun(100, func() { _ = TypeName(raw) }); n != 0 {
		t.Errorf("TypeName of a known name allocated %v times a call, want 0", n)
	}
}
