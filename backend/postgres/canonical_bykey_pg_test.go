package postgres_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/rowcanon"
)

// byKeyTables are tables with single and composite keys of every kind a
// key can hold, rows with texts that need quoting in an array or a
// record, and a table without a primary key.
var byKeyTables = []string{
	`CREATE TABLE i8 (id int8 PRIMARY KEY, v text, n numeric)`,
	`CREATE TABLE i4 (id int4 PRIMARY KEY, v text)`,
	`CREATE TABLE "T x" ("k ""1""" text PRIMARY KEY, v int)`,
	`CREATE TABLE c1 (a numeric(6,2), b uuid, c timestamptz, v text, PRIMARY KEY (a, b, c))`,
	`CREATE TABLE c2 (d date, e bool, f bytea, g char(4), x float8, PRIMARY KEY (d, e, f, g))`,
	`CREATE TABLE c3 (a int2, b varchar(10), c timestamp, d float4, e float8, v int, PRIMARY KEY (e, d, c, b, a))`,
	`CREATE TABLE nopk (x int)`,
}

var byKeyRows = []string{
	`INSERT INTO i8 VALUES (-9223372036854775808, 'min', 1.5), (0, NULL, NULL), (42, 'a"b\c,d(e)', -0.001), (9223372036854775807, '', 1e100)`,
	`INSERT INTO i4 VALUES (-2147483648, 'min'), (7, 'seven'), (2147483647, 'max')`,
	`INSERT INTO "T x" VALUES ('', 0), ('a"b', 1), ('back\slash', 2), ('com,ma', 3), ('(paren)', 4), ('{brace}', 5), ('NULL', 6), (' sp ', 7), ('é''q', 8)`,
	`INSERT INTO c1 VALUES (1.5, '00000000-0000-0000-0000-000000000000', '2024-02-29 12:34:56.123456+00', 'x'),
		(-1234.56, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '0001-01-01 00:00:00+00', 'y'),
		(0, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1969-12-31 23:59:59.999999+00', NULL)`,
	`INSERT INTO c2 VALUES ('2024-01-01', true, '\x00ff', 'ab', 1.5), ('0001-01-01', false, '', '', -0.0),
		('9999-12-31', true, '\x5c22', 'a"\,', 'NaN'), ('1970-01-01', false, '\x28', '(x) ', 'Infinity')`,
	`INSERT INTO c3 VALUES (-32768, 'x,y', '2000-01-01 00:00:00', 0.1, 'NaN', 1),
		(32767, 'q"', '1999-12-31 23:59:59.5', '-Infinity', '-Infinity', 2),
		(1, '', '2000-01-01 00:00:00', 3.4e38, 1e-300, 3)`,
	`INSERT INTO nopk VALUES (1)`,
}

// canonImages is every row of table as CanonicalRows gives it, by key.
func canonImages(t *testing.T, b *postgres.Backend, table string) (keys [][]byte, images map[string][]byte) {
	t.Helper()
	images = map[string][]byte{}
	err := b.CanonicalRows(ctx(t), table, func(key, image []byte) error {
		keys = append(keys, bytes.Clone(key))
		images[string(key)] = bytes.Clone(image)
		return nil
	})
	if err != nil {
		t.Fatalf("CanonicalRows(%s): %v", table, err)
	}
	return keys, images
}

// byKey is CanonicalRowsByKey, which must succeed at height want.
func byKey(t *testing.T, b *postgres.Backend, table string, want int64, keys ...[]byte) [][]byte {
	t.Helper()
	images, h, err := b.CanonicalRowsByKey(ctx(t), table, keys)
	if err != nil {
		t.Fatalf("CanonicalRowsByKey(%s, %d keys): %v", table, len(keys), err)
	}
	if h != want || len(images) != len(keys) {
		t.Fatalf("CanonicalRowsByKey(%s, %d keys): %d images at height %d, want %d at %d", table, len(keys), len(images), h, len(keys), want)
	}
	return images
}

func key(t *testing.T, vals ...rowcanon.Value) []byte {
	t.Helper()
	k, err := rowcanon.EncodeKey(vals)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func must(t *testing.T) func(rowcanon.Value, error) rowcanon.Value {
	return func(v rowcanon.Value, err error) rowcanon.Value {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// Every row's key reads back the image CanonicalRows gives it, alone and
// in one batch of every key of its table; absent keys (char(4)'s text
// without its padding among them) are nil, in a batch mixing them with
// present and repeated keys, in the order given; the height is the
// committed one, and follows the next block.
func TestCanonicalRowsByKeyAreCanonicalRows(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, append(append([]string{}, byKeyTables...), byKeyRows...)...)
	absent := map[string][][]byte{
		"i8":  {key(t, rowcanon.Int(1)), key(t, rowcanon.Int(-1))},
		"i4":  {key(t, rowcanon.Int(8))},
		"T x": {key(t, must(t)(rowcanon.Text("A\"B"))), key(t, must(t)(rowcanon.Text("sp")))},
		"c1":  {key(t, must(t)(rowcanon.Numeric("1.5")), rowcanon.UUID([16]byte{}), must(t)(rowcanon.Timestamp(0)))},
		"c2": {key(t, must(t)(rowcanon.Date(19723)), rowcanon.Bool(true), rowcanon.Bytes([]byte{0, 0xff}), must(t)(rowcanon.Text("ab"))),
			key(t, must(t)(rowcanon.Date(19723)), rowcanon.Bool(true), rowcanon.Bytes([]byte{0, 0xff}), must(t)(rowcanon.Text("ab   ")))},
		"c3": {key(t, rowcanon.Float(1), rowcanon.Float(float64(float32(0.1))), must(t)(rowcanon.Timestamp(0)), must(t)(rowcanon.Text("")), rowcanon.Int(1))},
	}
	for _, table := range []string{"i8", "i4", "T x", "c1", "c2", "c3"} {
		keys, images := canonImages(t, b, table)
		if len(keys) < 3 {
			t.Fatalf("%s: %d rows read", table, len(keys))
		}
		for _, k := range keys {
			if got := byKey(t, b, table, 1, k); !bytes.Equal(got[0], images[string(k)]) {
				t.Fatalf("%s: key %x: image %q, CanonicalRows gives %q", table, k, got[0], images[string(k)])
			}
		}
		// Mixed: present keys in reverse, absent ones between them, the
		// first key again at the end.
		var mixed [][]byte
		for i := len(keys) - 1; i >= 0; i-- {
			mixed = append(mixed, keys[i])
			if i < len(absent[table]) {
				mixed = append(mixed, absent[table][i])
			}
		}
		mixed = append(mixed, keys[len(keys)-1])
		got := byKey(t, b, table, 1, mixed...)
		for i, k := range mixed {
			if want := images[string(k)]; !bytes.Equal(got[i], want) || (want == nil) != (got[i] == nil) {
				t.Fatalf("%s: batch key %d (%x): image %q, want %q", table, i, k, got[i], want)
			}
		}
		for _, k := range absent[table] {
			if got := byKey(t, b, table, 1, k); got[0] != nil {
				t.Fatalf("%s: absent key %x: image %q, want nil", table, k, got[0])
			}
		}
	}
	if got := byKey(t, b, "i8", 1); len(got) != 0 {
		t.Fatalf("no keys: %d images", len(got))
	}
	block(t, b, 2, `UPDATE i8 SET v = 'changed' WHERE id = 42`)
	keys, images := canonImages(t, b, "i8")
	k42 := key(t, rowcanon.Int(42))
	if got := byKey(t, b, "i8", 2, k42); !bytes.Equal(got[0], images[string(k42)]) || !bytes.Contains(got[0], []byte("changed")) {
		t.Fatalf("i8 at height 2: image %q, want %q", got[0], images[string(k42)])
	}
	if len(keys) != 4 {
		t.Fatalf("i8: %d rows", len(keys))
	}
}

// A key that does not fit the table's primary key (another kind, another
// arity, an integer out of the column's range, bytes that are no key) is
// ErrKeyMismatch naming the key in hex, whatever keys come with it; too
// many keys, a table without a primary key and one that does not exist
// are refused; random and truncated keys never panic.
func TestCanonicalRowsByKeyRefusals(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, append(append([]string{}, byKeyTables...), byKeyRows...)...)
	ok := key(t, rowcanon.Int(7))
	mismatched := map[string][]byte{
		"text for int4":        key(t, must(t)(rowcanon.Text("7"))),
		"numeric for int4":     key(t, must(t)(rowcanon.Numeric("7"))),
		"two values for one":   key(t, rowcanon.Int(7), rowcanon.Int(1)),
		"int4 out of range":    key(t, rowcanon.Int(1<<31)),
		"int4 under its range": key(t, rowcanon.Int(-1<<31-1)),
		"no key":               {0xff, 0x01},
		"empty":                {},
		"no end byte":          ok[:len(ok)-1],
	}
	for what, k := range mismatched {
		_, _, err := b.CanonicalRowsByKey(ctx(t), "i4", [][]byte{ok, k})
		if !errors.Is(err, backend.ErrKeyMismatch) || !strings.Contains(err.Error(), "key "+hex.EncodeToString(k)+":") {
			t.Fatalf("%s (%x): %v, want ErrKeyMismatch naming the key", what, k, err)
		}
	}
	c3 := [][]byte{
		key(t, rowcanon.Float(1e-300), rowcanon.Float(0.1), must(t)(rowcanon.Timestamp(0)), must(t)(rowcanon.Text("")), rowcanon.Int(1)),
		key(t, rowcanon.Float(1), must(t)(rowcanon.Numeric("1")), must(t)(rowcanon.Timestamp(0)), must(t)(rowcanon.Text("")), rowcanon.Int(1)),
		key(t, rowcanon.Float(1), rowcanon.Float(1), must(t)(rowcanon.Timestamp(0)), must(t)(rowcanon.Text("")), rowcanon.Int(1<<15)),
	}
	for i, k := range c3 {
		if _, _, err := b.CanonicalRowsByKey(ctx(t), "c3", [][]byte{k}); !errors.Is(err, backend.ErrKeyMismatch) {
			t.Fatalf("c3 key %d: %v, want ErrKeyMismatch (a float4 column cannot hold 0.1 as a float8, a numeric, 2^15 in int2)", i, err)
		}
	}
	many := make([][]byte, backend.MaxCanonicalKeys+1)
	for i := range many {
		many[i] = key(t, rowcanon.Int(int64(i)))
	}
	if _, _, err := b.CanonicalRowsByKey(ctx(t), "i8", many); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("%d keys: %v, want a refusal", len(many), err)
	}
	if got := byKey(t, b, "i8", 1, many[:backend.MaxCanonicalKeys]...); got[0] == nil || got[1] != nil || got[42] == nil {
		t.Fatalf("%d keys: images of 0, 1, 42: %q %q %q", backend.MaxCanonicalKeys, got[0], got[1], got[42])
	}
	if _, _, err := b.CanonicalRowsByKey(ctx(t), "nopk", [][]byte{ok}); !errors.Is(err, backend.ErrNoPrimaryKey) {
		t.Fatalf("nopk: %v, want ErrNoPrimaryKey", err)
	}
	if _, _, err := b.CanonicalRowsByKey(ctx(t), "nosuch", [][]byte{ok}); err == nil || backend.NotCanonical(err) || errors.Is(err, backend.ErrKeyMismatch) {
		t.Fatalf("nosuch: %v, want an error of its own", err)
	}
	r := rand.New(rand.NewPCG(36, 2))
	for i := 0; i < 300; i++ {
		k := make([]byte, r.IntN(40))
		for j := range k {
			k[j] = byte(r.IntN(256))
		}
		if _, _, err := b.CanonicalRowsByKey(ctx(t), "c1", [][]byte{k}); err != nil && !errors.Is(err, backend.ErrKeyMismatch) {
			t.Fatalf("random key %x: %v, want images or ErrKeyMismatch", k, err)
		}
	}
}

// BenchmarkCanonicalRowsByKey reads 1,000 keys (one in ten absent) of a
// table of 20,000 rows with a composite (bigint, text) key per call:
//
//	go test ./backend/postgres -run '^$' -bench BenchmarkCanonicalRowsByKey
func BenchmarkCanonicalRowsByKey(b *testing.B) {
	be := mustOpen(b, pgtest.DSN(b))
	defer be.Close()
	block(b, be, 1, `CREATE TABLE t (a bigint, b text, v text, n numeric, PRIMARY KEY (a, b))`,
		`INSERT INTO t SELECT i, 'k,' || i, 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv', i * 1.5 FROM generate_series(1, 20000) i`)
	keys := make([][]byte, 1000)
	for i := range keys {
		s, err := rowcanon.Text("k," + strconv.Itoa(i*22))
		if err != nil {
			b.Fatal(err)
		}
		keys[i], err = rowcanon.EncodeKey([]rowcanon.Value{rowcanon.Int(int64(i * 22)), s})
		if err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		images, _, err := be.CanonicalRowsByKey(b.Context(), "t", keys)
		if err != nil || images[1] == nil {
			b.Fatalf("%v, image of key 1: %q", err, images[1])
		}
	}
}
