package canonicaltest

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck"
)

// TestMain stops the private PostgreSQL cluster and MySQL server (if
// the tests started them) when the tests end.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// engine is one backend under test and its canonical reader.
type engine struct {
	name string
	b    backend.Backend
	r    backend.CanonicalReader
}

// openEngines opens a SQLite backend of the postgres dialect and a
// PostgreSQL backend, each on an empty database of t's.
func openEngines(t *testing.T) []engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { lite.Close() })
	pg, err := postgres.Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { pg.Close() })
	return []engine{{"sqlite", lite, lite}, {"postgres", pg, pg}}
}

// runBlock runs stmts as one committed block of height h, each through
// the backend's gate as a node runs it.
func runBlock(t *testing.T, e engine, h int64, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	blk, err := e.b.Begin(ctx)
	if err != nil {
		t.Fatalf("%s: begin: %v", e.name, err)
	}
	if err := blk.Savepoint(ctx, sqlcheck.Env{Time: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatalf("%s: savepoint: %v", e.name, err)
	}
	for _, s := range stmts {
		if _, err := e.b.Gate().AnalyzeInBlock(ctx, blk, s); err != nil {
			blk.Rollback(ctx)
			t.Fatalf("%s: gate: %s: %v", e.name, s, err)
		}
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			blk.Rollback(ctx)
			t.Fatalf("%s: exec: %s: %v", e.name, s, err)
		}
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatalf("%s: release: %v", e.name, err)
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatalf("%s: change digest: %v", e.name, err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatalf("%s: state digest: %v", e.name, err)
	}
	if err := blk.Commit(ctx, backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatalf("%s: commit: %v", e.name, err)
	}
}

// canonRow is one row as CanonicalRows gave it.
type canonRow struct{ key, image []byte }

// rowsOf reads table's canonical rows, sorted by key.
func rowsOf(t *testing.T, e engine, table string) []canonRow {
	t.Helper()
	var rows []canonRow
	err := e.r.CanonicalRows(context.Background(), table, func(key, image []byte) error {
		rows = append(rows, canonRow{bytes.Clone(key), bytes.Clone(image)})
		return nil
	})
	if err != nil {
		t.Fatalf("%s: CanonicalRows(%s): %v", e.name, table, err)
	}
	sort.Slice(rows, func(i, j int) bool { return bytes.Compare(rows[i].key, rows[j].key) < 0 })
	return rows
}

// schema covers every kind: the integer types, numeric (unconstrained,
// so its display scale differs per value, and numeric(10,2)), floats
// with -0, text with multibyte characters, char(n)'s padding, bool,
// bytea, date, timestamp, timestamptz, uuid, json, NULLs and a
// composite primary key whose columns are not in declared order; and a
// numeric primary key whose values differ only in scale from the rows'.
var schema = []string{
	`CREATE TABLE kinds (a int4 NOT NULL, b text NOT NULL, s int2, big int8, n numeric, m numeric(10,2),
		f float8, r float4, ok bool, raw bytea, d date, ts timestamp, tz timestamptz, u uuid,
		c char(4), v varchar(10), j json, PRIMARY KEY (b, a))`,
	`CREATE TABLE nums (k numeric PRIMARY KEY, x int8)`,
}

var rows = []string{
	`INSERT INTO kinds VALUES (1, 'ä€😀', -32768, 9223372036854775807, 1.50, 1.5, '-0', 0.1, true,
		'\xdeadbeef00ff', '2024-02-29', '2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.5+02',
		'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'ab', 'Grüße', '{"b": 1, "a": [2.50]}')`,
	`INSERT INTO kinds VALUES (2, 'ä€😀', 32767, -9223372036854775808, -0.0012, -1.10, 1e300, -2.5, false,
		'\x', '0001-01-01', '9999-12-31 23:59:59.999999', '1970-01-01 00:00:00+00',
		'00000000-0000-0000-0000-000000000000', 'abcd', '', '[]')`,
	`INSERT INTO kinds (a, b) VALUES (3, 'a'), (1, 'b'), (4, '')`,
	`INSERT INTO kinds (a, b, n, f) VALUES (5, 'x', 100000000000000000000.000, 5e-324)`,
	`INSERT INTO nums VALUES (1.50, 1), (-0.001, 2), (0.00, 3), (12345678901234567890.1234567890, 4)`,
}

var changes = []string{
	`UPDATE kinds SET n = n * 10, m = m + 0.5, f = -f, d = d + 1, ts = '2025-01-01 00:00:00.000001' WHERE a = 1`,
	`UPDATE kinds SET b = 'z' WHERE a = 3`,
	`DELETE FROM kinds WHERE a = 4`,
	`DELETE FROM nums WHERE k = 1.5000`,
	`INSERT INTO nums VALUES (2.5, 5)`,
}

// The same statements give every row the same key and image, and every
// table the same statetree root, on SQLite (postgres dialect) and on
// PostgreSQL; after further UPDATEs and DELETEs too. The images decode,
// and spot checks tie them to values written by hand, so the agreement
// is not that of two empty or equally wrong readers.
func TestCanonicalRowsAgreeAcrossEngines(t *testing.T) {
	engines := openEngines(t)
	for _, e := range engines {
		runBlock(t, e, 1, schema...)
		runBlock(t, e, 2, rows...)
	}
	compareEngines(t, engines, map[string]int{"kinds": 6, "nums": 4})
	checkSpots(t, engines[0])
	for _, e := range engines {
		runBlock(t, e, 3, changes...)
	}
	compareEngines(t, engines, map[string]int{"kinds": 5, "nums": 4})
}

// compareEngines compares every table's rows and root across engines;
// want is each table's number of rows.
func compareEngines(t *testing.T, engines []engine, want map[string]int) {
	t.Helper()
	for table, n := range want {
		ref := rowsOf(t, engines[0], table)
		if len(ref) != n {
			t.Errorf("%s: %s has %d canonical rows, want %d", engines[0].name, table, len(ref), n)
		}
		for _, r := range ref {
			if _, _, err := rowcanon.DecodeRow(r.image); err != nil {
				t.Errorf("%s: %s: image %x does not decode: %v", engines[0].name, table, r.image, err)
			}
		}
		for _, e := range engines[1:] {
			diffRows(t, table, engines[0].name, e.name, ref, rowsOf(t, e, table))
		}
		compareRoots(t, engines, table)
	}
}

// compareRoots compares table's statetree root across engines.
func compareRoots(t *testing.T, engines []engine, table string) {
	t.Helper()
	var first [32]byte
	for i, e := range engines {
		root, err := backend.TableRoot(context.Background(), e.r, table)
		if err != nil {
			t.Fatalf("%s: TableRoot(%s): %v", e.name, table, err)
		}
		if i == 0 {
			first = root.Hash()
		} else if root.Hash() != first {
			t.Errorf("%s: root of %s %x, %s: %x", engines[0].name, table, first, e.name, root.Hash())
		}
	}
}

// diffRows reports every row whose key or image differs between two
// engines, decoded for reading.
func diffRows(t *testing.T, table, an, bn string, a, b []canonRow) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %s has %d rows, %s %d", table, an, len(a), bn, len(b))
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if !bytes.Equal(a[i].key, b[i].key) || !bytes.Equal(a[i].image, b[i].image) {
			t.Errorf("%s row %d differs:\n %-8s %s\n %-8s %s", table, i, an, describe(a[i]), bn, describe(b[i]))
		}
	}
}

// describe is a row's key and image as values.
func describe(r canonRow) string {
	key, err := rowcanon.DecodeKey(r.key)
	if err != nil {
		return hex.EncodeToString(r.key) + " (" + err.Error() + ")"
	}
	_, cols, err := rowcanon.DecodeRow(r.image)
	if err != nil {
		return hex.EncodeToString(r.image) + " (" + err.Error() + ")"
	}
	var b strings.Builder
	b.WriteString("key ")
	for _, v := range key {
		b.WriteString(v.String() + " ")
	}
	for _, c := range cols {
		b.WriteString("| " + c.Name + "=" + c.Value.String() + " ")
	}
	return b.String()
}

// checkSpots ties some of e's rows to values written by hand: numeric
// 1.50 is 1.5, float -0 keeps its sign in the image, the key's order is
// (b, a), NULLs are null, char(4) keeps its padding.
func checkSpots(t *testing.T, e engine) {
	t.Helper()
	text := func(s string) rowcanon.Value { v, _ := rowcanon.Text(s); return v }
	num := func(s string) rowcanon.Value { v, _ := rowcanon.Numeric(s); return v }
	key, err := rowcanon.EncodeKey([]rowcanon.Value{text("ä€😀"), rowcanon.Int(1)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]rowcanon.Value{}
	for _, r := range rowsOf(t, e, "kinds") {
		if bytes.Equal(r.key, key) {
			_, cols, _ := rowcanon.DecodeRow(r.image)
			for _, c := range cols {
				got[c.Name] = c.Value
			}
		}
	}
	want := map[string]string{"n": num("1.5").String(), "m": num("1.5").String(), "f": "-0", "c": text("ab  ").String(),
		"v": text("Grüße").String(), "ok": "true", "big": "9223372036854775807"}
	for name, w := range want {
		if v, ok := got[name]; !ok || v.String() != w {
			t.Errorf("%s: kinds (ä€😀, 1).%s = %v (present %v), want %s", e.name, name, v, ok, w)
		}
	}
}

// A table without a primary key and a column of a type without a
// canonical form (an array, jsonb) are refused on both engines, the error
// naming the table, or the column and its type.
func TestCanonicalRowsRefuse(t *testing.T) {
	engines := openEngines(t)
	for _, e := range engines {
		runBlock(t, e, 1, `CREATE TABLE nokey (a int4, b text)`, `CREATE TABLE arr (id int4 PRIMARY KEY, tags int4[])`,
			`CREATE TABLE doc (id int4 PRIMARY KEY, body jsonb)`)
		runBlock(t, e, 2, `INSERT INTO nokey VALUES (1, 'x')`)
		cases := []struct {
			table string
			is    error
			names []string
		}{
			{"nokey", backend.ErrNoPrimaryKey, []string{"nokey"}},
			{"arr", backend.ErrNoCanonicalForm, []string{"arr", "tags", "integer[]"}},
			{"doc", backend.ErrNoCanonicalForm, []string{"doc", "body", "jsonb"}},
		}
		for _, c := range cases {
			called := false
			err := e.r.CanonicalRows(context.Background(), c.table, func(_, _ []byte) error { called = true; return nil })
			if !errors.Is(err, c.is) || called {
				t.Errorf("%s: CanonicalRows(%s) = %v (fn called %v), want %v before any row", e.name, c.table, err, called, c.is)
				continue
			}
			for _, n := range c.names {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("%s: CanonicalRows(%s) = %q, does not name %q", e.name, c.table, err, n)
				}
			}
		}
	}
}
