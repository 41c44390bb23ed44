package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/conflict"
)

// laneSchema is the schema of the lane tests: a plain table and two
// serial ones (a sequence each, so each lane draws on its own).
var laneSchema = []string{
	"CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL CHECK (bal >= 0))",
	"CREATE TABLE log1 (id serial PRIMARY KEY, note text)",
	"CREATE TABLE log2 (id bigserial PRIMARY KEY, note text)",
	"INSERT INTO acct SELECT g, 100 FROM generate_series(1, 30) g",
}

// laneTx is one bc-transaction of a lane test: its lane and statements.
type laneTx struct {
	lane  int
	stmts []string
}

// laneTxs are disjoint across lanes (lane 0: acct 1-10 and log1 is not
// used; lane 1: acct 11-20 and log1; lane 2: acct 21-30 and log2), some
// failing (a CHECK violation) and rolled back to their savepoint.
func laneTxs() []laneTx {
	var txs []laneTx
	for i := 0; i < 12; i++ {
		lane := i % 3
		id := lane*10 + 1 + i/3
		tx := laneTx{lane: lane, stmts: []string{fmt.Sprintf("UPDATE acct SET bal = bal + %d WHERE id = %d", i, id)}}
		switch lane {
		case 1:
			tx.stmts = append(tx.stmts, fmt.Sprintf("INSERT INTO log1 (note) VALUES ('tx %d')", i))
		case 2:
			tx.stmts = append(tx.stmts, fmt.Sprintf("INSERT INTO log2 (id, note) VALUES (nextval('log2_id_seq'), 'tx %d')", i))
		}
		if i%4 == 3 { // fails after its writes: rolled back to its savepoint
			tx.stmts = append(tx.stmts, fmt.Sprintf("UPDATE acct SET bal = -1 WHERE id = %d", id))
		}
		txs = append(txs, tx)
	}
	return txs
}

// laneRunner is what runLaneTx needs of a Block or a Lane.
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

// laneResult is what a block left: its digests and the tables' rows.
type laneResult struct {
	changes backend.Changes
	state   []byte
	rows    [][]any
}

func finishLaneBlock(t *testing.T, b *postgres.Backend, blk backend.Block, h int64) laneResult {
	t.Helper()
	var r laneResult
	var err error
	if r.changes, err = blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if r.state, err = blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatal(err)
	}
	r.rows = finishLaneBlockRows(t, b)
	return r
}

func setupLaneDB(t *testing.T) (*postgres.Backend, string) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	t.Cleanup(func() { b.Close() })
	block(t, b, 1, laneSchema...)
	return b, dsn
}

// runParallel runs txs on n lanes of a new block at height h.
func runParallel(t *testing.T, b *postgres.Backend, txs []laneTx, n int) (backend.Block, error) {
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
					errs[l] = runLaneTx(ctx(t), lanes[l], i, tx)
				}
			}
		}()
	}
	wg.Wait()
	return blk, errors.Join(errs...)
}

func TestLanesDigestAsSerial(t *testing.T) {
	serial, _ := setupLaneDB(t)
	par, _ := setupLaneDB(t)
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
	want := finishLaneBlock(t, serial, blk, 2)

	pblk, err := runParallel(t, par, txs, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := finishLaneBlock(t, par, pblk, 2)

	if !bytes.Equal(got.changes.Block, want.changes.Block) {
		t.Errorf("change digest: lanes %x, serial %x", got.changes.Block, want.changes.Block)
	}
	if !reflect.DeepEqual(got.changes.Effects, want.changes.Effects) || len(want.changes.Effects) == 0 {
		t.Errorf("effects: lanes %x, serial %x", got.changes.Effects, want.changes.Effects)
	}
	if !bytes.Equal(got.state, want.state) {
		t.Errorf("state digest: lanes %x, serial %x", got.state, want.state)
	}
	if !reflect.DeepEqual(got.rows, want.rows) {
		t.Errorf("rows:\nlanes  %v\nserial %v", got.rows, want.rows)
	}
	// Scan and stored sums agree, and a further (serial) block works.
	block(t, par, 3, "INSERT INTO log1 (note) VALUES ('after')", "INSERT INTO log2 (note) VALUES ('after')")
	block(t, serial, 3, "INSERT INTO log1 (note) VALUES ('after')", "INSERT INTO log2 (note) VALUES ('after')")
	for _, b := range []*postgres.Backend{serial, par} {
		stored, _, err := b.StoredState(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		scanned, _, err := b.ScanState(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stored, scanned) {
			t.Error("stored sums differ from a scan")
		}
	}
	a, _, _ := serial.Query(ctx(t), "SELECT id FROM log1 UNION ALL SELECT id FROM log2 ORDER BY 1", nil)
	p, _, _ := par.Query(ctx(t), "SELECT id FROM log1 UNION ALL SELECT id FROM log2 ORDER BY 1", nil)
	if !reflect.DeepEqual(a.Rows, p.Rows) {
		t.Errorf("serial values after the block: %v, %v", p.Rows, a.Rows)
	}
}

// preparedLanes lists the prepared transactions of the server.
func preparedLanes(t *testing.T, dsn string) []string {
	t.Helper()
	conn, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	rows, err := conn.Query(ctx(t), "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() ORDER BY gid")
	if err != nil {
		t.Fatal(err)
	}
	gids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return gids
}

// laneCrashEnv makes the test binary a child that runs a parallel block
// on the database of its value and dies at the step of laneCrashStep.
const laneCrashEnv, laneCrashStep = "RELCHAIN_TEST_LANE_CRASH_DSN", "RELCHAIN_TEST_LANE_CRASH_STEP"

// laneCrashChild is TestLanesCommitAtomicallyAcrossKills in its child
// process: it runs a parallel block on dsn and dies at laneCrashStep.
func laneCrashChild(t *testing.T, dsn string) {
	step := os.Getenv(laneCrashStep)
	postgres.SetLaneCommitHook(func(s string, lane int) {
		if step == s || step == fmt.Sprintf("%s:%d", s, lane) {
			p, _ := os.FindProcess(os.Getpid())
			_ = p.Signal(os.Kill)
			select {}
		}
	})
	b := mustOpen(t, dsn)
	blk, err := runParallel(t, b, laneTxs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	finishLaneBlock(t, b, blk, 2)
	t.Fatal("the child was not killed")
}

// A process killed between the steps of a parallel block's Commit leaves
// the whole block or none of it once the backend opens again, no
// prepared transaction, and a database that commits the next block.
func TestLanesCommitAtomicallyAcrossKills(t *testing.T) {
	if dsn := os.Getenv(laneCrashEnv); dsn != "" {
		laneCrashChild(t, dsn) // the test binary started by the test below, to be killed
		return
	}
	racetest.Heavy(t) // five child processes, each a test binary started and killed
	// The whole block, as a run that was not killed leaves it.
	ref, _ := setupLaneDB(t)
	blk, err := runParallel(t, ref, laneTxs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	whole := finishLaneBlock(t, ref, blk, 2)
	if gids := preparedLanes(t, pgtest.ServerDSN(t)); len(gids) != 0 {
		t.Fatalf("prepared transactions after a commit: %v", gids)
	}

	for _, tc := range []struct {
		step      string
		committed bool
	}{
		{postgres.CrashLanePrepared + ":1", false},
		{postgres.CrashLanePrepared + ":2", false},
		{postgres.CrashLanesDecided, true},
		{postgres.CrashLaneCommitPrepared + ":1", true},
		{postgres.CrashLaneCommitPrepared + ":2", true},
	} {
		t.Run(tc.step, func(t *testing.T) {
			b, dsn := setupLaneDB(t)
			before, _, err := b.Query(ctx(t), "SELECT 'a', id, bal::text FROM acct UNION ALL SELECT 'l1', id, note FROM log1 UNION ALL SELECT 'l2', id, note FROM log2 ORDER BY 1, 2", nil)
			if err != nil {
				t.Fatal(err)
			}
			b.Close()
			cmd := exec.Command(os.Args[0], "-test.run", "^TestLanesCommitAtomicallyAcrossKills$", "-test.count=1")
			cmd.Env = append(os.Environ(), laneCrashEnv+"="+dsn, laneCrashStep+"="+tc.step)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ProcessState.Sys() == nil || !strings.Contains(ee.ProcessState.String(), "killed") {
				t.Fatalf("child: %v\n%s", err, out)
			}
			b2 := mustOpen(t, dsn)
			defer b2.Close()
			if gids := preparedLanes(t, dsn); len(gids) != 0 {
				t.Fatalf("prepared transactions after Open: %v", gids)
			}
			st, err := b2.LoadState(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			rows, _, err := b2.Query(ctx(t), "SELECT 'a', id, bal::text FROM acct UNION ALL SELECT 'l1', id, note FROM log1 UNION ALL SELECT 'l2', id, note FROM log2 ORDER BY 1, 2", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.committed {
				if st.Height != 2 || !reflect.DeepEqual(rows.Rows, whole.rows) {
					t.Fatalf("height %d, rows %v; want the whole block %v", st.Height, rows.Rows, whole.rows)
				}
			} else if st.Height != 1 || !reflect.DeepEqual(rows.Rows, before.Rows) {
				t.Fatalf("height %d, rows %v; want none of the block %v", st.Height, rows.Rows, before.Rows)
			}
			h := st.Height + 1
			if !tc.committed { // the block again, on lanes
				blk, err := runParallel(t, b2, laneTxs(), 3)
				if err != nil {
					t.Fatal(err)
				}
				finishLaneBlock(t, b2, blk, h)
				h++
			}
			block(t, b2, h, "INSERT INTO log1 (note) VALUES ('next')")
			stored, _, err := b2.StoredState(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			scanned, _, err := b2.ScanState(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(stored, scanned) {
				t.Error("stored sums differ from a scan")
			}
		})
	}
}

// Two lanes that write the same row: the second waits for the first's
// lock and gives up with ErrLaneConflict within the lanes' lock timeout;
// Rollback then leaves nothing (no row, no prepared transaction, no
// change record) and the next block commits.
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
	for i, l := range lanes {
		if err := l.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lanes[0].Exec(ctx(t), "UPDATE acct SET bal = 1 WHERE id = 1", nil); err != nil {
		t.Fatal(err)
	}
	_, err = lanes[1].Exec(ctx(t), "UPDATE acct SET bal = 2 WHERE id = 1", nil)
	if !errors.Is(err, backend.ErrLaneConflict) {
		t.Fatalf("second lane: %v, want ErrLaneConflict", err)
	}
	// DDL on a lane is refused the same way.
	if _, err := lanes[0].Exec(ctx(t), "CREATE TABLE nope (id int PRIMARY KEY)", nil); !errors.Is(err, backend.ErrLaneConflict) {
		t.Fatalf("DDL on a lane: %v, want ErrLaneConflict", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if gids := preparedLanes(t, dsn); len(gids) != 0 {
		t.Fatalf("prepared transactions: %v", gids)
	}
	rows, _, err := b.Query(ctx(t), "SELECT bal FROM acct WHERE id = 1", nil)
	if err != nil || rows.Rows[0][0] != int64(100) {
		t.Fatalf("row after rollback: %v, %v", rows, err)
	}
	block(t, b, 2, "UPDATE acct SET bal = 3 WHERE id = 1")
}

// A lane whose db-transaction failed (a statement failed and nothing
// rolled back to its savepoint; the executor never leaves one so) makes
// the block's Commit fail while the other lanes prepare at once: none of
// them stays prepared, nothing of the block is applied, and the next
// block runs.
func TestALaneWhoseTransactionFailedFailsTheCommitAlone(t *testing.T) {
	b, dsn := setupLaneDB(t)
	before := finishLaneBlockRows(t, b)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	lanes, err := blk.(backend.Lanes).OpenLanes(ctx(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	for l, lane := range lanes {
		if err := lane.Savepoint(ctx(t), sqlcheck.Env{Tx: l, Time: time.Unix(1700000000, 0).UTC()}); err != nil {
			t.Fatal(err)
		}
		if l == 2 {
			continue
		}
		if _, err := lane.Exec(ctx(t), fmt.Sprintf("UPDATE acct SET bal = bal + 1 WHERE id = %d", 10*l+1), nil); err != nil {
			t.Fatal(err)
		}
		if err := lane.Release(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lanes[2].Exec(ctx(t), "UPDATE acct SET bal = -1 WHERE id = 21", nil); backend.AsError(err) == nil {
		t.Fatalf("a CHECK violation: %v", err)
	}
	err = blk.Commit(ctx(t), backend.State{Height: 2, AppHash: []byte{2}})
	if err == nil || !strings.Contains(err.Error(), "lane 2") {
		t.Fatalf("Commit of a block with a failed lane: %v, want lane 2's failure", err)
	}
	t.Logf("Commit: %v", err)
	if gids := preparedLanes(t, dsn); len(gids) != 0 {
		t.Fatalf("prepared transactions after the failed Commit: %v", gids)
	}
	if after := finishLaneBlockRows(t, b); !reflect.DeepEqual(after, before) {
		t.Fatalf("rows after the failed Commit:\n%v\nwant\n%v", after, before)
	}
	block(t, b, 2, "UPDATE acct SET bal = 3 WHERE id = 1")
}

// finishLaneBlockRows are the lane tests' tables' rows.
func finishLaneBlockRows(t *testing.T, b *postgres.Backend) [][]any {
	t.Helper()
	rows, _, err := b.Query(ctx(t), "SELECT 'a', id, bal::text FROM acct UNION ALL SELECT 'l1', id, note FROM log1 UNION ALL SELECT 'l2', id, note FROM log2 ORDER BY 1, 2", nil)
	if err != nil {
		t.Fatal(err)
	}
	return rows.Rows
}

// WarmLanes readies the lane connections between blocks: it opens them
// and prepares on each the statements the writer's session has prepared,
// so the next parallel block opens no connection on its path; after a
// schema change they follow the writer's again; while a block is open,
// and once the backend is closed, it does nothing.
func TestWarmLanesReadiesConnectionsBetweenBlocks(t *testing.T) {
	b, dsn := setupLaneDB(t)
	h := int64(1)
	twice := func(stmts ...string) { // the second sighting prepares (blockStmts)
		for range 2 {
			h++
			block(t, b, h, stmts...)
		}
	}
	twice("UPDATE acct SET bal = bal + 1 WHERE id = 1", "INSERT INTO log1 (note) VALUES ('x')")
	lanesFollowWriter := func(stmts, conns int) {
		t.Helper()
		if err := b.WarmLanes(ctx(t), 4); err != nil {
			t.Fatal(err)
		}
		writer, err := postgres.WriterStatements(ctx(t), b)
		if err != nil {
			t.Fatal(err)
		}
		lanes, err := postgres.LaneStatements(ctx(t), b)
		if err != nil {
			t.Fatal(err)
		}
		if len(writer) != stmts || len(lanes) != conns {
			t.Fatalf("writer's statements %q, lane connections %d: want %d and %d", writer, len(lanes), stmts, conns)
		}
		for i, l := range lanes {
			if !reflect.DeepEqual(l, writer) {
				t.Fatalf("lane connection %d has %q prepared, want the writer's %q", i, l, writer)
			}
		}
	}
	lanesFollowWriter(2, 3)
	pids := lanePIDs(t, dsn)
	if len(pids) != 3 {
		t.Fatalf("lane sessions after WarmLanes: %v, want 3", pids)
	}

	blk, err := runParallel(t, b, laneTxs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := lanePIDs(t, dsn); !reflect.DeepEqual(got, pids) {
		t.Fatalf("lane sessions of the parallel block %v, want the warmed ones %v", got, pids)
	}
	if err := b.WarmLanes(ctx(t), 8); err != nil {
		t.Fatal(err)
	}
	if got := lanePIDs(t, dsn); !reflect.DeepEqual(got, pids) {
		t.Fatalf("WarmLanes during a block: lane sessions %v, want %v", got, pids)
	}
	h++
	finishLaneBlock(t, b, blk, h)

	h++
	block(t, b, h, "ALTER TABLE acct ADD COLUMN extra int")
	twice("UPDATE acct SET extra = 1 WHERE id = 2")
	lanesFollowWriter(1, 3) // the statements of before the ALTER are gone

	b.Close()
	if err := b.WarmLanes(ctx(t), 4); err != nil {
		t.Fatal(err)
	}
	if got := lanePIDs(t, dsn); len(got) != 0 {
		t.Fatalf("lane sessions after Close: %v", got)
	}
}

// lanePIDs are the server processes of the database's lane sessions.
func lanePIDs(t *testing.T, dsn string) []int32 {
	t.Helper()
	conn, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	rows, err := conn.Query(ctx(t), `SELECT pid FROM pg_catalog.pg_stat_activity
		WHERE datname = current_database() AND application_name = 'relchain-lane' ORDER BY pid`)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// Lanes a crash left prepared are resolved when the backend opens: those
// of a recorded height commit, the others roll back.
func TestLaneLeftoversResolvedAtOpen(t *testing.T) {
	b, dsn := setupLaneDB(t)
	b.Close()
	db, err := postgres.DatabaseName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	for _, s := range []string{
		"BEGIN", "UPDATE acct SET bal = 7 WHERE id = 1", fmt.Sprintf("PREPARE TRANSACTION 'relchain:%s:1:1'", db),
		"BEGIN", "UPDATE acct SET bal = 8 WHERE id = 2", fmt.Sprintf("PREPARE TRANSACTION 'relchain:%s:2:1'", db),
	} {
		if _, err := conn.Exec(ctx(t), s); err != nil {
			t.Fatal(err)
		}
	}
	b2 := mustOpen(t, dsn)
	defer b2.Close()
	if gids := preparedLanes(t, dsn); len(gids) != 0 {
		t.Fatalf("prepared transactions after Open: %v", gids)
	}
	rows, _, err := b2.Query(ctx(t), "SELECT bal FROM acct WHERE id IN (1, 2) ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows.Rows, [][]any{{int64(7)}, {int64(100)}}) {
		t.Fatalf("rows %v: want the lane of height 1 committed, that of height 2 rolled back", rows.Rows)
	}
	// The change records the committed lane left are out of band now:
	// this test wrote them outside a block.
	if _, err := b2.Begin(ctx(t)); !errors.Is(err, backend.ErrOutOfBandChange) {
		t.Fatalf("Begin: %v", err)
	}
}

func TestConflictCatalog(t *testing.T) {
	b, _ := setupLaneDB(t)
	block(t, b, 2,
		`CREATE TABLE parent (k text PRIMARY KEY, u int UNIQUE)`,
		`CREATE TABLE child (a int, b bigint, p text REFERENCES parent, PRIMARY KEY (a, b))`,
		`CREATE TABLE "Mixed" (id numeric PRIMARY KEY, n int GENERATED BY DEFAULT AS IDENTITY)`,
		`CREATE TABLE nokey (v int)`,
		// Unique: a and d alone; not b (partial, and with c), c (an
		// expression), e (deferrable), f (another operator class).
		`CREATE TABLE uniq (id int PRIMARY KEY, a text UNIQUE, b int, c int, d text COLLATE "C" UNIQUE, e int UNIQUE DEFERRABLE, f varchar(9))`,
		`CREATE UNIQUE INDEX ON uniq (b) WHERE b > 0`,
		`CREATE UNIQUE INDEX ON uniq ((c + 1))`,
		`CREATE UNIQUE INDEX ON uniq (b, c)`,
		`CREATE UNIQUE INDEX ON uniq (f varchar_pattern_ops)`,
		`CREATE UNIQUE INDEX ON uniq (a)`,
	)
	cat, err := b.ConflictCatalog(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]conflict.Table{
		"acct": {Name: "acct", PrimaryKey: []conflict.Column{{Name: "id", Kind: conflict.KindInt}}, KeyIsOnlyUnique: true},
		"log1": {Name: "log1", PrimaryKey: []conflict.Column{{Name: "id", Kind: conflict.KindInt}}, KeyIsOnlyUnique: true, Sequences: []string{"log1_id_seq"}},
		"parent": {Name: "parent", PrimaryKey: []conflict.Column{{Name: "k", Kind: conflict.KindText}}, Related: []string{"child"},
			Unique: []conflict.Column{{Name: "u", Kind: conflict.KindInt}}},
		"uniq": {Name: "uniq", PrimaryKey: []conflict.Column{{Name: "id", Kind: conflict.KindInt}},
			Unique: []conflict.Column{{Name: "a", Kind: conflict.KindText}, {Name: "d", Kind: conflict.KindText}}},
		"child": {Name: "child", PrimaryKey: []conflict.Column{{Name: "a", Kind: conflict.KindInt}, {Name: "b", Kind: conflict.KindInt}},
			KeyIsOnlyUnique: true, Related: []string{"parent"}},
		"Mixed": {Name: "Mixed", PrimaryKey: []conflict.Column{{Name: "id", Kind: conflict.KindOther}}, KeyIsOnlyUnique: true, Sequences: []string{"Mixed_n_seq"}},
		"nokey": {Name: "nokey", KeyIsOnlyUnique: true},
	}
	for name, w := range want {
		got, ok := cat.Table(name)
		if !ok || !reflect.DeepEqual(got, w) {
			t.Errorf("%s: got %+v (%v), want %+v", name, got, ok, w)
		}
	}
	if _, ok := cat.Table("changes"); ok {
		t.Error("relchain's tables are in the catalog")
	}
	// Cached until a block changes the schema.
	block(t, b, 3, "INSERT INTO nokey VALUES (1)")
	if again, _ := b.ConflictCatalog(ctx(t)); !reflect.DeepEqual(again, cat) {
		t.Error("the catalog changed without a schema change")
	}
	block(t, b, 4, "CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
		"CREATE TRIGGER t BEFORE INSERT ON nokey FOR EACH ROW EXECUTE FUNCTION public.trg()")
	cat, err = b.ConflictCatalog(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if nk, _ := cat.Table("nokey"); !nk.Opaque {
		t.Errorf("nokey with a user trigger: %+v, want Opaque", nk)
	}
	if !cat.Routine("trg") || cat.Routine("lower") {
		t.Error("Routine: want public.trg a user routine, lower none")
	}
	// What else runs beyond a statement's text: a default or CHECK calling
	// a user function, inheritance.
	block(t, b, 5, "CREATE FUNCTION pick() RETURNS int LANGUAGE sql AS $$SELECT 1$$",
		"CREATE TABLE withdef (id int PRIMARY KEY, v int DEFAULT public.pick())",
		"CREATE TABLE withcheck (id int PRIMARY KEY, v int CHECK (v > public.pick()))",
		"CREATE TABLE base (id int PRIMARY KEY)",
		"CREATE TABLE derived (x int) INHERITS (base)")
	cat, err = b.ConflictCatalog(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"withdef", "withcheck", "base", "derived"} {
		if tb, ok := cat.Table(name); !ok || !tb.Opaque {
			t.Errorf("%s: %+v (%v), want Opaque", name, tb, ok)
		}
	}
}
