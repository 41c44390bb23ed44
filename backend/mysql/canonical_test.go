package mysql_test

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/rowcanon"
)

// canonRow is one row as CanonicalRows gave it.
type canonRow struct{ key, image []byte }

// canonRowsOf reads table's canonical rows, sorted by key.
func canonRowsOf(t *testing.T, r backend.CanonicalReader, table string) []canonRow {
	t.Helper()
	var rows []canonRow
	err := r.CanonicalRows(ctx(t), table, func(key, image []byte) error {
		rows = append(rows, canonRow{bytes.Clone(key), bytes.Clone(image)})
		return nil
	})
	if err != nil {
		t.Fatalf("CanonicalRows(%s): %v", table, err)
	}
	sort.Slice(rows, func(i, j int) bool { return bytes.Compare(rows[i].key, rows[j].key) < 0 })
	return rows
}

// valuesOf decodes an image into its columns' values for humans.
func valuesOf(t *testing.T, image []byte) map[string]string {
	t.Helper()
	_, cols, err := rowcanon.DecodeRow(image)
	if err != nil {
		t.Fatalf("image %x does not decode: %v", image, err)
	}
	got := map[string]string{}
	for _, c := range cols {
		got[c.Name] = c.Value.Kind().String() + " " + c.Value.String()
	}
	return got
}

var kindsTable = `CREATE TABLE kinds (a INT NOT NULL, b VARCHAR(20) NOT NULL, ti TINYINT, flag TINYINT(1), si SMALLINT,
	mi MEDIUMINT UNSIGNED, big BIGINT, ub BIGINT UNSIGNED, yr YEAR, n DECIMAL(30,4), f DOUBLE, r FLOAT,
	c CHAR(4), v VARCHAR(10), tx TEXT, lat VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_swedish_ci,
	raw VARBINARY(10), bin BINARY(3), bl BLOB, d DATE, dt DATETIME(6), ts TIMESTAMP(3) NULL, PRIMARY KEY (b, a))`

// Every MySQL type with a canonical form reads as the kind and value
// PostgreSQL's equivalent would: integers (TINYINT(1) and YEAR too) as
// int, BIGINT UNSIGNED and DECIMAL as numeric without their scale, FLOAT
// as its float32 widened, CHAR(n) padded to n characters, VARCHAR with
// its trailing spaces, latin1 text as UTF-8, BINARY(n) with its zero
// padding, DATETIME and TIMESTAMP as UTC microseconds, NULLs as null; the
// key is the primary key's columns in key order (b, a).
func TestCanonicalRowsMapsMySQLTypes(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	allSucceed(t, runBlock(t, b, 1, [][]string{{kindsTable}}))
	allSucceed(t, runBlock(t, b, 2, [][]string{{`INSERT INTO kinds VALUES (1, 'ä€😀', -128, 1, -32768, 16777215, 9223372036854775807,
		18446744073709551615, 2024, 1.5000, -0.5e0, 0.1, 'ab', 'v ', 'Grüße', 'café', X'DEADBEEF00FF', X'01', X'',
		'2024-02-29', '2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.5')`,
		`INSERT INTO kinds (a, b, n, f) VALUES (2, 'x', -0.0012, 1e300)`}}))
	rows := canonRowsOf(t, b, "kinds")
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	text := func(s string) rowcanon.Value { v, _ := rowcanon.Text(s); return v }
	key, _ := rowcanon.EncodeKey([]rowcanon.Value{text("ä€😀"), rowcanon.Int(1)})
	if !bytes.Equal(rows[1].key, key) {
		t.Errorf("key %x, want %x (b, a)", rows[1].key, key)
	}
	want := map[string]string{"a": "int 1", "b": `text "ä€😀"`, "ti": "int -128", "flag": "int 1",
		"si": "int -32768", "mi": "int 16777215", "big": "int 9223372036854775807",
		"ub": "numeric 18446744073709551615", "yr": "int 2024", "n": "numeric 1.5", "f": "float -0.5",
		"r": "float 0.10000000149011612", "c": `text "ab  "`, "v": `text "v "`, "tx": `text "Grüße"`,
		"lat": `text "café"`, "raw": `bytes \xdeadbeef00ff`, "bin": `bytes \x010000`, "bl": `bytes \x`,
		"d": "date 2024-02-29", "dt": "timestamp 2024-02-29 12:34:56.123456Z", "ts": "timestamp 2024-02-29 12:34:56.5Z"}
	sameValues(t, valuesOf(t, rows[1].image), want)
	want = map[string]string{"a": "int 2", "b": `text "x"`, "n": "numeric -0.0012", "f": "float 1e+300"}
	for _, c := range []string{"ti", "flag", "si", "mi", "big", "ub", "yr", "r", "c", "v", "tx", "lat", "raw", "bin", "bl", "d", "dt", "ts"} {
		want[c] = "null NULL"
	}
	sameValues(t, valuesOf(t, rows[0].image), want)
}

func sameValues(t *testing.T, got, want map[string]string) {
	t.Helper()
	for name, w := range want {
		if got[name] != w {
			t.Errorf("column %s = %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d columns, want %d: %v", len(got), len(want), got)
	}
}

// A table without a primary key and a column of a type without a
// canonical form (JSON, ENUM, SET, BIT, TIME, spatial) are refused before
// any row, naming the table, or the column and its type; a stored value
// outside rowcanon's domain (text holding U+0000) is refused wrapping
// backend.ErrValueNotCanonical and naming its column.
func TestCanonicalRowsRefuse(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	allSucceed(t, runBlock(t, b, 1, [][]string{{`CREATE TABLE nokey (a INT, b TEXT)`}, {`CREATE TABLE doc (id INT PRIMARY KEY, body JSON)`},
		{`CREATE TABLE e (id INT PRIMARY KEY, mood ENUM('a', 'b'))`}, {`CREATE TABLE s (id INT PRIMARY KEY, tags SET('a', 'b'))`},
		{`CREATE TABLE bits (id INT PRIMARY KEY, flags BIT(8))`}, {`CREATE TABLE tm (id INT PRIMARY KEY, at TIME)`},
		{`CREATE TABLE geo (id INT PRIMARY KEY, p POINT)`}, {`CREATE TABLE nul (id INT PRIMARY KEY, name VARCHAR(10))`}}))
	allSucceed(t, runBlock(t, b, 2, [][]string{{`INSERT INTO nokey VALUES (1, 'x')`, `INSERT INTO nul VALUES (1, 'ok'), (2, CONCAT('a', CHAR(0), 'b'))`}}))
	cases := []struct {
		table string
		is    error
		names []string
	}{
		{"nokey", backend.ErrNoPrimaryKey, []string{"nokey"}},
		{"doc", backend.ErrNoCanonicalForm, []string{"doc", "body", "json"}},
		{"e", backend.ErrNoCanonicalForm, []string{"mood", "enum('a','b')"}},
		{"s", backend.ErrNoCanonicalForm, []string{"tags", "set('a','b')"}},
		{"bits", backend.ErrNoCanonicalForm, []string{"flags", "bit(8)"}},
		{"tm", backend.ErrNoCanonicalForm, []string{"at", "time"}},
		{"geo", backend.ErrNoCanonicalForm, []string{"p", "point"}},
		{"nul", backend.ErrValueNotCanonical, []string{"nul", "name"}},
	}
	for _, c := range cases {
		called := 0
		err := b.CanonicalRows(ctx(t), c.table, func(_, _ []byte) error { called++; return nil })
		if !errors.Is(err, c.is) || !backend.NotCanonical(err) || (called > 0 && c.is != backend.ErrValueNotCanonical) {
			t.Errorf("CanonicalRows(%s) = %v (fn called %d times), want %v", c.table, err, called, c.is)
			continue
		}
		for _, n := range c.names {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("CanonicalRows(%s) = %q, does not name %q", c.table, err, n)
			}
		}
	}
	tables, err := b.CanonicalTables(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tables, " "); got != "bits doc e geo nokey nul s tm" {
		t.Errorf("CanonicalTables = %s", got)
	}
}
