package e2e

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestGatewayCatalogProbe_Postgres is issue 33's item 1 after a schema
// change: migration tools run each migration in a client transaction and
// introspect the catalogs after their own DDL in it (knex's hasTable after
// createTable, Django's table list after CREATE TABLE). Through a node's
// listener on a 4-validator PostgreSQL network, those reads see the
// transaction's uncommitted table (the rehearsal's probe), a read of
// relchain's schema stays refused, the transaction commits, and every
// validator ends with the same state. Before the probe the first catalog
// read after CREATE TABLE failed with 0A000 ("This transaction changed the
// schema: a catalog query inside it cannot be answered before COMMIT"),
// and a prepared INSERT into the new table with 42P01 (its Describe).
func TestGatewayCatalogProbe_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: "postgres", pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	mustTxExec(t, tx, `CREATE TABLE knex_migrations (id INTEGER PRIMARY KEY, name VARCHAR(255), batch INTEGER)`)
	// knex's hasTable (its schema pinned: current_schema() is refused in blocks on this branch).
	if n := queryInt(t, ctx, tx, `SELECT count(*) FROM information_schema.tables WHERE table_name = $1 AND table_schema = 'public'`, "knex_migrations"); n != 1 {
		t.Fatalf("knex's hasTable after its CREATE TABLE in the transaction: %d tables, want 1", n)
	}
	rows, err := tx.Query(ctx, `SELECT * FROM information_schema.tables WHERE table_name = $1 AND table_schema = 'public'`, "knex_migrations")
	if err != nil {
		t.Fatal(err)
	}
	all, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil || len(all) != 1 || all[0]["table_name"] != "knex_migrations" || all[0]["table_type"] != "BASE TABLE" {
		t.Fatalf("knex's select * from information_schema.tables: %v %v", all, err)
	}
	// A prepared write of the new table: the node describes on committed
	// state, where the table does not exist yet (pgx and knex prepare it):
	// its parameters are described as text, so the values go as text, as
	// node-postgres sends them.
	mustTxExec(t, tx, `INSERT INTO knex_migrations (id, name, batch) VALUES ($1, $2, $3)`, "1", "20261202_init.js", "1")
	mustTxExec(t, tx, `CREATE TABLE django_content_type (id INTEGER PRIMARY KEY, app_label VARCHAR(100) NOT NULL, model VARCHAR(100) NOT NULL)`)
	// Django's introspection.get_table_list.
	if got := queryRows(t, ctx, tx, `SELECT c.relname, c.relkind FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('f', 'm', 'p', 'r', 'v') AND n.nspname NOT IN ('pg_catalog', 'pg_toast')
		AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY c.relname`); got != "[[django_content_type r] [knex_migrations r]]" {
		t.Fatalf("Django's table list after two CREATE TABLEs in the transaction: %s", got)
	}
	if got := queryRows(t, ctx, tx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_name = 'django_content_type' ORDER BY ordinal_position`); got != "[[id integer] [app_label character varying] [model character varying]]" {
		t.Fatalf("knex's columnInfo of the new table: %s", got)
	}
	// What a read may not read, a catalog query inside the transaction may not either.
	if got := queryRows(t, ctx, tx, `SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'relchain'`); got != "[]" {
		t.Fatalf("a catalog query of relchain's schema inside the transaction lists %s, want nothing (the read policy hides it)", got)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT of the migration: %v", err)
	}

	// Nothing of the probes entered the chain; the migration did, on every validator.
	want := map[string][][]any{
		`SELECT id, name, batch FROM knex_migrations ORDER BY id`:                                            {{int64(1), "20261202_init.js", int64(1)}},
		`SELECT count(*) FROM django_content_type`:                                                           {{int64(0)}},
		`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`: {{"django_content_type"}, {"knex_migrations"}},
	}
	queries := make([]string, 0, len(want))
	for q := range want {
		queries = append(queries, q)
	}
	h, got := c.consistentRead(ctx, queries...)
	for i, q := range queries {
		c.requireSameRows(h, q, got[i])
		norm := make([][]any, len(got[i][0]))
		for r, row := range got[i][0] {
			norm[r] = make([]any, len(row))
			for k, v := range row {
				if s, ok := v.(string); ok {
					norm[r][k] = s
				} else {
					norm[r][k] = asInt(t, v)
				}
			}
		}
		if !reflect.DeepEqual(norm, want[q]) {
			t.Errorf("%s at height %d: %v, want %v", q, h, norm, want[q])
		}
	}

	// The read policy refuses in a probe what it refuses on the read path
	// (pg_sleep: 42501), and the failed transaction rolls back.
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustTxExec(t, tx, `CREATE TABLE rolled_back (id INTEGER PRIMARY KEY)`)
	if _, err := tx.Exec(ctx, `SELECT pg_catalog.pg_sleep(0.01)`); err == nil || !strings.Contains(err.Error(), "42501") {
		t.Fatalf("pg_sleep after DDL in a transaction: %v, want the read policy's 42501", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, ctx, conn, `SELECT count(*) FROM information_schema.tables WHERE table_name = 'rolled_back'`); n != 0 {
		t.Fatalf("a rolled-back transaction's table exists: %d", n)
	}
}
