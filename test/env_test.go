package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/txn"
)

// nodeEnvs gives each validator another time zone and locale.
var nodeEnvs = [][]string{
	{"TZ=America/New_York", "LANG=de_DE.UTF-8", "LC_ALL=de_DE.UTF-8"},
	{"TZ=Asia/Kolkata", "LANG=tr_TR.UTF-8", "LC_ALL=tr_TR.UTF-8"},
	{"TZ=Pacific/Chatham", "LANG=fr_FR.UTF-8", "LC_ALL=fr_FR.UTF-8"},
	{"TZ=UTC", "LANG=C", "LC_ALL=C"},
}

// clockStatements are testClockAndRandomAgree's CREATE, INSERT and UPDATE
// in each dialect. MySQL has no per-tx random numbers (the gate refuses
// RAND()): there the column r holds the block time in microseconds,
// unique per block.
var clockStatements = map[string][3]string{
	"sqlite": {"CREATE TABLE clock (id INTEGER PRIMARY KEY, ts TEXT, d TEXT, unix INTEGER, ct TEXT, r INTEGER)",
		"INSERT INTO clock (id, ts, d, unix, ct, r) VALUES (?1, datetime('now'), date('now'), unixepoch('now'), CURRENT_TIMESTAMP, random())",
		"UPDATE clock SET r = r + (random() % 1000) WHERE id <= 2"},
	"postgres": {"CREATE TABLE clock (id int PRIMARY KEY, ts timestamptz, d date, unix bigint, ct timestamp, r float8)",
		"INSERT INTO clock (id, ts, d, unix, ct, r) VALUES ($1, now(), current_date, floor(extract(epoch FROM current_timestamp))::bigint, localtimestamp, random())",
		"UPDATE clock SET d = current_date WHERE id <= 2"},
	"mysql": {"CREATE TABLE clock (id BIGINT PRIMARY KEY, ts DATETIME(6), d DATE, unix BIGINT, ct TIMESTAMP(6) NULL, r BIGINT)",
		"INSERT INTO clock (id, ts, d, unix, ct, r) VALUES (?, NOW(6), CURDATE(), UNIX_TIMESTAMP(), CURRENT_TIMESTAMP(6), CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED))",
		"UPDATE clock SET d = CURDATE() WHERE id <= 2"},
}

func TestClockAndRandomAgreeAcrossTimeZones(t *testing.T) {
	onBackends(t, nil, func(t *testing.T, backend string) {
		s := clockStatements[backend]
		testClockAndRandomAgree(t, backend, s[0], s[1], s[2])
	})
}

// testClockAndRandomAgree runs statements that read the clock and random
// numbers, which relchain rewrites to the block's consensus time and a
// generator seeded per tx, on four validators started with different time
// zones and locales. Every node must store the same values (the AppHash
// agrees), the time must be the block's, and the random numbers must
// differ between txs.
func testClockAndRandomAgree(t *testing.T, backend, create, insert, update string) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, nodeEnv: nodeEnvs})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt(create))
	heights := map[int]int64{}
	for id := 1; id <= 4; id++ {
		res := c.mustExec(ctx, id%validators, stmt(insert, txn.Int(int64(id))))
		heights[id] = res.Height
	}
	c.mustExec(ctx, 1, stmt(update))
	h, rows := c.consistentRead(ctx, "SELECT id, ts, d, unix, ct, r FROM clock ORDER BY id")
	c.requireSameRows(h, "clock", rows[0])
	seen := map[string]bool{}
	for _, r := range rows[0][0] {
		id := asInt(t, r[0])
		blk, err := c.client(0, nil).RPC().Block(ctx, ptr(heights[int(id)]))
		if err != nil {
			t.Fatalf("block %d: %v", heights[int(id)], err)
		}
		bt := blk.Block.Header.Time.UTC()
		ts, d, unix, ct := fmt.Sprint(r[1]), fmt.Sprint(r[2]), asInt(t, r[3]), fmt.Sprint(r[4])
		if want := bt.Format("2006-01-02 15:04:05"); !strings.HasPrefix(ts, want) {
			t.Errorf("row %d: now() stored %q, want the block's time %s", id, ts, want)
		}
		if want := bt.Format("2006-01-02"); !strings.HasPrefix(d, want) {
			t.Errorf("row %d: current date %q, want %s", id, d, want)
		}
		if unix != bt.Unix() {
			t.Errorf("row %d: unix time %d, want %d", id, unix, bt.Unix())
		}
		if want := bt.Format("2006-01-02 15:04:05"); !strings.HasPrefix(ct, want) {
			t.Errorf("row %d: CURRENT_TIMESTAMP/localtimestamp %q, want %s", id, ct, want)
		}
		rs := fmt.Sprint(r[5])
		if seen[rs] {
			t.Errorf("row %d: random() gave %s again: the generator is not seeded per tx", id, rs)
		}
		seen[rs] = true
	}
	t.Logf("height %d: %d rows identical on %d nodes in 4 time zones", h, len(rows[0][0]), validators)
}

func ptr[T any](v T) *T { return &v }
