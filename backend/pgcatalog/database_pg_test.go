package pgcatalog

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// comparedQueries read the same rows from PostgreSQL and from the
// catalog database (valid in both dialects; no bool columns, whose
// representations differ).
var comparedQueries = []string{
	`SELECT table_name, column_name, ordinal_position, column_default, is_nullable, data_type,
	  character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix,
	  numeric_scale, datetime_precision, udt_name, is_identity, identity_generation, identity_start,
	  identity_increment, identity_maximum, identity_minimum, is_updatable
	 FROM information_schema.columns WHERE table_schema = 'public'`,
	`SELECT c.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), a.atttypmod, a.attidentity
	 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
	 WHERE c.relnamespace = 2200 AND a.attnum > 0`,
	`SELECT conname, contype, pg_get_constraintdef(oid), confupdtype, confdeltype, confmatchtype
	 FROM pg_catalog.pg_constraint WHERE connamespace = 2200`,
	`SELECT c.relname, pg_get_indexdef(c.oid), pg_get_indexdef(c.oid, 1, true) FROM pg_catalog.pg_class c
	 WHERE c.relkind = 'i' AND c.relnamespace = 2200`,
	`SELECT relname, relkind FROM pg_catalog.pg_class WHERE relnamespace = 2200`,
	`SELECT constraint_name, table_name, constraint_type, is_deferrable, nulls_distinct
	 FROM information_schema.table_constraints WHERE table_schema = 'public' AND constraint_name NOT LIKE '%not_null'`,
	`SELECT table_name, check_clause FROM information_schema.check_constraints cc
	 JOIN information_schema.table_constraints tc USING (constraint_name) WHERE tc.table_schema = 'public'`,
	`SELECT constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint
	 FROM information_schema.key_column_usage WHERE table_schema = 'public'`,
	`SELECT constraint_name, table_name, column_name FROM information_schema.constraint_column_usage
	 WHERE table_schema = 'public'`,
	`SELECT constraint_name, table_name FROM information_schema.constraint_table_usage WHERE table_schema = 'public'`,
	`SELECT constraint_name, unique_constraint_name, match_option, update_rule, delete_rule
	 FROM information_schema.referential_constraints`,
	`SELECT sequence_name, data_type, numeric_precision, numeric_precision_radix, numeric_scale, start_value,
	  minimum_value, maximum_value, increment, cycle_option FROM information_schema.sequences`,
	`SELECT table_name, table_type, is_insertable_into, is_typed FROM information_schema.tables
	 WHERE table_schema = 'public'`,
	`SELECT adnum, pg_get_expr(adbin, adrelid) FROM pg_catalog.pg_attrdef`,
	`SELECT d.deptype, s.relname, d.refobjsubid FROM pg_catalog.pg_depend d
	 JOIN pg_catalog.pg_class s ON s.oid = d.objid WHERE s.relkind = 'S' AND d.refclassid = 1259`,
	`SELECT description, objsubid FROM pg_catalog.pg_description WHERE objoid >= 16384`,
	`SELECT relname, relam, relpersistence, CAST(reltuples AS integer), relpages, relreplident, relnatts, relchecks,
	  CASE WHEN relhasrules THEN 1 ELSE 0 END, CASE WHEN relhasindex THEN 1 ELSE 0 END,
	  CASE WHEN relispopulated THEN 1 ELSE 0 END, CASE WHEN reltype = 0 THEN 0 ELSE 1 END
	 FROM pg_catalog.pg_class WHERE relnamespace = 2200`,
	`SELECT c.relname, a.attname, a.attnum, a.atttypid, a.attlen, a.attalign, a.attstorage, a.attcollation,
	  a.attndims, a.attstattarget, a.attcacheoff, CASE WHEN a.attbyval THEN 1 ELSE 0 END,
	  CASE WHEN a.attnotnull THEN 1 ELSE 0 END, CASE WHEN a.atthasdef THEN 1 ELSE 0 END
	 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = 2200`,
	`SELECT c.relname, i.indnatts, CASE WHEN i.indisunique THEN 1 ELSE 0 END,
	  CASE WHEN i.indisprimary THEN 1 ELSE 0 END, CASE WHEN i.indisvalid THEN 1 ELSE 0 END
	 FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = 2200`,
	`SELECT table_name, view_definition, check_option, is_updatable, is_insertable_into
	 FROM information_schema.views WHERE table_schema = 'public'`,
	`SELECT table_name, privilege_type, is_grantable, with_hierarchy FROM information_schema.table_privileges
	 WHERE table_schema = 'public'`,
	`SELECT typname, typtype, typcategory, typlen, typdelim, typalign, typstorage,
	  CASE WHEN typrelid = 0 THEN 0 ELSE 1 END, CASE WHEN typelem = 0 THEN 0 ELSE 1 END
	 FROM pg_catalog.pg_type WHERE typnamespace = 2200`,
	`SELECT name, setting FROM pg_catalog.pg_settings WHERE name IN ('server_encoding', 'client_encoding',
	  'standard_conforming_strings', 'integer_datetimes', 'max_identifier_length', 'search_path')`,
}

// TestAgainstPostgres runs comparedQueries on each schema's DDL in a
// scratch database of RELCHAIN_TEST_PG and on the Schema's catalog
// database, and compares the rows (order-insensitively).
func TestAgainstPostgres(t *testing.T) {
	server := pgtest.ServerDSN(t)
	cases := []struct {
		schema *Schema
		ddl    string
	}{{testSchema(), testSchemaSQL}, {oddSchema(), oddSchemaSQL}}
	for i, c := range cases {
		pg := scratchDatabase(t, server, fmt.Sprintf("pgcatalog_test_%d_%d", os.Getpid(), i), c.ddl)
		db, err := buildDB(c.schema)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range comparedQueries {
			want, got := pgRows(t, pg, q), query(t, db, q)
			if len(want) == 0 && i == 0 {
				t.Errorf("%s: no rows on PostgreSQL: the comparison proves nothing", q)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("schema %d: %s\n got %q\nwant %q", i, q, got, want)
			}
		}
	}
}

// oddSchema has quoted names, a keyword column, a composite key and
// foreign key with actions, an index that backs no constraint, and types
// without modifiers.
func oddSchema() *Schema {
	col := func(name, typ string, typmod int32) Column { return Column{Name: name, Type: typ, Typmod: typmod} }
	id := col("Id", "int4", -1)
	id.NotNull = true
	code := col("code", "varchar", -1)
	code.NotNull = true
	lineID := col("id", "int2", -1)
	lineID.NotNull = true
	return &Schema{Database: "odd", User: "bob", Tables: []Table{{
		Name: "Order",
		Columns: []Column{col("user", "text", -1), id, code, col("amount", "numeric", -1),
			col("at", "timestamp", 0), col("span", "interval", -1), col("u", "uuid", -1), col("doc", "jsonb", -1),
			col("raw", "bytea", -1), col("nums", "_int4", -1)},
		PrimaryKey: []string{"Id", "code"}, PrimaryKeyName: "Order_pkey",
	}, {
		Name:       "line",
		Columns:    []Column{lineID, col("oid_", "int4", -1), col("ocode", "varchar", -1)},
		PrimaryKey: []string{"id"}, PrimaryKeyName: "line_pkey",
		Indexes: []Index{{Name: "line_x", Unique: true, Columns: []string{"ocode", "oid_"}}},
		ForeignKeys: []ForeignKey{{Name: "line_oid__ocode_fkey", Columns: []string{"oid_", "ocode"}, RefTable: "Order",
			RefColumns: []string{"Id", "code"}, OnUpdate: 'n', OnDelete: 'r'}},
	}}}
}

// oddSchemaSQL is oddSchema in PostgreSQL's DDL.
const oddSchemaSQL = `
CREATE TABLE "Order" ("user" text, "Id" int4 NOT NULL, code varchar, amount numeric, at timestamp(0),
  span interval, u uuid, doc jsonb, raw bytea, nums int4[], PRIMARY KEY ("Id", code));
CREATE TABLE line (id int2 PRIMARY KEY, oid_ int4, ocode varchar,
  FOREIGN KEY (oid_, ocode) REFERENCES "Order" ("Id", code) ON UPDATE SET NULL ON DELETE RESTRICT);
CREATE UNIQUE INDEX line_x ON line (ocode, oid_);
`

// scratchDatabase creates the database name on server holding ddl,
// dropped at the test's end, and returns a connection to it.
func scratchDatabase(t *testing.T, server, name, ddl string) *pgx.Conn {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)") })
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	pg, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(ctx) })
	if _, err := pg.Exec(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	return pg
}

// pgRows runs q on PostgreSQL, each row's values as text joined by "|"
// as query does.
func pgRows(t *testing.T, pg *pgx.Conn, q string) []string {
	rows, err := pg.Query(context.Background(), q, pgx.QueryResultFormats{pgx.TextFormatCode})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		line := ""
		for i, v := range rows.RawValues() {
			if i > 0 {
				line += "|"
			}
			if v == nil {
				line += "NULL"
			} else {
				line += string(v)
			}
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}
