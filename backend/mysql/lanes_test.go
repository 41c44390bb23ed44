package mysql_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/sqlcheck"
)

// laneSchema is the schema of the lane tests, in the postgres dialect.
var laneSchema = [][]string{
	{"CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL CHECK (bal >= 0))"},
	{"CREATE TABLE log1 (id int PRIMARY KEY, note text)"},
	{"CREATE TABLE log2 (id bigint PRIMARY KEY, note text)"},
}

// laneTx is one bc-transaction of a lane test: its lane and statements.
type laneTx struct {
	lane  int
	stmts []string
}

// laneTxs are disjoint across lanes (lane 0: acct 1-10; lane 1: acct
// 11-20 and log1; lane 2: acct 21-30 and log2), some failing (a CHECK
// violation) and rolled back to their savepoint.
func laneTxs() []laneTx {
	var txs []laneTx
	for i := 0; i < 12; i++ {
		lane := i % 3
		id := lane*10 + 1 + i/3
		tx := laneTx{lane: lane, stmts: []string{fmt.Sprintf("UPDATE acct SET bal = bal + %d WHERE id = %d", i, id)}}
		switch lane {
		case 1:
			tx.stmts = append(tx.stmts, fmt.Sprintf("INSERT INTO log1 (id, note) VALUES (%d, 'tx %d')", i, i))
		case 2:
			tx.stmts = append(tx.stmts, fmt.Sprintf("INSERT INTO log2 (id, note) VALUES (%d, 'tx %d')", i, i))
		}
		if i%4 == 3 {
			tx.stmts = append(tx.stmts, fmt.Sprintf("UPDATE acct SET bal = -1 WHERE id = %d", id))
		}
		txs = append(txs, tx)
	}
	return txs
}

type laneRunner interface {
	Savepoint(ctx context.Context, env sqlcheck.Env) error
	Release(ctx context.Context) error
	RollbackTo(ctx context.Context) error
	Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error)
}

// runLaneTx runs tx number i on r as the executor does.
func runLaneTx(ctx context.Context, r laneRunner, i int, tx laneTx) error {
	if err := r.Savepoint(ctx, sqlcheck.Env{Tx: i, Time: time.Unix(1700000000, 0).UTC()}); err != nil {
		return err
	}
	for _, s := range tx.stmts {
		if _, err := r.Exec(ctx, s, nil); err != nil {
			if backend.AsError(err) == nil {
				return err
			}
			return r.RollbackTo(ctx)
		}
	}
	return r.Release(ctx)
}

type laneResult struct {
	changes backend.Changes
	state   []byte
	canon   backend.CanonicalDelta
	rows    [][]any
}

func finishLaneBlock(t *testing.T, b *mysql.Backend, blk backend.Block, h int64) laneResult {
	t.Helper()
	var r laneResult
	var err error
	if r.changes, err = blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if r.state, err = blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if r.canon, err = blk.(backend.CanonicalBlock).CanonicalDelta(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT id, bal::text FROM acct ORDER BY id", "SELECT id, note FROM log1 ORDER BY id", "SELECT id, note FROM log2 ORDER BY id"} {
		rows, _, err := b.Query(ctx(t), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.rows = append(r.rows, rows.Rows...)
	}
	return r
}

func setupLaneDB(t *testing.T) (*mysql.Backend, string) {
	dsn := mysqltest.DSN(t)
	b := mustOpen(t, dsn, mysql.WithPostgresDialect())
	t.Cleanup(func() { b.Close() })
	h := int64(1)
	for _, ddl := range laneSchema {
		runBlock(t, b, h, [][]string{ddl})
		h++
	}
	var ins []string
	for i := 1; i <= 30; i++ {
		ins = append(ins, fmt.Sprintf("INSERT INTO acct VALUES (%d, 100)", i))
	}
	runBlock(t, b, h, [][]string{ins})
	return b, dsn
}

// laneHeight is the first height after setupLaneDB.
const laneHeight = 5

func runParallel(t *testing.T, b *mysql.Backend, txs []laneTx, n int) (backend.Block, error) {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	lanes, err := blk.(backend.Lanes).OpenLanes(ctx(t), n)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for l := 0; l < n; l++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, tx := range txs {
				if tx.lane == l && errs[l] == nil {
					if err := runLaneTx(ctx(t), lanes[l], i, tx); err != nil {
						errs[l] = fmt.Errorf("tx %d %q: %w", i, tx.stmts, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	return blk, errors.Join(errs...)
}

// xaLeft lists the server's prepared XA transactions of database dsn.
func xaLeft(t *testing.T, dsn string) []string {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx(t), "XA RECOVER")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	if i := strings.IndexByte(name, '?'); i >= 0 {
		name = name[:i]
	}
	var out []string
	for rows.Next() {
		var f, g, q int64
		var data string
		if err := rows.Scan(&f, &g, &q, &data); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(data, mysql.LanePrefix(name)) {
			out = append(out, data)
		}
	}
	return out
}

func TestLanesDigestAsSerial(t *testing.T) {
	serial, _ := setupLaneDB(t)
	par, dsn := setupLaneDB(t)
	txs := laneTxs()

	blk, err := serial.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range txs {
		if err := runLaneTx(ctx(t), blk, i, tx); err != nil {
			t.Fatal(err)
		}
	}
	want := finishLaneBlock(t, serial, blk, laneHeight)

	pblk, err := runParallel(t, par, txs, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := finishLaneBlock(t, par, pblk, laneHeight)

	if !bytes.Equal(got.changes.Block, want.changes.Block) {
		t.Errorf("change digest: lanes %x, serial %x", got.changes.Block, want.changes.Block)
	}
	if !reflect.DeepEqual(got.changes.Effects, want.changes.Effects) || len(want.changes.Effects) == 0 {
		t.Errorf("effects: lanes %x, serial %x", got.changes.Effects, want.changes.Effects)
	}
	if !bytes.Equal(got.state, want.state) {
		t.Errorf("state digest: lanes %x, serial %x", got.state, want.state)
	}
	if !reflect.DeepEqual(got.canon, want.canon) || len(want.canon.Tables) == 0 {
		t.Errorf("canonical delta:\nlanes  %+v\nserial %+v", got.canon, want.canon)
	}
	if !reflect.DeepEqual(got.rows, want.rows) {
		t.Errorf("rows:\nlanes  %v\nserial %v", got.rows, want.rows)
	}
	if left := xaLeft(t, dsn); len(left) > 0 {
		t.Errorf("XA transactions left: %v", left)
	}
	// A further (serial) block works, and the stored sums match a scan.
	runBlock(t, par, laneHeight+1, [][]string{{"INSERT INTO log1 VALUES (100, 'after')"}})
	stored, _, err := par.StoredState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	scanned, _, err := par.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, scanned) {
		t.Error("stored sums differ from a scan")
	}
}

func TestLaneConflictIsPromptAndRollsBack(t *testing.T) {
	b, dsn := setupLaneDB(t)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	lanes, err := blk.(backend.Lanes).OpenLanes(ctx(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := runLaneTx(ctx(t), lanes[0], 0, laneTx{stmts: []string{"UPDATE acct SET bal = 1 WHERE id = 1"}}); err != nil {
		t.Fatal(err)
	}
	err = runLaneTx(ctx(t), lanes[1], 1, laneTx{stmts: []string{"UPDATE acct SET bal = 2 WHERE id = 1"}})
	if !errors.Is(err, backend.ErrLaneConflict) {
		t.Fatalf("conflicting lane: %v, want ErrLaneConflict", err)
	}
	_, err = lanes[1].Exec(ctx(t), "CREATE TABLE x (id int PRIMARY KEY)", nil)
	if !errors.Is(err, backend.ErrLaneConflict) && !errors.Is(err, backend.ErrBlockLost) {
		t.Errorf("DDL on a lane: %v, want ErrLaneConflict", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if left := xaLeft(t, dsn); len(left) > 0 {
		t.Errorf("XA transactions left: %v", left)
	}
	rows, _, err := b.Query(ctx(t), "SELECT bal FROM acct WHERE id = 1", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[100]]" {
		t.Errorf("after rollback: %v %v", rows, err)
	}
	runBlock(t, b, laneHeight, [][]string{{"UPDATE acct SET bal = 5 WHERE id = 1"}})
}

// TestLaneLeftoversResolvedAtOpen: a prepared lane of the recorded height
// commits at Open, one of a later height rolls back.
func TestLaneLeftoversResolvedAtOpen(t *testing.T) {
	b, dsn := setupLaneDB(t)
	b.Close()
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	if i := strings.IndexByte(name, '?'); i >= 0 {
		name = name[:i]
	}
	prepare := func(h int64, stmt string) {
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conn, err := db.Conn(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		gid := fmt.Sprintf("%s%d:1", mysql.LanePrefix(name), h)
		for _, q := range []string{"XA START '" + gid + "'", stmt, "DELETE c FROM (SELECT MAX(seq) AS s FROM relchain_changes) v STRAIGHT_JOIN relchain_changes c ON c.seq = v.s", "XA END '" + gid + "'", "XA PREPARE '" + gid + "'"} {
			if _, err := conn.ExecContext(ctx(t), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		conn.Close()
	}
	prepare(laneHeight-1, "UPDATE acct SET bal = 7 WHERE id = 7")
	prepare(laneHeight, "UPDATE acct SET bal = 8 WHERE id = 8")
	b = mustOpen(t, dsn, mysql.WithPostgresDialect())
	defer b.Close()
	// Resolved at Open, before any read (the lanes consumed their change
	// records, as a lane does before it is prepared).
	if left := xaLeft(t, dsn); len(left) > 0 {
		t.Fatalf("XA transactions left after Open: %v", left)
	}
	rows, _, err := b.Query(ctx(t), "SELECT id, bal FROM acct WHERE id IN (7, 8) ORDER BY id", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[7 7] [8 100]]" {
		t.Errorf("after Open: %v %v", rows, err)
	}
	runBlock(t, b, laneHeight, [][]string{{"UPDATE acct SET bal = 9 WHERE id = 9"}})
	if left := xaLeft(t, dsn); len(left) > 0 {
		t.Errorf("XA transactions left: %v", left)
	}
	rows, _, err = b.Query(ctx(t), "SELECT id, bal FROM acct WHERE id IN (7, 8, 9) ORDER BY id", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[7 7] [8 100] [9 9]]" {
		t.Errorf("after resolution: %v %v", rows.Rows, err)
	}
}

// The conflict catalog knows each table's primary key and UNIQUE keys,
// and leaves relchain's own tables out. The backend runs as a node's
// does, on the least-privilege writer and reader accounts: the reader's,
// with SELECT only, is shown no constraints by information_schema, and a
// catalog read there missed UNIQUE keys (txs that conflict through them
// split).
func TestConflictCatalog(t *testing.T) {
	w, r := mysqltest.Accounts(t)
	b := mustOpen(t, w, mysql.WithPostgresDialect(), mysql.WithReaderDSN(r))
	t.Cleanup(func() { b.Close() })
	for i, ddl := range laneSchema {
		runBlock(t, b, int64(i+1), [][]string{ddl})
	}
	for i, ddl := range []string{"CREATE TABLE child (id int PRIMARY KEY, code int)", "CREATE UNIQUE INDEX child_code ON child (code)"} {
		if out := runBlock(t, b, int64(len(laneSchema)+1+i), [][]string{{ddl}}); out.results[0] != "" {
			t.Fatalf("%s: %v", ddl, out.results)
		}
	}
	var c backend.ConflictCataloger = b
	cat, err := c.ConflictCatalog(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	acct, ok := cat.Table("acct")
	if !ok || len(acct.PrimaryKey) != 1 || acct.PrimaryKey[0].Kind != 1 || !acct.KeyIsOnlyUnique || acct.Opaque {
		t.Errorf("acct: %+v %v", acct, ok)
	}
	child, ok := cat.Table("child")
	if !ok || child.KeyIsOnlyUnique {
		t.Errorf("child (a second UNIQUE key): %+v %v", child, ok)
	}
	if _, ok := cat.Table("relchain_changes"); ok {
		t.Error("relchain's own table in the catalog")
	}
}

// WarmLanes opens the lanes' connections between blocks, so the next
// parallel block opens none on its path; while a block is open it does
// nothing.
func TestWarmLanesOpensTheLaneConnectionsBetweenBlocks(t *testing.T) {
	b, dsn := setupLaneDB(t)
	before := sessions(t, dsn)
	if err := b.WarmLanes(ctx(t), 4); err != nil {
		t.Fatal(err)
	}
	warmed := sessions(t, dsn)
	if warmed != before+3 {
		t.Fatalf("sessions of the database: %d before WarmLanes, %d after; want 3 more", before, warmed)
	}
	if err := b.WarmLanes(ctx(t), 4); err != nil {
		t.Fatal(err)
	}
	if n := sessions(t, dsn); n != warmed {
		t.Fatalf("sessions after a second WarmLanes: %d, want %d", n, warmed)
	}
	blk, err := runParallel(t, b, laneTxs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WarmLanes(ctx(t), 8); err != nil {
		t.Fatal(err)
	}
	if n := sessions(t, dsn); n != warmed {
		t.Fatalf("sessions during the parallel block (WarmLanes called): %d, want the warmed %d", n, warmed)
	}
	finishLaneBlock(t, b, blk, laneHeight)
}

// sessions counts the server's sessions on the database of dsn, this
// one's included.
func sessions(t *testing.T, dsn string) int {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx(t), "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
