package mysql_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/sqlcheck"
)

// pgStep is one bc-transaction of one statement in TestPostgresDialect*:
// its text and arguments, and, for a construct the MariaDB translation
// refuses though PostgreSQL runs it, refused.
type pgStep struct {
	sql     string
	args    []any
	refused bool
	// fails is the SQLSTATE both engines must fail with ("": succeed).
	fails string
}

// pgOutcome is what a step gave: rows or an error's class and SQLSTATE.
type pgOutcome struct {
	rows  *backend.Rows
	class backend.Class
	state string
}

// runPGBlock runs steps as one block on b, each in its own savepoint
// (released on success, rolled back on failure, as the executor does),
// and commits it at height.
func runPGBlock(t *testing.T, c context.Context, b backend.Backend, height int64, steps []pgStep) []pgOutcome {
	t.Helper()
	blk, err := b.Begin(c)
	if err != nil {
		t.Fatalf("%s: Begin: %v", b.Dialect(), err)
	}
	var out []pgOutcome
	for i, s := range steps {
		env := sqlcheck.Env{Tx: i, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		if err := blk.Savepoint(c, env); err != nil {
			t.Fatalf("%s: Savepoint: %v", b.Dialect(), err)
		}
		rows, err := blk.Exec(c, s.sql, s.args)
		if err != nil {
			be := backend.AsError(err)
			if be == nil {
				t.Fatalf("%s: %s: not a statement error: %v", b.Dialect(), s.sql, err)
			}
			out = append(out, pgOutcome{class: be.Class, state: be.SQLState})
			if err := blk.RollbackTo(c); err != nil {
				t.Fatalf("%s: RollbackTo: %v", b.Dialect(), err)
			}
			continue
		}
		out = append(out, pgOutcome{rows: rows})
		if _, err := blk.ChangeDigest(c); err != nil {
			t.Fatalf("%s: ChangeDigest: %v", b.Dialect(), err)
		}
		if err := blk.Release(c); err != nil {
			t.Fatalf("%s: Release: %v", b.Dialect(), err)
		}
	}
	if err := blk.Commit(c, backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
		t.Fatalf("%s: Commit: %v", b.Dialect(), err)
	}
	return out
}

// openPGPair opens a PostgreSQL backend and a MariaDB backend that takes
// PostgreSQL's SQL, each on a fresh database.
func openPGPair(t *testing.T, c context.Context) (*postgres.Backend, *mysql.Backend) {
	t.Helper()
	pg, err := postgres.Open(c, pgtest.DSN(t))
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { pg.Close() })
	my := mustOpen(t, mysqltest.DSN(t), mysql.WithPostgresDialect())
	t.Cleanup(func() { my.Close() })
	if got := my.Capabilities().SQLDialect; got != dialect.SQLPostgres {
		t.Fatalf("Capabilities().SQLDialect = %q, want %q", got, dialect.SQLPostgres)
	}
	return pg, my
}

// pgBlocks are the blocks both backends run: DDL alone in its block (as
// MariaDB requires), then DML, reads, a failure and a refusal.
var pgBlocks = [][]pgStep{
	{{sql: `CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL, balance numeric(12,2) NOT NULL,
		active bool NOT NULL, born date, seen timestamp, at timestamptz, blob bytea, note varchar(20), n int4)`}},
	{
		{sql: `INSERT INTO acct VALUES ($1, $2, 100.50, true, '2000-01-02', '2024-03-04 05:06:07.5', '2024-03-04 05:06:07+02', $3, 'x', 7)`,
			args: []any{int64(1), "alice", []byte{0, 1, 0xfe}}},
		{sql: `INSERT INTO acct (id, name, balance, active) VALUES ($1, $2, 7.25, $3)`, args: []any{int64(2), "bob", false}},
		// A numeric parameter is refused (pgdialect: parameters of type
		// numeric); on PostgreSQL it matches no row.
		{sql: `UPDATE acct SET balance = $1 WHERE id = 99`, args: []any{"1.5"}, refused: true},
		{sql: `INSERT INTO acct (id, name, balance, active, note) VALUES (3, 'carol', 0, true, 'c') RETURNING id, balance, active`},
		{sql: `UPDATE acct SET balance = balance + 1 WHERE active`},
		{sql: `UPDATE acct SET note = 'x' WHERE id = $1`, args: []any{int64(1)}}, // matched, not changed: 1
		{sql: `INSERT INTO acct (id, name, balance, active) VALUES (1, 'dup', 0, false)`, fails: "23505"},
		{sql: `UPDATE acct SET n = n + 2147483647 WHERE id = 1`, fails: "22003"},
		{sql: `SELECT id, 1 / (id - id) FROM acct WHERE id = 1`, fails: "22012"},
		{sql: `SELECT id FROM acct UNION SELECT id FROM acct`, refused: true},
		{sql: `SELECT id, name FROM acct WHERE id = $1`, args: []any{"5.7"}, fails: "22P02"},
		{sql: `DELETE FROM acct WHERE id = $1`, args: []any{int64(2)}},
		{sql: `SELECT * FROM acct ORDER BY id DESC`},
		{sql: `SELECT name, balance * 2, active, blob, at FROM acct`},
		{sql: `SELECT count(*), sum(balance), max(seen) FROM acct`},
		{sql: `UPDATE acct SET at = now(), seen = localtimestamp WHERE id = 3 RETURNING at, seen`},
		{sql: `SELECT id, name FROM acct WHERE active = $1 AND name > $2 ORDER BY id`, args: []any{"yes", "b"}},
	},
	{{sql: `CREATE INDEX acct_name ON acct (note)`}},
	{{sql: `SELECT note, id FROM acct WHERE note >= 'a' ORDER BY note, id`}},
}

// TestPostgresDialectMatchesPostgres runs the same blocks of PostgreSQL
// statements on PostgreSQL and on MariaDB WithPostgresDialect through
// the backend.Block API, and compares rows (Go values), rows affected and
// error classes; a construct the translation refuses is 0A000 on MariaDB.
func TestPostgresDialectMatchesPostgres(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, my := openPGPair(t, c)
	for h, steps := range pgBlocks {
		want := runPGBlock(t, c, pg, int64(h+1), steps)
		got := runPGBlock(t, c, my, int64(h+1), steps)
		for i, s := range steps {
			comparePGOutcome(t, s, want[i], got[i])
		}
	}
}

// comparePGOutcome checks MariaDB's outcome of s against PostgreSQL's.
func comparePGOutcome(t *testing.T, s pgStep, want, got pgOutcome) {
	t.Helper()
	if s.refused {
		if want.rows == nil {
			t.Errorf("%s: PostgreSQL failed (%s %s); the test expects it to run", s.sql, want.class, want.state)
		}
		if got.state != "0A000" || got.class != backend.ClassNotImplemented {
			t.Errorf("%s: MariaDB gave %s %s, want the translation's refusal 0A000 (%s)", s.sql, got.class, got.state, backend.ClassNotImplemented)
		}
		return
	}
	if want.state != s.fails {
		t.Errorf("%s: PostgreSQL gave SQLSTATE %q, the test expects %q", s.sql, want.state, s.fails)
	}
	if want.class != got.class || want.state != got.state {
		t.Errorf("%s: error %s %s on MariaDB, %s %s on PostgreSQL", s.sql, got.class, got.state, want.class, want.state)
		return
	}
	if want.rows == nil {
		return
	}
	if want.rows.RowsAffected != got.rows.RowsAffected {
		t.Errorf("%s: rows affected %d on MariaDB, %d on PostgreSQL", s.sql, got.rows.RowsAffected, want.rows.RowsAffected)
	}
	if !reflect.DeepEqual(want.rows.Columns, got.rows.Columns) {
		t.Errorf("%s: columns %q on MariaDB, %q on PostgreSQL", s.sql, got.rows.Columns, want.rows.Columns)
	}
	if !reflect.DeepEqual(want.rows.Rows, got.rows.Rows) {
		t.Errorf("%s: rows\n%#v on MariaDB,\n%#v on PostgreSQL", s.sql, got.rows.Rows, want.rows.Rows)
	}
}

// TestPostgresDialectQueryMatchesPostgres compares the read path
// (Backend.Query) on committed state, and that it refuses writes.
func TestPostgresDialectQueryMatchesPostgres(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, my := openPGPair(t, c)
	for h, steps := range pgBlocks {
		runPGBlock(t, c, pg, int64(h+1), steps)
		runPGBlock(t, c, my, int64(h+1), steps)
	}
	reads := []pgStep{
		{sql: `SELECT id, name, balance, active, born, seen, at, blob, note FROM acct ORDER BY note, id`},
		{sql: `SELECT name FROM acct WHERE id = $1`, args: []any{int64(3)}},
		{sql: `SELECT count(*) FROM acct WHERE active = $1`, args: []any{"true"}},
		// A catalog query (psql's \d): answered by the emulated catalog
		// with the columns' declared PostgreSQL types, as PostgreSQL
		// answers it; it failed on MariaDB's translation before.
		{sql: `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = 'acct'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`},
	}
	for _, s := range reads {
		want, wh, err := pg.Query(c, s.sql, s.args)
		if err != nil {
			t.Fatalf("postgres: %s: %v", s.sql, err)
		}
		got, gh, err := my.Query(c, s.sql, s.args)
		if err != nil {
			t.Fatalf("mysql: %s: %v", s.sql, err)
		}
		if wh != gh {
			t.Errorf("%s: height %d on MariaDB, %d on PostgreSQL", s.sql, gh, wh)
		}
		comparePGOutcome(t, s, pgOutcome{rows: want}, pgOutcome{rows: got})
		if !reflect.DeepEqual(want.Types, got.Types) {
			t.Errorf("%s: types %q on MariaDB, %q on PostgreSQL", s.sql, got.Types, want.Types)
		}
	}
	_, _, err := my.Query(c, `DELETE FROM acct`, nil)
	if be := backend.AsError(err); be == nil || be.Class != backend.ClassPermission {
		t.Errorf("Query(DELETE) = %v, want a ClassPermission refusal", err)
	}
}

// TestPostgresDialectDDLAlone: in the postgres dialect a translated DDL
// statement still takes MariaDB's DDL path, so the mysql dialect's rule
// holds: DDL after a change of its block is ErrDDLNotFirst, and the
// block's earlier write is kept (not committed implicitly by the DDL).
func TestPostgresDialectDDLAlone(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, my := openPGPair(t, c)
	runPGBlock(t, c, my, 1, pgBlocks[0])
	blk, err := my.Begin(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(c, sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	rows, err := blk.Exec(c, `INSERT INTO acct (id, name, balance, active) VALUES (9, 'z', 1, true)`, nil)
	if err != nil || rows.RowsAffected != 1 {
		t.Fatalf("INSERT: %v, %v", rows, err)
	}
	if _, err := blk.ChangeDigest(c); err != nil {
		t.Fatal(err)
	}
	if err := blk.Release(c); err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(c, sqlcheck.Env{Tx: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = blk.Exec(c, `CREATE TABLE later (id int4 PRIMARY KEY)`, nil)
	if !errors.Is(err, mysql.ErrDDLNotFirst) {
		t.Fatalf("CREATE TABLE after a write: %v, want ErrDDLNotFirst", err)
	}
	if err := blk.Rollback(c); err != nil {
		t.Fatal(err)
	}
	got, _, err := my.Query(c, `SELECT count(*) FROM acct`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]any{{int64(0)}}; !reflect.DeepEqual(got.Rows, want) {
		t.Errorf("after the rolled-back block: %#v, want %#v", got.Rows, want)
	}
}

// TestPostgresDialectTranslationCacheFollowsDDL: the same text,
// translated and cached on one schema, is translated again after DDL
// changes the table's types (the value renders by the new type).
func TestPostgresDialectTranslationCacheFollowsDDL(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, my := openPGPair(t, c)
	const read = `SELECT v FROM c WHERE id = $1`
	h := int64(0)
	run := func(sql string) {
		t.Helper()
		h++
		if out := runPGBlock(t, c, my, h, []pgStep{{sql: sql}}); out[0].rows == nil {
			t.Fatalf("%s: %s %s", sql, out[0].class, out[0].state)
		}
	}
	get := func() any {
		t.Helper()
		var v any
		for i := range 2 { // the second time from the cache
			rows, _, err := my.Query(c, read, []any{int64(1)})
			if err != nil || len(rows.Rows) != 1 {
				t.Fatalf("%s (%d): %v, %v", read, i, rows, err)
			}
			v = rows.Rows[0][0]
		}
		return v
	}
	run(`CREATE TABLE c (id int4 PRIMARY KEY, v bool)`)
	run(`INSERT INTO c VALUES (1, true)`)
	if v := get(); v != true {
		t.Fatalf("bool column: %#v, want true", v)
	}
	run(`DROP TABLE c`)
	run(`CREATE TABLE c (id int4 PRIMARY KEY, v int4)`)
	run(`INSERT INTO c VALUES (1, 1)`)
	if v := get(); v != int64(1) {
		t.Fatalf("int4 column after DROP and CREATE: %#v, want int64(1)", v)
	}
}

// TestPostgresDialectDescribeMatchesPostgres: Describe gives the
// placeholders' and columns' PostgreSQL types, as PostgreSQL does.
func TestPostgresDialectDescribeMatchesPostgres(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, my := openPGPair(t, c)
	runPGBlock(t, c, pg, 1, pgBlocks[0])
	runPGBlock(t, c, my, 1, pgBlocks[0])
	for _, q := range []string{
		`SELECT id, name, balance, active, born, seen, at, blob, note, n FROM acct WHERE id = $1 AND n = $2`,
		`SELECT count(*), sum(balance), max(n) FROM acct`,
		`UPDATE acct SET n = $1 WHERE id = $2`,
	} {
		want, err := pg.Describe(c, q)
		if err != nil {
			t.Fatalf("postgres: %s: %v", q, err)
		}
		got, err := my.Describe(c, q)
		if err != nil {
			t.Fatalf("mysql: %s: %v", q, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\n%+v on MariaDB,\n%+v on PostgreSQL", q, got, want)
		}
	}
}
