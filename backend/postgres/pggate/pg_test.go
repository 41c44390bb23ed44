package pggate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// connect opens a session on a fresh test database with relchain's pinned
// zone. Without a PostgreSQL server it fails, or skips under
// RELCHAIN_SKIP_PG=1, as every PostgreSQL test does (pgtest's policy).
func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.RuntimeParams["extra_float_digits"] = "3"
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// TestRewriteOnPostgres: on a real PostgreSQL, every rewrite of the table
// describes to the same result columns (names, types, type modifiers) and
// parameters as its original, so clients, outer queries and CTEs see no
// difference but the values.
func TestRewriteOnPostgres(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE TABLE t (a int, b float8, c timestamptz, ts timestamptz, id int, d date);
		CREATE PROCEDURE p(a timestamptz, b float8) LANGUAGE sql AS 'SELECT 1'`); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range rewrites {
		if strings.HasPrefix(c.sql, "CALL") {
			continue
		}
		orig, err := conn.PgConn().Prepare(ctx, "", c.sql, nil)
		if err != nil {
			t.Errorf("%q: %v", c.sql, err)
			continue
		}
		rw, err := conn.PgConn().Prepare(ctx, "", c.want, nil)
		if err != nil {
			t.Errorf("%q: the rewrite %q: %v", c.sql, c.want, err)
			continue
		}
		n++
		if len(orig.Fields) != len(rw.Fields) || len(orig.ParamOIDs) != len(rw.ParamOIDs) {
			t.Errorf("%q: %d columns, %d parameters; rewritten %d, %d", c.sql, len(orig.Fields), len(orig.ParamOIDs), len(rw.Fields), len(rw.ParamOIDs))
			continue
		}
		for i, f := range orig.Fields {
			g := rw.Fields[i]
			if f.Name != g.Name || f.DataTypeOID != g.DataTypeOID || f.TypeModifier != g.TypeModifier {
				t.Errorf("%q: column %d is %s (type %d, mod %d); rewritten %s (type %d, mod %d)",
					c.sql, i, f.Name, f.DataTypeOID, f.TypeModifier, g.Name, g.DataTypeOID, g.TypeModifier)
			}
		}
		for i, p := range orig.ParamOIDs {
			if rw.ParamOIDs[i] != p {
				t.Errorf("%q: parameter %d has type %d, rewritten %d", c.sql, i+1, p, rw.ParamOIDs[i])
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d rewrites compared", n)
	}
}

// TestRewriteValuesOnPostgres: the rewritten literals read back as the
// environment's time (microseconds, UTC) and random values.
func TestRewriteValuesOnPostgres(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	sql, err := Rewrite("SELECT now(), current_date::text, localtime(3)::text, current_time::text, random(), random()", testEnv)
	if err != nil {
		t.Fatal(err)
	}
	var (
		now                  time.Time
		date, ltime, cur     string
		r0, r1               float64
		want                 = testEnv.Time.Truncate(time.Microsecond)
		wantR0, wantR1       = randomValue(testEnv.Seed, 0), randomValue(testEnv.Seed, 1)
		wantDate, wantLocalT = "2026-11-22", "07:21:43.123"
	)
	if err := conn.QueryRow(ctx, sql).Scan(&now, &date, &ltime, &cur, &r0, &r1); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if !now.Equal(want) || date != wantDate || ltime != wantLocalT || cur != "07:21:43.123456+00" || r0 != wantR0 || r1 != wantR1 {
		t.Errorf("%s = %v %s %s %s %v %v; want %v %s %s 07:21:43.123456+00 %v %v",
			sql, now, date, ltime, cur, r0, r1, want, wantDate, wantLocalT, wantR0, wantR1)
	}
}

// TestRoutinesOnPostgres: every function, procedure and trigger statement
// of the corpus that the gate accepts is accepted by PostgreSQL too (each
// in a transaction of its own, rolled back), so the gate's reading of SQL
// and PL/pgSQL bodies matches the server's. What runs is the text Rewrite
// returns, as in a block.
func TestRoutinesOnPostgres(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `
		CREATE TABLE accounts (id bigint PRIMARY KEY, bal numeric, owner text);
		CREATE TABLE t (a int, b int, id int, ts timestamptz, d date, updated int, n int, x int);
		CREATE TABLE u (id int, a int, x int);
		CREATE TABLE log (writer int, seq int);
		CREATE TABLE counter (id int, n int);
		CREATE TABLE kv (writer int, seq int, v text);
		CREATE TABLE audit (tbl text, op text, id int);
		CREATE TABLE fs (id int, f float8, g int, h int);
		CREATE VIEW v AS SELECT a FROM t;
		CREATE FUNCTION public.add1(x int) RETURNS int LANGUAGE sql IMMUTABLE RETURN x + 1;
		CREATE FUNCTION public.g() RETURNS int LANGUAGE sql RETURN 1;
		CREATE FUNCTION public.audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
		CREATE FUNCTION public.v_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
		CREATE FUNCTION public.summarize() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
		CREATE PROCEDURE public.log_transfer(a bigint, b bigint, c numeric) LANGUAGE sql AS $$ SELECT 1 $$;
	`); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range corpus {
		u := strings.ToUpper(c.SQL)
		if c.Want != "" || !strings.HasPrefix(u, "CREATE") || !(strings.Contains(u, "FUNCTION") || strings.Contains(u, "PROCEDURE") || strings.Contains(u, "TRIGGER")) {
			continue
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		text, err := Rewrite(c.SQL, testEnv) // what the backend executes
		if err != nil {
			t.Fatalf("%q: %v", c.SQL, err)
		}
		_, err = tx.Exec(ctx, text)
		_ = tx.Rollback(ctx)
		switch {
		case err == nil:
			n++
		case strings.Contains(err.Error(), "already exists"), strings.Contains(err.Error(), `language "SQL" does not exist`):
			// the setup's own objects; a quoted language name is case-sensitive
		default:
			t.Errorf("%q: accepted by the gate, refused by PostgreSQL: %v", c.SQL, err)
		}
	}
	if n < 30 {
		t.Errorf("only %d routine statements ran", n)
	}
}
