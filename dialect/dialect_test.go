package dialect_test

import (
	"slices"
	"testing"

	"github.com/relchain/relchain/dialect"
)

// The default comes first, every name is found, and each database is
// either a file or a server with an example DSN.
func TestLookupAndKinds(t *testing.T) {
	names := dialect.Names()
	if len(names) == 0 || names[0] != dialect.Default {
		t.Fatalf("Names() = %v, want the default %q first", names, dialect.Default)
	}
	for _, n := range names {
		d, err := dialect.Lookup(n)
		if err != nil || d.Name != n {
			t.Fatalf("Lookup(%q) = %+v, %v", n, d, err)
		}
		if d.Server != (d.DSNTemplate != "") {
			t.Errorf("%s: Server=%v but DSNTemplate=%q: a server needs an example DSN, a file none", n, d.Server, d.DSNTemplate)
		}
		if d.Server != slices.Contains(dialect.Servers(), n) || d.Server == slices.Contains(dialect.Files(), n) {
			t.Errorf("%s: Servers() %v and Files() %v disagree with Server=%v", n, dialect.Servers(), dialect.Files(), d.Server)
		}
		if !d.Wire.PGCatalog && d.Wire.CatalogHint == "" {
			t.Errorf("%s: answers no catalog query and gives no hint", n)
		}
	}
	if _, err := dialect.Lookup("oracle"); err == nil {
		t.Fatal("Lookup(oracle) succeeded")
	}
}
