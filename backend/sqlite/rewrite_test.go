package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// txRows runs stmts as one tx with env and returns the last one's rows.
func txRows(t *testing.T, blk backend.Block, env sqlcheck.Env, stmts ...string) [][]any {
	t.Helper()
	ctx := context.Background()
	if err := blk.Savepoint(ctx, env); err != nil {
		t.Fatal(err)
	}
	var rows *backend.Rows
	for _, s := range stmts {
		var err error
		if rows, err = blk.Exec(ctx, s, nil); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatal(err)
	}
	return rows.Rows
}

// The clock functions read the tx's env.Time, in statements, DEFAULTs,
// views and triggers, from literals and from bound parameters.
func TestClockIsTheTxEnv(t *testing.T) {
	ctx := context.Background()
	b, blk := mustBeginGateBlock(t)
	at := time.Date(2024, 2, 29, 23, 59, 58, 987654321, time.FixedZone("elsewhere", -7*3600)) // UTC 2024-03-01 06:59:58.987
	env := sqlcheck.NewEnv(at, []byte("h"), 0)
	got := txRows(t, blk, env, `SELECT CURRENT_TIMESTAMP, current_date, current_time, date(), time(), datetime(),
		datetime('now', 'subsec'), unixepoch(), unixepoch('subsec'), julianday(), strftime('%Y-%m-%d %H:%M:%f'),
		strftime('%s', 'now'), date('now', 'start of month', '-1 day'), timediff('now', '2024-03-01 00:00:00')`)
	want := []any{"2024-03-01 06:59:58", "2024-03-01", "06:59:58", "2024-03-01", "06:59:58", "2024-03-01 06:59:58",
		"2024-03-01 06:59:58.987", at.Unix(), float64(at.UnixMilli()) / 1000, float64(at.UnixMilli()+210866760000000) / 86400000,
		"2024-03-01 06:59:58.987", fmt.Sprint(at.Unix()), "2024-02-29", "+0000-00-00 06:59:58.987"}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("clock functions:\n got %#v\nwant %#v", got[0], want)
	}
	// Bound parameters that spell 'now' are the env's time too.
	if err := blk.Savepoint(ctx, env); err != nil {
		t.Fatal(err)
	}
	rows, err := blk.Exec(ctx, `SELECT datetime(?1), date(?2, ?3), strftime('%f', ?4)`, []any{"NOW", []byte("now"), "+1 day", "subsec"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{"2024-03-01 06:59:58", "2024-03-02", "58.987"}; !reflect.DeepEqual(rows.Rows[0], want) {
		t.Errorf("bound 'now': %#v, want %#v", rows.Rows[0], want)
	}
	_, err = blk.Exec(ctx, `SELECT datetime(?1, ?2)`, []any{"now", "localtime"})
	if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission || !strings.Contains(e.Message, "time zone") {
		t.Errorf("bound 'localtime': %v, want the gate's refusal", err)
	}
	if err := blk.RollbackTo(ctx); err != nil {
		t.Fatal(err)
	}
	// DEFAULTs, views and triggers run in the tx that uses them.
	txRows(t, blk, env,
		`CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TEXT DEFAULT CURRENT_TIMESTAMP, r INT DEFAULT (random()))`,
		`CREATE TABLE evlog (id INT, at TEXT)`,
		`CREATE TRIGGER ev_log AFTER INSERT ON ev BEGIN INSERT INTO evlog VALUES (NEW.id, datetime('now', 'subsec')); END`,
		`CREATE VIEW ev_now AS SELECT date() AS d`)
	later := sqlcheck.NewEnv(at.Add(36*time.Hour), []byte("h"), 1)
	got = txRows(t, blk, later, `INSERT INTO ev (id) VALUES (1)`, `SELECT ev.ts, evlog.at, (SELECT d FROM ev_now) FROM ev JOIN evlog USING (id)`)
	if want := []any{"2024-03-02 18:59:58", "2024-03-02 18:59:58.987", "2024-03-02"}; !reflect.DeepEqual(got[0], want) {
		t.Errorf("DEFAULT, trigger, view: %#v, want %#v", got[0], want)
	}
	// Statements before the first Savepoint of a block see the zero Env.
	if err := blk.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	blk, err = b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err = blk.Exec(ctx, `SELECT CURRENT_TIMESTAMP`, nil)
	if err != nil || rows.Rows[0][0] != "0001-01-01 00:00:00" {
		t.Errorf("before any Savepoint: %v, %v; want the zero Env's time", rows, err)
	}
}

// random() and randomblob() are a function of the tx's env only: two nodes
// agree, the generator restarts at each Savepoint, and another seed gives
// other values.
func TestRandomIsSeededPerTx(t *testing.T) {
	ctx := context.Background()
	const q = `SELECT random(), hex(randomblob(20)), abs(random()) % 100, (SELECT group_concat(random() ORDER BY id) FROM t)`
	run := func(envs ...sqlcheck.Env) [][]any {
		b := openGateDB(t)
		defer b.Close()
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer blk.Rollback(ctx)
		var out [][]any
		for _, env := range envs {
			out = append(out, txRows(t, blk, env, q)[0])
		}
		return out
	}
	a := run(envA, envB, envA)
	b := run(envA, envB, envA)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two nodes disagree:\n%v\n%v", a, b)
	}
	if !reflect.DeepEqual(a[0], a[2]) {
		t.Errorf("the same env twice in one block: %v, then %v (not re-seeded at Savepoint)", a[0], a[2])
	}
	if reflect.DeepEqual(a[0], a[1]) {
		t.Errorf("two envs give the same values %v", a[0])
	}
	if s := fmt.Sprint(a[0][3]); strings.Count(s, ",") != 1 || strings.Split(s, ",")[0] == strings.Split(s, ",")[1] {
		t.Errorf("random() per row: %s", s)
	}
}

// A client's query (abci_query) is node-local: it sees the node's clock,
// not a tx's env.
func TestQuerySeesTheWallClock(t *testing.T) {
	b := openGateDB(t)
	defer b.Close()
	rows, _, err := b.Query(context.Background(), `SELECT unixepoch()`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Now().Unix() - rows.Rows[0][0].(int64); d < -5 || d > 5 {
		t.Fatalf("unixepoch() on the query path is %v, %ds from the wall clock", rows.Rows[0][0], d)
	}
}
