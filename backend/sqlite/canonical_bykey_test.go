package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/rowcanon"
)

// byKeySchema has single and composite keys of several kinds, and a table
// without a primary key.
var byKeySchema = []string{
	`CREATE TABLE k1 (id int8 PRIMARY KEY, v text)`,
	`CREATE TABLE k2 (a text, b int4, n numeric, PRIMARY KEY (a, b))`,
	`CREATE TABLE k3 (u uuid, ts timestamp, ok bool, x float8, PRIMARY KEY (u, ts, ok))`,
	`CREATE TABLE k4 (n numeric PRIMARY KEY, d date)`,
	`CREATE TABLE k5 (ts timestamptz PRIMARY KEY, v varchar(20))`,
	`CREATE TABLE nopk (a int4, b text)`,
}

var byKeyTables = []string{"k1", "k2", "k3", "k4", "k5"}

// byKeyTexts are text key values: quotes, unicode, a trailing space.
var byKeyTexts = []string{"", "a", "it''s", `"q"`, "é", "☃ snow", "日本", "a ", "A", "\U0001F600"}

// byKeyInsert draws one insert of random rows.
func byKeyInsert(r *rand.Rand) string {
	i, j := r.IntN(40)-20, r.IntN(60)
	txt := byKeyTexts[r.IntN(len(byKeyTexts))]
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf(`INSERT INTO k1 VALUES (%d, '%s') ON CONFLICT DO NOTHING`, int64(i)<<(j%40), txt)
	case 1:
		return fmt.Sprintf(`INSERT INTO k2 VALUES ('%s', %d, %d.%02d) ON CONFLICT DO NOTHING`, txt, i, j, i*i%100)
	case 2:
		return fmt.Sprintf(`INSERT INTO k3 VALUES ('%08x-0000-4000-8000-%012d', '2024-02-29 12:%02d:%02d.%06d', %t, %d.5) ON CONFLICT DO NOTHING`,
			j*7919, i+20, j, i+20, j*12345, i%2 == 0, i)
	case 3:
		return fmt.Sprintf(`INSERT INTO k4 VALUES (%d.%d0, '%04d-03-%02d') ON CONFLICT DO NOTHING`, i, j, 1+j*100, j%28+1)
	}
	return fmt.Sprintf(`INSERT INTO k5 VALUES ('20%02d-01-01 00:00:%02d.%d+0%d', '%s') ON CONFLICT DO NOTHING`, j%100, j, i+20, j%10, txt)
}

// byKeyRow is a committed row as CanonicalRows gives it.
type byKeyRow struct{ key, image []byte }

// canonRowsOf reads table's rows with CanonicalRows, sorted by key.
func canonRowsOf(t *testing.T, b *sqlite.Backend, table string) []byKeyRow {
	t.Helper()
	var rows []byKeyRow
	err := b.CanonicalRows(context.Background(), table, func(key, image []byte) error {
		rows = append(rows, byKeyRow{bytes.Clone(key), bytes.Clone(image)})
		return nil
	})
	if err != nil {
		t.Fatalf("CanonicalRows(%s): %v", table, err)
	}
	slices.SortFunc(rows, func(a, b byKeyRow) int { return bytes.Compare(a.key, b.key) })
	return rows
}

// mustKey is rowcanon.EncodeKey of vals.
func mustKey(t *testing.T, vals ...rowcanon.Value) []byte {
	t.Helper()
	k, err := rowcanon.EncodeKey(vals)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// absentKeys are keys of each table's kinds no row holds (the generator
// never writes them).
func absentKeys(t *testing.T) map[string][][]byte {
	t.Helper()
	txt := func(s string) rowcanon.Value {
		v, err := rowcanon.Text(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	num := func(s string) rowcanon.Value {
		v, err := rowcanon.Numeric(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ts := func(us int64) rowcanon.Value {
		v, err := rowcanon.Timestamp(us)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return map[string][][]byte{
		"k1": {mustKey(t, rowcanon.Int(3)), mustKey(t, rowcanon.Int(-1<<63))},
		"k2": {mustKey(t, txt("absent"), rowcanon.Int(0)), mustKey(t, txt("a"), rowcanon.Int(1<<40))}, // beyond int4
		"k3": {mustKey(t, rowcanon.UUID([16]byte{1}), ts(0), rowcanon.Bool(true))},
		"k4": {mustKey(t, num("0.123456789")), mustKey(t, num("1e100"))},
		"k5": {mustKey(t, ts(rowcanon.MinTimestamp)), mustKey(t, ts(rowcanon.MaxTimestamp))},
	}
}

// byKeyBackend opens a backend of the postgres dialect holding byKeySchema
// and random rows, at height h.
func byKeyBackend(t *testing.T) (b *sqlite.Backend, h int64) {
	t.Helper()
	b = mustOpenPostgresDialect(t)
	for _, s := range byKeySchema {
		h++
		pgBlock(t, b, h, pgStmt{sql: s})
	}
	r := rand.New(rand.NewPCG(36, 2))
	for n := 0; n < 10; n++ {
		var stmts []pgStmt
		for s := 0; s < 40; s++ {
			stmts = append(stmts, pgStmt{sql: byKeyInsert(r)})
		}
		h++
		pgBlock(t, b, h, stmts...)
	}
	return b, h
}

// For every committed row, CanonicalRowsByKey gives CanonicalRows's image
// of it; absent keys give nil; images come in the order of the keys asked
// for, duplicates included; the height is the committed one.
func TestCanonicalRowsByKey(t *testing.T) {
	b, h := byKeyBackend(t)
	ctx := context.Background()
	absent := absentKeys(t)
	r := rand.New(rand.NewPCG(36, 3))
	for _, tbl := range byKeyTables {
		rows := canonRowsOf(t, b, tbl)
		if len(rows) < 20 {
			t.Fatalf("%s: only %d rows: the generator writes too little", tbl, len(rows))
		}
		want := map[string][]byte{}
		var keys [][]byte
		for _, row := range rows {
			want[string(row.key)] = row.image
			keys = append(keys, row.key, row.key[:len(row.key):len(row.key)])
		}
		for _, k := range absent[tbl] {
			if want[string(k)] != nil {
				t.Fatalf("%s: absent key %x is held", tbl, k)
			}
			keys = append(keys, k)
		}
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		images, got, err := b.CanonicalRowsByKey(ctx, tbl, keys)
		if err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		if got != h || len(images) != len(keys) {
			t.Fatalf("%s: height %d, %d images; want %d, %d", tbl, got, len(images), h, len(keys))
		}
		for i, k := range keys {
			if w := want[string(k)]; !bytes.Equal(images[i], w) || (w == nil) != (images[i] == nil) {
				t.Fatalf("%s: key %x: image %x, want %x", tbl, k, images[i], w)
			}
		}
	}
}

// The height and the images are those of the state committed last.
func TestCanonicalRowsByKeyHeight(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE t (id int4 PRIMARY KEY, v text)`})
	key := mustKey(t, rowcanon.Int(7))
	images, h, err := b.CanonicalRowsByKey(ctx, "t", [][]byte{key})
	if err != nil || h != 1 || len(images) != 1 || images[0] != nil {
		t.Fatalf("empty table: %x, %d, %v", images, h, err)
	}
	for n := int64(2); n <= 4; n++ {
		pgBlock(t, b, n, pgStmt{sql: fmt.Sprintf(`INSERT INTO t VALUES (7, 'v%d') ON CONFLICT (id) DO UPDATE SET v = excluded.v`, n)})
		images, h, err = b.CanonicalRowsByKey(ctx, "t", [][]byte{key})
		if err != nil {
			t.Fatal(err)
		}
		rows := canonRowsOf(t, b, "t")
		if h != n || len(rows) != 1 || !bytes.Equal(images[0], rows[0].image) {
			t.Fatalf("after block %d: height %d, image %x; rows %v", n, h, images[0], rows)
		}
	}
}

// Keys that do not fit the table's key are refused with ErrKeyMismatch
// naming the key in hex; so are more than MaxCanonicalKeys keys, a table
// without a primary key (ErrNoPrimaryKey) and the sqlite dialect.
func TestCanonicalRowsByKeyRefuses(t *testing.T) {
	b, _ := byKeyBackend(t)
	ctx := context.Background()
	txt, err := rowcanon.Text("1")
	if err != nil {
		t.Fatal(err)
	}
	good := mustKey(t, rowcanon.Int(1))
	mismatched := map[string][]byte{
		"text for int8":  mustKey(t, txt),
		"two values":     mustKey(t, rowcanon.Int(1), rowcanon.Int(2)),
		"float for int8": mustKey(t, rowcanon.Float(1)),
		"no end byte":    good[:len(good)-1],
		"trailing bytes": append(bytes.Clone(good), 0),
		"empty":          {},
		"nil":            nil,
		"garbage":        {0xff, 0xfe, 0x00},
		"huge":           bytes.Repeat([]byte{0x7f}, 1<<16),
	}
	for name, k := range mismatched {
		_, _, err := b.CanonicalRowsByKey(ctx, "k1", [][]byte{good, k})
		if !errors.Is(err, backend.ErrKeyMismatch) {
			t.Errorf("%s: %v, want ErrKeyMismatch", name, err)
			continue
		}
		if n := min(len(k), 64); !strings.Contains(err.Error(), fmt.Sprintf("key %x", k[:n])) {
			t.Errorf("%s: %v does not name the key", name, err)
		}
	}
	// a text key for the int4 column of a composite key
	_, _, err = b.CanonicalRowsByKey(ctx, "k2", [][]byte{mustKey(t, txt, txt)})
	if !errors.Is(err, backend.ErrKeyMismatch) || !strings.Contains(err.Error(), "column b") {
		t.Errorf("k2: %v, want ErrKeyMismatch naming column b", err)
	}
	many := make([][]byte, backend.MaxCanonicalKeys+1)
	for i := range many {
		many[i] = good
	}
	if images, _, err := b.CanonicalRowsByKey(ctx, "k1", many); err == nil || images != nil {
		t.Errorf("%d keys: %d images, %v; want refused", len(many), len(images), err)
	}
	if _, _, err := b.CanonicalRowsByKey(ctx, "k1", many[:backend.MaxCanonicalKeys]); err != nil {
		t.Errorf("%d keys: %v", backend.MaxCanonicalKeys, err)
	}
	if _, _, err := b.CanonicalRowsByKey(ctx, "nopk", [][]byte{good}); !errors.Is(err, backend.ErrNoPrimaryKey) {
		t.Errorf("nopk: %v, want ErrNoPrimaryKey", err)
	}
	if _, _, err := b.CanonicalRowsByKey(ctx, "nosuch", [][]byte{good}); err == nil {
		t.Errorf("nosuch: no error")
	}
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if _, _, err := lite.CanonicalRowsByKey(ctx, "t", [][]byte{good}); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("sqlite dialect: %v, want errors.ErrUnsupported", err)
	}
}

// Read while blocks commit, the height and the image come from one
// snapshot: the row holds the height of the block that wrote it.
func TestCanonicalRowsByKeySnapshot(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE t (id int4 PRIMARY KEY, h int8)`})
	const blocks = 60
	done := make(chan struct{})
	go func() {
		defer close(done)
		for h := int64(2); h <= blocks; h++ {
			pgBlock(t, b, h, pgStmt{sql: fmt.Sprintf(`INSERT INTO t VALUES (1, %d) ON CONFLICT (id) DO UPDATE SET h = excluded.h`, h)})
		}
	}()
	defer func() { <-done }() // the writer ends before the backend closes
	key := mustKey(t, rowcanon.Int(1))
	reads, last := 0, int64(0)
	for running := true; running; reads++ {
		select {
		case <-done:
			running = false
		default:
		}
		images, h, err := b.CanonicalRowsByKey(ctx, "t", [][]byte{key})
		if err != nil {
			t.Fatal(err)
		}
		if h < last {
			t.Fatalf("height went back from %d to %d", last, h)
		}
		last = h
		if (h == 1) != (images[0] == nil) {
			t.Fatalf("height %d: image %x", h, images[0])
		}
		if h == 1 {
			continue
		}
		_, cols, err := rowcanon.DecodeRow(images[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(cols) != 2 || cols[0].Name != "h" || cols[0].Value != rowcanon.Int(h) { // columns sorted by name
			t.Fatalf("height %d: row %v", h, cols)
		}
	}
	if last != blocks {
		t.Fatalf("last height read %d, want %d (%d reads)", last, blocks, reads)
	}
}
