package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// Dump's SQL, run into a fresh database, gives the same rows without
// relchain's schema or triggers, and two dumps of one state are the same.
func TestDumpRestoresRows(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	block(t, b, 1,
		`CREATE TABLE "we""ird" (a int, "b c" text, d numeric(30,10), e bytea, f timestamptz, g double precision, h boolean, j jsonb,
			PRIMARY KEY (a, "b c"), CHECK (a > 0))`,
		`CREATE INDEX "idx ""x""" ON "we""ird" (d DESC)`,
		`CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL UNIQUE, balance numeric NOT NULL DEFAULT 0)`,
		`INSERT INTO "we""ird" VALUES (2, 'it''s', 12345678901234567890.0123456789, '\x00ff27'::bytea, '2024-02-29 23:59:59.123456+05', 0.1, true, '{"k": "v''"}'),
			(1, E'back\\slash\nline', NULL, NULL, NULL, 'NaN', NULL, NULL), (1, 'ünïcødé ☃', -0.5, ''::bytea, '1970-01-01 00:00:00+00', '-Infinity', false, 'null')`,
		`INSERT INTO accounts VALUES (3, 'carol', 1.5), (1, 'alice', 10), (2, 'bob', DEFAULT)`)
	var first, second bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := postgres.Dump(ctx, dsn, &first)
	if err != nil || h != 1 {
		t.Fatalf("Dump = %d, %v; want height 1", h, err)
	}
	if _, err := postgres.Dump(ctx, dsn, &second); err != nil || !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("second dump differs (%v):\n%s\n---\n%s", err, first.String(), second.String())
	}
	if s := first.String(); strings.Contains(s, "relchain.") || strings.Contains(strings.ToUpper(s), "TRIGGER") {
		t.Fatalf("dump names relchain's objects:\n%s", s)
	}
	fresh := pgtest.AdminDSN(t)
	dst, err := pgx.Connect(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close(context.Background())
	if _, err := dst.PgConn().Exec(ctx, first.String()).ReadAll(); err != nil {
		t.Fatalf("run the dump: %v\n%s", err, first.String())
	}
	writer, _, err := pgsetup.SplitDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	src, err := pgx.Connect(ctx, writer)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(context.Background())
	for _, q := range []string{
		`SELECT string_agg(pg_catalog.row_to_json(x.*)::text, E'\n' ORDER BY x.a, x."b c") FROM "we""ird" x`,
		`SELECT string_agg(pg_catalog.row_to_json(x.*)::text, E'\n' ORDER BY x.id) FROM accounts x`,
		`SELECT string_agg(indexdef, E'\n' ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public'`,
		`SELECT string_agg(conname || pg_get_constraintdef(oid), E'\n' ORDER BY conname) FROM pg_constraint WHERE connamespace = 'public'::regnamespace`,
	} {
		var want, got string
		if err := src.QueryRow(ctx, q).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if err := dst.QueryRow(ctx, q).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
	var n int
	if err := dst.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = 'relchain') + (SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("relchain objects in the restored database: %d, %v", n, err)
	}
}

// A partitioned table is refused rather than left out of the dump.
func TestDumpRefusesPartitionedTables(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	block(t, b, 1, `CREATE TABLE p (k int, v text) PARTITION BY RANGE (k)`,
		`CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10)`, `INSERT INTO p VALUES (1, 'x')`)
	var out bytes.Buffer
	if _, err := postgres.Dump(context.Background(), dsn, &out); !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "public.p") {
		t.Fatalf("Dump of a partitioned table: %v; want ErrUnsupported naming it", err)
	}
}
