package mysql_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck"
)

// canonPGSchema: a table of every type pgdialect supports, keyed by an
// int4, and tables whose keys hold every type a key can (split: InnoDB
// keys at most 3072 bytes, and a key holds no column of unbounded
// length: no text or bytea, varchar(n) up to 768 characters). Each statement is a block of its
// own, as MariaDB's DDL requires.
var canonPGSchema = []string{
	`CREATE TABLE ty (id int4 PRIMARY KEY, i2 int2, i8 int8, n numeric(12,3), f float8, t text,
		v varchar(10), b bool, by bytea, d date, ts timestamp, tz timestamptz)`,
	`CREATE TABLE kt (k varchar(100) NOT NULL, b bool NOT NULL, tz timestamptz NOT NULL, v varchar(5), x int8,
		PRIMARY KEY (k, b, tz))`,
	`CREATE TABLE kb (n numeric(10,2) NOT NULL, d date NOT NULL, ts timestamp NOT NULL,
		i2 int2 NOT NULL, i4 int4, PRIMARY KEY (n, d, ts, i2))`,
	`CREATE TABLE kx (k varchar(768) PRIMARY KEY, n int4)`,
}

// canonPGInserts fill the tables with NULLs and edge values: the
// extremes of the integers, negative and trailing-zero numerics, floats
// beyond float4 and negative, empty text, trailing spaces, quotes and a
// backslash, unicode beyond the BMP, bytea with zero bytes (and empty),
// dates around 1970 and at pgdialect's bounds, timestamps with
// microseconds before and after 1970, timestamptz with offsets.
var canonPGInserts = []pgStep{
	{sql: `INSERT INTO ty VALUES (1, -32768, -9223372036854775807, -123456789.120, -1.5, '', '', true, $1,
		'1969-12-31', '1969-12-31 23:59:59.999999', '2024-03-04 05:06:07.654321+05:30')`, args: []any{[]byte{0, 0, 1, 0}}},
	{sql: `INSERT INTO ty VALUES (2, 32767, 9223372036854775807, 1.500, '1e300'::float8, 'trailing  ', 'x ', false, $1,
		'1970-01-01', '2024-03-04 05:06:07.123456', '1999-12-31 23:59:59-08')`, args: []any{[]byte{}}},
	{sql: `INSERT INTO ty (id) VALUES (3)`},
	{sql: `INSERT INTO ty VALUES (-2147483648, 0, 0, 0.000, 0.1, 'héllo ✓ 𝄞 it''s a\b', 'ünï ', true, $1,
		'1000-01-01', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999999+00')`, args: []any{[]byte{0xff, 0}}},
	{sql: `INSERT INTO ty (id, n, f, t) VALUES (2147483647, -0.001, '2.2250738585072014e-308'::float8, 'tab	nl
x')`},
	{sql: `INSERT INTO kt VALUES ('', false, '2024-01-01 00:00:00+00', NULL, 1), ('', true, '2024-01-01 00:00:00+00', '', -1),
		('a ', true, '1999-12-31 16:00:00.000001-08', 'z', NULL), ('ä𝄞', false, '1970-01-01 00:00:00+00', NULL, 0)`},
	{sql: `INSERT INTO kb VALUES (-1.50, '1969-12-31', '1969-12-31 23:59:59.5', -32768, NULL),
		(0, '2000-02-29', '2000-02-29 12:00:00.000001', 0, 7), (99999999.99, '9999-12-31', '2024-03-04 05:06:07', 32767, -7)`},
	{sql: `INSERT INTO kx VALUES ('', 1), ('a ', 2), ('a', 3), ('A', 4), ('ä𝄞 ', NULL)`},
}

// canonPGChanges update and delete, keys included (a bool key flips), in
// a later block.
var canonPGChanges = []pgStep{
	{sql: `UPDATE ty SET b = NOT b, n = n * 2, t = t || ' ' WHERE id <= 2`},
	{sql: `UPDATE ty SET tz = '2024-03-04 05:06:07.000001+01', d = '2024-02-29' WHERE id = 3`},
	{sql: `DELETE FROM ty WHERE id = 2147483647`},
	{sql: `UPDATE kt SET b = NOT b, x = 5 WHERE k = 'a '`},
	{sql: `DELETE FROM kt WHERE k = '' AND b`},
	{sql: `UPDATE kb SET n = n + 1, i4 = 1 WHERE i2 = 0`},
	{sql: `DELETE FROM kb WHERE i2 = 32767`},
	{sql: `UPDATE kx SET k = k || 'z', n = -n WHERE k = 'a '`},
	{sql: `DELETE FROM kx WHERE k = 'A'`},
	{sql: `INSERT INTO kb VALUES (1.10, '2024-01-01', '2024-01-01 00:00:00', 1, 1)`},
}

// A table created by PostgreSQL's DDL yields byte-identical canonical
// rows on PostgreSQL and on MariaDB opened WithPostgresDialect: the
// tables, every table's keys and images after each block, the rows by
// key (a missing key too), and, inside the blocks before their commit,
// the block's tables, rows and delta.
func TestCanonicalRowsPostgresDialectMatchesPostgres(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pg, my := openPGPair(t, c)
	height := int64(0)
	for _, ddl := range canonPGSchema {
		height++
		for _, b := range []backend.Backend{pg, my} {
			runCanonPGBlock(t, c, b, height, []pgStep{{sql: ddl}})
		}
	}
	for _, steps := range [][]pgStep{canonPGInserts, canonPGChanges} {
		height++
		want := runCanonPGBlock(t, c, pg, height, steps)
		got := runCanonPGBlock(t, c, my, height, steps)
		compareBlockCanon(t, want, got)
		compareCommittedCanon(t, pg, my)
	}
}

// blockCanon is what a block's canonical reads gave before its commit.
type blockCanon struct {
	tables []string
	rows   map[string][]canonRow
	delta  backend.CanonicalDelta
}

// runCanonPGBlock runs steps as one block on b (each statement must
// succeed), reads the block's canonical tables, rows and delta, and
// commits it at height.
func runCanonPGBlock(t *testing.T, c context.Context, b backend.Backend, height int64, steps []pgStep) blockCanon {
	t.Helper()
	blk, err := b.Begin(c)
	if err != nil {
		t.Fatalf("%s: Begin: %v", b.Dialect(), err)
	}
	for i, s := range steps {
		if err := blk.Savepoint(c, sqlcheck.Env{Tx: i, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}); err != nil {
			t.Fatalf("%s: Savepoint: %v", b.Dialect(), err)
		}
		if _, err := blk.Exec(c, s.sql, s.args); err != nil {
			t.Fatalf("%s: %s: %v", b.Dialect(), s.sql, err)
		}
		if _, err := blk.ChangeDigest(c); err != nil {
			t.Fatalf("%s: ChangeDigest: %v", b.Dialect(), err)
		}
		if err := blk.Release(c); err != nil {
			t.Fatalf("%s: Release: %v", b.Dialect(), err)
		}
	}
	cb, ok := blk.(backend.CanonicalBlock)
	if !ok {
		t.Fatalf("%s: the block (%T) is not a backend.CanonicalBlock", b.Dialect(), blk)
	}
	out := blockCanon{rows: map[string][]canonRow{}}
	if out.tables, err = cb.CanonicalTables(c); err != nil {
		t.Fatalf("%s: block CanonicalTables: %v", b.Dialect(), err)
	}
	for _, table := range out.tables {
		err := cb.CanonicalTableRows(c, table, func(key, image []byte) error {
			out.rows[table] = append(out.rows[table], canonRow{bytes.Clone(key), bytes.Clone(image)})
			return nil
		})
		if err != nil {
			t.Fatalf("%s: CanonicalTableRows(%s): %v", b.Dialect(), table, err)
		}
		sortCanonRows(out.rows[table])
	}
	if out.delta, err = cb.CanonicalDelta(c); err != nil {
		t.Fatalf("%s: CanonicalDelta: %v", b.Dialect(), err)
	}
	if err := blk.Commit(c, backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
		t.Fatalf("%s: Commit: %v", b.Dialect(), err)
	}
	return out
}

// sortCanonRows sorts rows by key.
func sortCanonRows(rows []canonRow) {
	sort.Slice(rows, func(i, j int) bool { return bytes.Compare(rows[i].key, rows[j].key) < 0 })
}

// compareBlockCanon checks MariaDB's block reads against PostgreSQL's.
func compareBlockCanon(t *testing.T, want, got blockCanon) {
	t.Helper()
	if !slices.Equal(want.tables, got.tables) {
		t.Fatalf("block CanonicalTables: %q on MariaDB, %q on PostgreSQL", got.tables, want.tables)
	}
	for _, table := range want.tables {
		compareCanonRows(t, "block CanonicalTableRows("+table+")", want.rows[table], got.rows[table])
	}
	if want.delta.SchemaChanged || got.delta.SchemaChanged {
		t.Fatalf("CanonicalDelta after DML: SchemaChanged %v on MariaDB, %v on PostgreSQL", got.delta.SchemaChanged, want.delta.SchemaChanged)
	}
	if len(want.delta.Tables) != len(got.delta.Tables) || len(want.delta.Tables) == 0 {
		t.Fatalf("CanonicalDelta: %d tables on MariaDB, %d on PostgreSQL (want some)", len(got.delta.Tables), len(want.delta.Tables))
	}
	for i, wt := range want.delta.Tables {
		gt := got.delta.Tables[i]
		if wt.Table != gt.Table || wt.Rescan || gt.Rescan || wt.Err != nil || gt.Err != nil {
			t.Fatalf("CanonicalDelta table %d: %q rescan %v err %v on MariaDB, %q rescan %v err %v on PostgreSQL",
				i, gt.Table, gt.Rescan, gt.Err, wt.Table, wt.Rescan, wt.Err)
		}
		if len(wt.Rows) != len(gt.Rows) || len(wt.Rows) == 0 {
			t.Fatalf("CanonicalDelta(%s): %d keys on MariaDB, %d on PostgreSQL", wt.Table, len(gt.Rows), len(wt.Rows))
		}
		for j, w := range wt.Rows {
			g := gt.Rows[j]
			if !bytes.Equal(w.Key, g.Key) || !bytes.Equal(w.Image, g.Image) {
				t.Errorf("CanonicalDelta(%s) row %d: key %x image %v on MariaDB,\nkey %x image %v on PostgreSQL",
					wt.Table, j, g.Key, imageShown(t, g.Image), w.Key, imageShown(t, w.Image))
			}
		}
	}
}

// canonPGBoth is what PostgreSQL and MariaDB both implement.
type canonPGBoth interface {
	backend.CanonicalReader
	backend.CanonicalKeyReader
}

// compareCommittedCanon checks MariaDB's committed canonical tables,
// rows and rows by key against PostgreSQL's.
func compareCommittedCanon(t *testing.T, pg, my canonPGBoth) {
	t.Helper()
	c := ctx(t)
	want, err := pg.CanonicalTables(c)
	if err != nil {
		t.Fatalf("postgres: CanonicalTables: %v", err)
	}
	got, err := my.CanonicalTables(c)
	if err != nil {
		t.Fatalf("mysql: CanonicalTables: %v", err)
	}
	if !slices.Equal(want, got) || len(want) != len(canonPGSchema) {
		t.Fatalf("CanonicalTables: %q on MariaDB, %q on PostgreSQL", got, want)
	}
	for _, table := range want {
		wantRows := canonRowsOf(t, pg, table)
		compareCanonRows(t, "CanonicalRows("+table+")", wantRows, canonRowsOf(t, my, table))
		keys := [][]byte{}
		for _, r := range wantRows {
			keys = append(keys, r.key)
		}
		if len(wantRows) > 0 { // a key no row holds: its first key with a byte more
			keys = append(keys, append(bytes.Clone(wantRows[0].key), 0))
		}
		compareByKey(t, pg, my, table, keys)
	}
}

// compareByKey checks CanonicalRowsByKey(table, keys) on both backends.
func compareByKey(t *testing.T, pg, my backend.CanonicalKeyReader, table string, keys [][]byte) {
	t.Helper()
	c := ctx(t)
	want, _, err := pg.CanonicalRowsByKey(c, table, keys)
	if err != nil && !errors.Is(err, backend.ErrKeyMismatch) {
		t.Fatalf("postgres: CanonicalRowsByKey(%s): %v", table, err)
	}
	if err != nil { // the extra byte made a key of another shape: ask without it
		keys = keys[:len(keys)-1]
		if want, _, err = pg.CanonicalRowsByKey(c, table, keys); err != nil {
			t.Fatalf("postgres: CanonicalRowsByKey(%s): %v", table, err)
		}
	}
	got, _, err := my.CanonicalRowsByKey(c, table, keys)
	if err != nil {
		t.Fatalf("mysql: CanonicalRowsByKey(%s): %v", table, err)
	}
	for i := range keys {
		if !bytes.Equal(want[i], got[i]) {
			t.Errorf("CanonicalRowsByKey(%s) key %x: %v on MariaDB, %v on PostgreSQL", table, keys[i], imageShown(t, got[i]), imageShown(t, want[i]))
		}
	}
}

// compareCanonRows checks rows (sorted by key) byte for byte.
func compareCanonRows(t *testing.T, what string, want, got []canonRow) {
	t.Helper()
	if len(want) == 0 || len(want) != len(got) {
		t.Fatalf("%s: %d rows on MariaDB, %d on PostgreSQL (want some)", what, len(got), len(want))
	}
	for i, w := range want {
		if !bytes.Equal(w.key, got[i].key) || !bytes.Equal(w.image, got[i].image) {
			t.Errorf("%s row %d: key %x %v on MariaDB,\nkey %x %v on PostgreSQL",
				what, i, got[i].key, imageShown(t, got[i].image), w.key, imageShown(t, w.image))
		}
	}
}

// imageShown decodes an image for an error message (nil: no row).
func imageShown(t *testing.T, image []byte) any {
	if image == nil {
		return "no row"
	}
	return valuesOf(t, image)
}

// On a MariaDB backend opened WithPostgresDialect, a column pgdialect did
// not create (a table made outside it: no pg: comment, or a pg: type
// stored in another MariaDB type) has no canonical form, and a bool
// column holding neither 0 nor 1 is a value without one.
func TestCanonicalRowsPostgresDialectRefusesForeignColumns(t *testing.T) {
	dsn := mysqltest.DSN(t)
	my := mustOpen(t, dsn, mysql.WithPostgresDialect())
	t.Cleanup(func() { my.Close() })
	raw := openRaw(t, dsn)
	for _, s := range []string{
		"CREATE TABLE bare (id INT PRIMARY KEY, flag TINYINT(1))",
		"CREATE TABLE moved (id INT PRIMARY KEY COMMENT 'pg:int4', flag INT COMMENT 'pg:bool')",
		"CREATE TABLE alien (id INT PRIMARY KEY COMMENT 'pg:int4', j LONGTEXT COMMENT 'pg:jsonb')",
		"CREATE TABLE twos (id INT PRIMARY KEY COMMENT 'pg:int4', flag BOOLEAN COMMENT 'pg:bool')",
		"INSERT INTO twos VALUES (1, 2)",
	} {
		if _, err := raw.ExecContext(ctx(t), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, table := range []string{"bare", "moved", "alien"} {
		err := my.CanonicalRows(ctx(t), table, func(key, image []byte) error { return nil })
		if !errors.Is(err, backend.ErrNoCanonicalForm) {
			t.Errorf("CanonicalRows(%s) = %v, want ErrNoCanonicalForm", table, err)
		}
	}
	err := my.CanonicalRows(ctx(t), "twos", func(key, image []byte) error { return nil })
	if !errors.Is(err, backend.ErrValueNotCanonical) {
		t.Errorf("CanonicalRows(twos) with a bool of 2 = %v, want ErrValueNotCanonical", err)
	}
}

// The same bool column read natively (no dialect) keeps today's mapping:
// TINYINT(1) is an int.
func TestCanonicalRowsNativeKeepsTinyintAsInt(t *testing.T) {
	dsn := mysqltest.DSN(t)
	my := mustOpen(t, dsn)
	t.Cleanup(func() { my.Close() })
	raw := openRaw(t, dsn)
	for _, s := range []string{
		"CREATE TABLE flags (id INT PRIMARY KEY COMMENT 'pg:int4', flag BOOLEAN COMMENT 'pg:bool')",
		"INSERT INTO flags VALUES (1, 1)",
	} {
		if _, err := raw.ExecContext(ctx(t), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	rows := canonRowsOf(t, my, "flags")
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	_, cols, err := rowcanon.DecodeRow(rows[0].image)
	if err != nil {
		t.Fatal(err)
	}
	if k := cols[1].Value.Kind(); k != rowcanon.KindInt {
		t.Errorf("native TINYINT(1) read as %s, want int", k)
	}
}
