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

// Every network a database may run, in its own SQL or a translated one,
// either answers PostgreSQL's catalog queries or hints how to list tables;
// a postgres-dialect network on SQLite answers them (the emulated catalog,
// backend/pgcatalog) as a network on PostgreSQL does.
func TestNetworkWireCatalogs(t *testing.T) {
	for _, n := range dialect.Names() {
		d, _ := dialect.Lookup(n)
		for _, sql := range []string{"", d.Translates} {
			w, err := d.NetworkWire(sql)
			if err != nil {
				t.Fatalf("%s.NetworkWire(%q): %v", n, sql, err)
			}
			if !w.PGCatalog && w.CatalogHint == "" {
				t.Errorf("%s: answers no catalog query and gives no hint", d.NetworkName(sql))
			}
		}
	}
	d, err := dialect.Lookup("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.NetworkWire(dialect.SQLPostgres)
	if err != nil || !w.PGCatalog || w.CatalogHint != "" {
		t.Errorf("the postgres dialect on sqlite: %+v, %v; want PGCatalog and no hint", w, err)
	}
}
