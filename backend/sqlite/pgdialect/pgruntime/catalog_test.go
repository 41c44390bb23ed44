package pgruntime_test

import (
	"context"
	"fmt"
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

// A translation's catalog (NewTranslationCatalog) reads each table once and
// answers every question as NewCatalog does: the columns, their types and
// NOT NULL, the serial sequences, and no answer for a missing table, a
// table of relchain's or SQLite's, or a column it does not have.
func TestTranslationCatalogAnswersAsCatalog(t *testing.T) {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, ddl := range []string{
		"CREATE TABLE s (id serial PRIMARY KEY, name text NOT NULL, big bigserial)",
		`CREATE TABLE "Q" ("id" int8 NOT NULL, "v" text)`,
		"CREATE TABLE relchain_x (a int4)",
		"CREATE TABLE odd (a whatever)",
	} {
		tr, err := pgdialect.Translate(ddl, pgruntime.NewCatalog(c))
		if err != nil {
			if err := c.Exec(ddl); err != nil { // a table the dialect did not write
				t.Fatalf("%s: %v", ddl, err)
			}
			continue
		}
		for _, s := range tr.Statements {
			if err := c.Exec(s); err != nil {
				t.Fatalf("%s: %s: %v", ddl, s, err)
			}
		}
	}
	shared := &pgruntime.Tables{}
	plain, memo := pgruntime.NewCatalog(c), pgruntime.NewTranslationCatalog(c, shared)
	for range 2 { // the second round from memory
		for _, table := range []string{"s", "Q", "q", "relchain_x", "odd", "nosuch"} {
			want, wok := plain.Columns(table)
			got, gok := memo.Columns(table)
			if wok != gok || fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("Columns(%q) = %v %v, NewCatalog's %v %v", table, got, gok, want, wok)
			}
			for _, col := range []string{"id", "name", "big", "v", "a", "ID", "nosuch"} {
				wseq, wok := plain.(pgdialect.Serials).Serial(table, col)
				gseq, gok := memo.(pgdialect.Serials).Serial(table, col)
				if wseq != gseq || wok != gok {
					t.Errorf("Serial(%q, %q) = %q %v, NewCatalog's %q %v", table, col, gseq, gok, wseq, wok)
				}
			}
		}
	}
	if seq, ok := memo.(pgdialect.Serials).Serial("s", "big"); !ok || seq == "" {
		t.Errorf("Serial(s, big) = %q %v, want its sequence", seq, ok)
	}
	if pgruntime.CatalogError(plain) != nil || pgruntime.CatalogError(memo) != nil {
		t.Fatalf("CatalogError: %v, %v", pgruntime.CatalogError(plain), pgruntime.CatalogError(memo))
	}
	// A later translation on the same schema reads only what the shared
	// Tables lack: here the connection no longer answers, and a table
	// not read before is a failure to read, never an absence.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.SetInterrupt(ctx)
	next := pgruntime.NewTranslationCatalog(c, shared)
	if cols, ok := next.Columns("s"); !ok || len(cols) != 3 || pgruntime.CatalogError(next) != nil {
		t.Fatalf("Columns(s) from the shared Tables: %v %v, CatalogError %v", cols, ok, pgruntime.CatalogError(next))
	}
	if _, ok := next.Columns("nosuch"); ok || pgruntime.CatalogError(next) != nil {
		t.Fatalf("Columns(nosuch) from the shared Tables: ok %v, CatalogError %v", ok, pgruntime.CatalogError(next))
	}
	if _, ok := next.(pgdialect.Serials).Serial("later", "id"); ok || pgruntime.CatalogError(next) == nil {
		t.Fatalf("Serial on an unreadable schema: ok %v, CatalogError %v", ok, pgruntime.CatalogError(next))
	}
	if _, ok := pgruntime.NewTranslationCatalog(c, shared).Columns("later"); ok {
		t.Fatal("a failed read was kept in the shared Tables as an answer")
	}
}
