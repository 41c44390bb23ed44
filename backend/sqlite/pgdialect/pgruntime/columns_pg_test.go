package pgruntime_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// typeOIDs are the pg_type OIDs of the supported types.
var typeOIDs = map[uint32]string{16: "bool", 17: "bytea", 20: "int8", 21: "int2", 23: "int4", 25: "text", 114: "json",
	700: "float4", 701: "float8", 1043: "varchar", 1082: "date", 1114: "timestamp", 1184: "timestamptz",
	1042: "bpchar", 1700: "numeric"}

// TestColumnsOnPostgres: every accepted execCase describes to the result
// columns PostgreSQL describes (names, types, type modifiers).
func TestColumnsOnPostgres(t *testing.T) {
	dsn := os.Getenv("RELCHAIN_TEST_PG")
	if dsn == "" {
		t.Skip("RELCHAIN_TEST_PG is not set: no PostgreSQL server to compare with")
	}
	d := mustOpen(t)
	for _, s := range fixture {
		d.mustRun(s)
	}
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "UTC"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	mustPG(t, conn, "BEGIN")
	defer conn.Exec(ctx, "ROLLBACK")
	mustPG(t, conn, "CREATE SCHEMA pgtrans_cols; SET LOCAL search_path = pgtrans_cols")
	for _, s := range fixture {
		mustPG(t, conn, s)
	}
	for _, c := range execCases {
		tr, err := pgdialect.Translate(c.sql, pgruntime.NewCatalog(d.c))
		if err != nil {
			continue
		}
		conn.Exec(ctx, "SAVEPOINT d")
		sd, err := conn.Prepare(ctx, "", c.sql)
		conn.Exec(ctx, "ROLLBACK TO SAVEPOINT d")
		if err != nil && c.want == "ERR 0A000" {
			continue
		}
		if err != nil && strings.HasPrefix(c.want, "ERR ") {
			continue // an error PostgreSQL raises while planning (constant folding)
		}
		if err != nil {
			t.Errorf("%s: accepted by the dialect, PostgreSQL: %v", c.sql, err)
			continue
		}
		var want []string
		for _, f := range sd.Fields {
			want = append(want, fmt.Sprintf("%s:%s:%d", f.Name, typeOIDs[f.DataTypeOID], f.TypeModifier))
		}
		var got []string
		for _, rc := range tr.Columns {
			got = append(got, fmt.Sprintf("%s:%s:%d", rc.Name, rc.Type.Name, rc.Type.Typmod))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s\n got %s\nwant %s", c.sql, got, want)
		}
	}
}
