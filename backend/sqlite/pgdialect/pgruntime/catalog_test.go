package pgruntime_test

import (
	"context"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// A schema the catalog cannot read (here and on a node: an interrupt, as
// a proposal's deadline sends; also an I/O error, SQLite out of memory) looks like "no
// such table" to the translation; CatalogError tells the caller it was no
// verdict, so a node-local failure never becomes a tx result on one node.
func TestCatalogReportsSchemaReadFailures(t *testing.T) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`CREATE TABLE t ("id" int4)`); err != nil {
		t.Fatal(err)
	}
	cat := pgruntime.NewCatalog(c)
	if _, ok := cat.Columns("t"); !ok || pgruntime.CatalogError(cat) != nil {
		t.Fatalf("Columns(t) on a readable schema: ok %v, CatalogError %v", ok, pgruntime.CatalogError(cat))
	}
	if _, ok := cat.Columns("nosuch"); ok || pgruntime.CatalogError(cat) != nil {
		t.Fatalf("Columns(nosuch): ok %v, CatalogError %v; want a plain absence", ok, pgruntime.CatalogError(cat))
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.SetInterrupt(ctx)
	_, err = pgdialect.Translate("SELECT id FROM t", cat)
	if err == nil {
		t.Fatal("Translate on a closed connection's catalog succeeded")
	}
	if pgruntime.CatalogError(cat) == nil {
		t.Fatalf("Translate on an unreadable schema failed with %v, and CatalogError is nil: the failure would pass for the statement's", err)
	}
}
