package postgres_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// A string argument that PostgreSQL would read as a date/time with a clock
// word ('now', 'today', 'tomorrow', 'yesterday', with a zone or a time,
// inside an array or a row) is refused in a block when its
// parameter's type is or contains a date/time type: each node's server
// would resolve it with its own clock, so the validators' rows would
// differ. The same word bound to a text parameter, a date/time bound as
// the time itself, now() in the statement (the block's time), and reads
// are accepted.
func TestBlockRefusesClockWordArguments(t *testing.T) {
	b, blk, run, must := clockBlock(t)
	refused := func(param, sql string, args ...any) {
		t.Helper()
		rows, err := run(sql, args...)
		e := backend.AsError(err)
		if e == nil {
			t.Fatalf("%s %q: accepted (rows %q), want argument %s refused", sql, args, rowsText(rows), param)
		}
		if e.SQLState != "22007" || !strings.Contains(e.Message, "argument "+param+": ") || !strings.Contains(e.Message, "each node's clock") {
			t.Fatalf("%s %q: %v (%s), want 22007 naming argument %s", sql, args, e, e.SQLState, param)
		}
	}
	must("", `CREATE TABLE c (id int PRIMARY KEY, d timestamptz, dd date, tm time, tt timetz, ts timestamp,
		a timestamptz[], s text, j jsonb)`)
	must("", `CREATE TABLE w (id int PRIMARY KEY, inner_row public.c)`)
	must("", `INSERT INTO c (id, d) VALUES (1, '2020-01-01 00:00:00+00')`)

	refused("$2", `INSERT INTO c (id, d) VALUES ($1, $2)`, int64(2), "now")
	refused("$2", `INSERT INTO c (id, d) VALUES ($1, $2)`, int64(2), " NoW UTC ")
	refused("$2", `INSERT INTO c (id, dd) VALUES ($1, $2)`, int64(2), "today")
	refused("$2", `INSERT INTO c (id, ts) VALUES ($1, $2)`, int64(2), "yesterday allballs")
	refused("$2", `INSERT INTO c (id, tm) VALUES ($1, $2)`, int64(2), "now")
	refused("$2", `INSERT INTO c (id, tt) VALUES ($1, $2)`, int64(2), "now")
	refused("$2", `INSERT INTO c (id, d) VALUES ($1, $2)`, int64(2), "tomorrow 10:00")
	refused("$1", `UPDATE c SET d = $1 WHERE id = 1`, "now")
	refused("$1", `DELETE FROM c WHERE d < $1`, "now")
	refused("$1", `SELECT $1::date AS x`, "today")
	refused("$1", `UPDATE c SET a = $1 WHERE id = 1`, "{now,2020-01-01}")
	refused("$1", `UPDATE c SET a = $1 WHERE id = 1`, `{"2020-01-01","Today"}`)
	refused("$1", `INSERT INTO w VALUES (1, $1)`, "(3,now,,,,,,,)")
	refused("$1", `INSERT INTO c (id, d) SELECT 5, $1 WHERE true`, "now")
	refused("$1", `UPDATE c SET d = $1::timestamptz + interval '1 day' WHERE id = 1`, "now")
	refused("$1", `CREATE TABLE ct AS SELECT $1::timestamptz AS d`, "now")

	// The rows stay as they were: nothing of a refused statement applies.
	must("1,2020-01-01 00:00:00+00,<nil>", `SELECT id, d, a FROM c ORDER BY id`)
	// The same words as text, dates given as the time itself, now() read
	// from the block's time.
	must("", `INSERT INTO c (id, s, d) VALUES ($1, $2, $3)`, int64(2), "today", "2024-05-06 07:08:09+00")
	must("", `INSERT INTO c (id, s, j, d) VALUES ($1, $2, $3, now())`, int64(3), "now", `{"when": "now"}`)
	must("", `UPDATE c SET s = $1 WHERE d < $2`, "yesterday", "2030-01-01")
	must("3", `SELECT id FROM c WHERE j->>$1 = $2`, "when", "now")
	must("1,yesterday,2020-01-01 00:00:00+00 2,yesterday,2024-05-06 07:08:09+00 3,yesterday,2001-02-03 04:05:06+00",
		`SELECT id, s, d FROM c ORDER BY id`)
	must("", `CREATE TABLE ct AS SELECT $1::text AS s`, "now")
	// An argument that merely mentions a word is fine wherever it goes.
	must("", `UPDATE c SET s = $1 WHERE id = $2`, "not now, maybe tomorrow", int64(1))
	// A statement that fails to parse fails as it would have anyway.
	if _, err := run(`INSERT INTO nosuch (d) VALUES ($1)`, "now"); backend.AsError(err) == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("insert into a missing table: %v", err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	// Reads run with this node's clock anyway: they may say 'now'.
	rows, _, err := b.Query(ctx(t), `SELECT count(*) FROM c WHERE d < $1`, []any{"now"})
	if err != nil || rowsText(rows) != "3" {
		t.Fatalf("read with 'now': %v %q", err, rowsText(rows))
	}
}

// builtinClockTypes lists exactly the built-in types (OIDs below 10,000)
// that clockTypesQuery finds to be or contain a date/time type on this
// server's version.
func TestBuiltinClockTypes(t *testing.T) {
	got, err := postgres.ClockTypesBelow(ctx(t), pgtest.DSN(t), 10000)
	if err != nil {
		t.Fatal(err)
	}
	if want := postgres.BuiltinClockTypes(); !slices.Equal(got, want) {
		t.Fatalf("the catalog's built-in date/time types %v, builtinClockTypes %v", got, want)
	}
}
