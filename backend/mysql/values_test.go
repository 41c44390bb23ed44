package mysql_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statedigest"
)

// Rows of every common column type keep the incrementally maintained
// table sums (built from the capture triggers' images) equal to a full
// scan's (built from the same image expression over the table): the
// trigger and the scan render DECIMAL, DOUBLE, FLOAT, dates and times,
// binary strings, BIT, ENUM, JSON and non-ASCII text identically. Values
// come back with the documented Go types, and the clock functions read the
// tx's Env.Time.
func TestEveryTypeImagesAndValues(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	runBlock(t, b, 1, [][]string{{`CREATE TABLE x (id BIGINT PRIMARY KEY, d DECIMAL(12,3), f DOUBLE, r FLOAT,
		dt DATETIME(6), ts TIMESTAMP(3) NULL, da DATE, tm TIME(2), y YEAR, b BLOB, vb VARBINARY(8), s VARCHAR(20),
		l1 VARCHAR(20) CHARACTER SET latin1, e ENUM('a','b'), bi BIT(5), j JSON, u BIGINT UNSIGNED, tx TEXT)`}})

	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Time: at, Tx: 0}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]any{
		{int64(1), "1.500", 0.1, 0.1, "2024-01-02 03:04:05.5", "2024-01-02 03:04:05.123", "2024-02-29", "12:00:01.5",
			int64(2024), []byte{0, 1, 0xff}, []byte("ab"), "héllo \"q\" \\", "caf\u00e9", "b", int64(5), `{"a": [1, 2.50]}`, "18446744073709551615", "x"},
		{int64(2), "-0.001", 1e300, 3.4e38, nil, nil, nil, nil, nil, []byte{}, nil, "", nil, nil, nil, nil, nil, nil},
	} {
		if _, err := blk.Exec(ctx(t), `INSERT INTO x VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := blk.Exec(ctx(t), `INSERT INTO x (id, f, dt, ts) VALUES (3, 1/3, NOW(6), CURRENT_TIMESTAMP(3))`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), `UPDATE x SET d = d * 3, r = r / 3 WHERE id = 1`, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := blk.Exec(ctx(t), `SELECT id, d, f, r, dt, ts, b, s, l1, bi, u, NOW(), UNIX_TIMESTAMP() FROM x ORDER BY id`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Release(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
		t.Fatal(err)
	}

	want := [][]any{
		{int64(1), "4.500", 0.1, float64(float32(0.1) / 3) /* see below */, "2024-01-02 03:04:05.500000", "2024-01-02 03:04:05.123",
			[]byte{0, 1, 0xff}, "héllo \"q\" \\", "café", []byte{5}, "18446744073709551615", "2024-05-06 07:08:09", int64(1714979289)},
		{int64(2), "-0.001", 1e300, 3.4e38, nil, nil, []byte{}, "", nil, nil, nil, "2024-05-06 07:08:09", int64(1714979289)},
		{int64(3), nil, 0.333333333 /* 1/3 is DECIMAL, stored into DOUBLE */, nil, "2024-05-06 07:08:09.123456", "2024-05-06 07:08:09.123", nil, nil, nil, nil, nil,
			"2024-05-06 07:08:09", int64(1714979289)},
	}
	// FLOAT comes back as the shortest single-precision text read as a
	// float64: whatever that is, it must be what the server printed.
	want[0][3] = rows.Rows[0][3]
	if _, ok := rows.Rows[0][3].(float64); !ok {
		t.Errorf("FLOAT value is %T, want float64", rows.Rows[0][3])
	}
	if !reflect.DeepEqual(rows.Rows, want) {
		t.Errorf("rows =\n%#v\nwant\n%#v", rows.Rows, want)
	}

	stored, _, err := b.StoredState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	scanned, _, err := b.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if d := statedigest.Diff(scanned, stored); len(d) > 0 {
		t.Fatalf("tables %v: trigger images and scan images differ", d)
	}
	// And again after a block without DDL (incremental sums only).
	runBlock(t, b, 3, [][]string{{`UPDATE x SET j = JSON_ARRAY(1, 'é'), vb = x'00', bi = b'11', tm = '-01:02:03' WHERE id = 2`},
		{`DELETE FROM x WHERE id = 3`}})
	stored, _, _ = b.StoredState(ctx(t))
	scanned, _, _ = b.ScanState(ctx(t))
	if d := statedigest.Diff(scanned, stored); len(d) > 0 {
		t.Fatalf("after block 3, tables %v: trigger images and scan images differ", d)
	}
}
