package mysql_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/rowcanon"
)

// byKeySchema: an integer key, a composite key of a CHAR (padded), a
// binary and a DATETIME column, a text key under a case-insensitive PAD
// SPACE collation, a key of a BIGINT UNSIGNED (numeric), a DECIMAL and a
// DATE, a FLOAT key (its float32 widened) and a table without a key.
var byKeySchema = [][]string{
	{`CREATE TABLE k1 (id INT PRIMARY KEY, v VARCHAR(10))`},
	{`CREATE TABLE k2 (c CHAR(3) NOT NULL, b VARBINARY(4) NOT NULL, at DATETIME(6) NOT NULL, x INT, PRIMARY KEY (c, b, at))`},
	{`CREATE TABLE k3 (k VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY, v INT)`},
	{`CREATE TABLE k4 (u BIGINT UNSIGNED NOT NULL, k DECIMAL(30,10) NOT NULL, d DATE NOT NULL, ts TIMESTAMP(3) NULL, PRIMARY KEY (u, k, d))`},
	{`CREATE TABLE k5 (f FLOAT PRIMARY KEY, v INT)`},
	{`CREATE TABLE nokey (a INT, b TEXT)`},
}

var byKeyRows = [][]string{{
	`INSERT INTO k1 VALUES (-2147483648, 'min'), (0, NULL), (7, 'seven '), (2147483647, 'max')`,
	`INSERT INTO k2 VALUES ('a', X'', '2024-01-01 00:00:00', 1), ('a', X'00', '2024-01-01 00:00:00.000001', 2),
		('a b', X'ff', '1999-12-31 23:59:59.5', 3), ('ä', X'0000', '2024-01-01 00:00:00', NULL)`,
	`INSERT INTO k3 VALUES ('a', 1), ('B ', 2), ('ö', 3), ('x  y', 4)`,
	`INSERT INTO k4 VALUES (18446744073709551615, 12345678901234567890.0123456789, '2024-02-29', '2024-02-29 12:34:56.5'),
		(0, -0.0000000001, '1000-01-01', NULL), (1, 0, '9999-12-31', '1970-01-01 00:00:01')`,
	`INSERT INTO k5 VALUES (0.1, 1), (-1.5, 2), (3.4028234e38, 3)`,
	`INSERT INTO nokey VALUES (1, 'x')`,
}}

// byKeyBackend is a backend holding byKeySchema and byKeyRows at height 2.
func byKeyBackend(t *testing.T) *mysql.Backend {
	t.Helper()
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	t.Cleanup(func() { b.Close() })
	allSucceed(t, runBlock(t, b, 1, byKeySchema))
	allSucceed(t, runBlock(t, b, 2, byKeyRows))
	return b
}

// byKey calls CanonicalRowsByKey, failing the test on an error, and checks
// the height.
func byKey(t *testing.T, b *mysql.Backend, table string, keys [][]byte) [][]byte {
	t.Helper()
	images, height, err := b.CanonicalRowsByKey(ctx(t), table, keys)
	if err != nil {
		t.Fatalf("CanonicalRowsByKey(%s): %v", table, err)
	}
	if height != 2 {
		t.Errorf("CanonicalRowsByKey(%s): height %d, want the committed 2", table, height)
	}
	if len(images) != len(keys) {
		t.Fatalf("CanonicalRowsByKey(%s): %d images for %d keys", table, len(images), len(keys))
	}
	return images
}

// keyOf encodes a key, failing the test if it does not encode.
func keyOf(t *testing.T, vals ...rowcanon.Value) []byte {
	t.Helper()
	k, err := rowcanon.EncodeKey(vals)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func textOf(t *testing.T, s string) rowcanon.Value {
	t.Helper()
	v, err := rowcanon.Text(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every row of tables keyed by every kind a MySQL key column has reads by
// its key as the image CanonicalRows gives it, the batch in the order of
// the keys asked (reversed, each key twice, absent keys between), with
// the committed height.
func TestCanonicalRowsByKeyEqualsCanonicalRows(t *testing.T) {
	b := byKeyBackend(t)
	absent := map[string][]byte{
		"k1": keyOf(t, rowcanon.Int(1)),
		"k2": keyOf(t, textOf(t, "zz "), rowcanon.Bytes(nil), mustTimestamp(t, 0)),
		"k3": keyOf(t, textOf(t, "zz")),
		"k4": keyOf(t, mustNumeric(t, "2"), mustNumeric(t, "0"), mustDate(t, 0)),
		"k5": keyOf(t, rowcanon.Float(0.1)), // the double 0.1, not the float32 stored
	}
	for _, table := range []string{"k1", "k2", "k3", "k4", "k5"} {
		rows := canonRowsOf(t, b, table)
		if len(rows) < 3 {
			t.Fatalf("%s: %d rows", table, len(rows))
		}
		var keys, want [][]byte
		for i := len(rows) - 1; i >= 0; i-- {
			keys = append(keys, rows[i].key, absent[table], rows[i].key)
			want = append(want, rows[i].image, nil, rows[i].image)
		}
		got := byKey(t, b, table, keys)
		for i := range keys {
			if !bytes.Equal(got[i], want[i]) || (got[i] == nil) != (want[i] == nil) {
				t.Errorf("%s: key %x: image %x, want %x", table, keys[i], got[i], want[i])
			}
		}
		if len(got) > 2 && len(got[0]) > 0 && &got[0][0] == &got[2][0] {
			t.Errorf("%s: a duplicate key shares its image's bytes", table)
		}
	}
}

// A key equal to a row's key under the column's collation only (case,
// trailing spaces, an unpadded CHAR) is not that row's: its image is nil.
func TestCanonicalRowsByKeyTellsCollationEqualKeysApart(t *testing.T) {
	b := byKeyBackend(t)
	at := mustTimestamp(t, 1704067200_000000) // 2024-01-01 00:00:00
	cases := map[string][][]byte{
		"k3": {keyOf(t, textOf(t, "A")), keyOf(t, textOf(t, "a ")), keyOf(t, textOf(t, "B")),
			keyOf(t, textOf(t, "b ")), keyOf(t, textOf(t, "Ö")), keyOf(t, textOf(t, "X  Y"))},
		"k2": {keyOf(t, textOf(t, "a"), rowcanon.Bytes(nil), at), keyOf(t, textOf(t, "A  "), rowcanon.Bytes(nil), at),
			keyOf(t, textOf(t, "a   "), rowcanon.Bytes(nil), at), keyOf(t, textOf(t, "ä  "), rowcanon.Bytes([]byte{0}), at)},
	}
	for table, keys := range cases {
		for i, img := range byKey(t, b, table, keys) {
			if img != nil {
				t.Errorf("%s: key %x (collation-equal to a row's) = %v, want nil", table, keys[i], valuesOf(t, img))
			}
		}
	}
	// The rows they are equal to are there.
	found := byKey(t, b, "k3", [][]byte{keyOf(t, textOf(t, "a")), keyOf(t, textOf(t, "B ")), keyOf(t, textOf(t, "x  y"))})
	found = append(found, byKey(t, b, "k2", [][]byte{keyOf(t, textOf(t, "a  "), rowcanon.Bytes(nil), at)})...)
	for i, img := range found {
		if img == nil {
			t.Errorf("row %d not found by its own key", i)
		}
	}
}

// Refused: a key that does not fit the table's primary key (wrong kind,
// wrong arity, not a key at all) with ErrKeyMismatch naming it in hex,
// more than MaxCanonicalKeys keys, and a table without a primary key.
func TestCanonicalRowsByKeyRefuses(t *testing.T) {
	b := byKeyBackend(t)
	good := keyOf(t, rowcanon.Int(7))
	bad := map[string][]byte{
		"text for int":      keyOf(t, textOf(t, "7")),
		"numeric for int":   keyOf(t, mustNumeric(t, "7")),
		"two values":        keyOf(t, rowcanon.Int(7), rowcanon.Int(1)),
		"not a key":         {0xff, 0x00},
		"empty":             {},
		"trailing bytes":    append(append([]byte{}, good...), 0),
		"int for text (k3)": keyOf(t, rowcanon.Int(1)),
	}
	for name, key := range bad {
		table, before := "k1", good
		if strings.HasSuffix(name, "(k3)") {
			table, before = "k3", keyOf(t, textOf(t, "a"))
		}
		_, _, err := b.CanonicalRowsByKey(ctx(t), table, [][]byte{before, key})
		if !errors.Is(err, backend.ErrKeyMismatch) || !strings.Contains(err.Error(), fmt.Sprintf("%x", key)) {
			t.Errorf("%s: key %x: err %v, want ErrKeyMismatch naming the key", name, key, err)
		}
	}
	k2 := keyOf(t, textOf(t, "a  "), rowcanon.Bytes(nil), rowcanon.Int(1))
	if _, _, err := b.CanonicalRowsByKey(ctx(t), "k2", [][]byte{k2}); !errors.Is(err, backend.ErrKeyMismatch) {
		t.Errorf("k2: an int for a DATETIME: err %v, want ErrKeyMismatch", err)
	}
	many := make([][]byte, backend.MaxCanonicalKeys+1)
	for i := range many {
		many[i] = good
	}
	if _, _, err := b.CanonicalRowsByKey(ctx(t), "k1", many); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%d keys: err %v, want a refusal", len(many), err)
	}
	if imgs := byKey(t, b, "k1", many[:backend.MaxCanonicalKeys]); imgs[len(imgs)-1] == nil {
		t.Errorf("%d keys: the last is nil", backend.MaxCanonicalKeys)
	}
	if _, _, err := b.CanonicalRowsByKey(ctx(t), "nokey", [][]byte{good}); !errors.Is(err, backend.ErrNoPrimaryKey) {
		t.Errorf("nokey: err %v, want ErrNoPrimaryKey", err)
	}
}

func mustNumeric(t *testing.T, s string) rowcanon.Value {
	t.Helper()
	v, err := rowcanon.Numeric(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustDate(t *testing.T, days int64) rowcanon.Value {
	t.Helper()
	v, err := rowcanon.Date(days)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustTimestamp(t *testing.T, us int64) rowcanon.Value {
	t.Helper()
	v, err := rowcanon.Timestamp(us)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Keys no column can hold (a numeric wider than any DECIMAL, a NaN, an
// infinity, a timestamp of year 1, a long text) are absent, not errors,
// and hostile bytes are refused without a panic.
func TestCanonicalRowsByKeyHostileKeys(t *testing.T) {
	b := byKeyBackend(t)
	wide := mustNumeric(t, "1"+strings.Repeat("0", 1000))
	cases := map[string][]byte{
		"k4": keyOf(t, wide, mustNumeric(t, "0"), mustDate(t, 0)),
		"k5": keyOf(t, rowcanon.Float(math.NaN())),
		"k1": keyOf(t, rowcanon.Int(math.MinInt64)),
		"k3": keyOf(t, textOf(t, strings.Repeat("a", 100_000))),
		"k2": keyOf(t, textOf(t, "a  "), rowcanon.Bytes(nil), mustTimestamp(t, rowcanon.MinTimestamp)),
	}
	for table, key := range cases {
		if img := byKey(t, b, table, [][]byte{key, key})[0]; img != nil {
			t.Errorf("%s: key %.40x… = %v, want nil", table, key, valuesOf(t, img))
		}
	}
	inf := keyOf(t, rowcanon.Float(math.Inf(-1)))
	if img := byKey(t, b, "k5", [][]byte{inf}); img[0] != nil {
		t.Errorf("k5: -Infinity = %v, want nil", valuesOf(t, img[0]))
	}
	for i := 0; i < 256; i++ {
		key := append(keyOf(t, rowcanon.Int(7))[:3], byte(i), byte(255-i))
		if _, _, err := b.CanonicalRowsByKey(ctx(t), "k1", [][]byte{key}); !errors.Is(err, backend.ErrKeyMismatch) {
			t.Errorf("k1: truncated key %x: err %v, want ErrKeyMismatch", key, err)
		}
	}
}
