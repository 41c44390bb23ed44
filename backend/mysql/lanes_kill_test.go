package mysql_test

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/internal/racetest"
)

// laneCrashEnv makes the test binary a child that runs a parallel block
// on the database of its value and dies at the step of laneCrashStep.
const laneCrashEnv, laneCrashStep = "RELCHAIN_TEST_MARIADB_LANE_CRASH_DSN", "RELCHAIN_TEST_MARIADB_LANE_CRASH_STEP"

// laneCrashChild is TestLanesCommitAtomicallyAcrossKills in its child
// process: it runs a parallel block on dsn and dies at laneCrashStep.
func laneCrashChild(t *testing.T, dsn string) {
	step := os.Getenv(laneCrashStep)
	mysql.SetLaneCommitHook(func(s string, lane int) {
		if step == s || step == fmt.Sprintf("%s:%d", s, lane) {
			p, _ := os.FindProcess(os.Getpid())
			_ = p.Signal(os.Kill)
			select {}
		}
	})
	b := mustOpen(t, dsn, mysql.WithPostgresDialect())
	blk, err := runParallel(t, b, laneTxs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	finishLaneBlock(t, b, blk, laneHeight)
	t.Fatal("the child was not killed")
}

// laneRows reads the lane tests' tables, as finishLaneBlock does.
func laneRows(t *testing.T, b *mysql.Backend) [][]any {
	t.Helper()
	var out [][]any
	for _, q := range []string{"SELECT id, bal::text FROM acct ORDER BY id", "SELECT id, note FROM log1 ORDER BY id", "SELECT id, note FROM log2 ORDER BY id"} {
		rows, _, err := b.Query(ctx(t), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows.Rows...)
	}
	return out
}

// A process killed (kill -9) between the steps of a parallel block's
// Commit on MariaDB (XA PREPARE of each lane, the writer's COMMIT, XA
// COMMIT of each lane) leaves the whole block or none of it once the
// backend opens again — before any further block, as a read sees it — no
// prepared XA transaction of the database, and a database that commits
// the next block.
func TestLanesCommitAtomicallyAcrossKills(t *testing.T) {
	if dsn := os.Getenv(laneCrashEnv); dsn != "" {
		laneCrashChild(t, dsn) // the test binary started by the test below, to be killed
		return
	}
	racetest.Heavy(t)
	// The whole block, as a run that was not killed leaves it.
	ref, refDSN := setupLaneDB(t)
	blk, err := runParallel(t, ref, laneTxs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	whole := finishLaneBlock(t, ref, blk, laneHeight)
	if left := xaLeft(t, refDSN); len(left) != 0 {
		t.Fatalf("XA transactions after a commit: %v", left)
	}

	for _, tc := range []struct {
		step      string
		committed bool
	}{
		{mysql.CrashLanePrepared + ":1", false},
		{mysql.CrashLanePrepared + ":2", false},
		{mysql.CrashLanesDecided, true},
		{mysql.CrashLaneCommitPrepared + ":1", true},
		{mysql.CrashLaneCommitPrepared + ":2", true},
	} {
		t.Run(tc.step, func(t *testing.T) {
			b, dsn := setupLaneDB(t)
			before := laneRows(t, b)
			b.Close()
			cmd := exec.Command(os.Args[0], "-test.run", "^TestLanesCommitAtomicallyAcrossKills$", "-test.count=1")
			cmd.Env = append(os.Environ(), laneCrashEnv+"="+dsn, laneCrashStep+"="+tc.step)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !strings.Contains(ee.ProcessState.String(), "killed") {
				t.Fatalf("child: %v\n%s", err, out)
			}
			b2 := mustOpen(t, dsn, mysql.WithPostgresDialect())
			defer b2.Close()
			st, err := b2.LoadState(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			rows := laneRows(t, b2)
			if tc.committed {
				if st.Height != laneHeight || !reflect.DeepEqual(rows, whole.rows) {
					t.Errorf("after Open: height %d, rows %v; want the whole block %v", st.Height, rows, whole.rows)
				}
			} else if st.Height != laneHeight-1 || !reflect.DeepEqual(rows, before) {
				t.Errorf("after Open: height %d, rows %v; want none of the block %v", st.Height, rows, before)
			}
			if left := xaLeft(t, dsn); len(left) != 0 {
				t.Errorf("XA transactions after Open: %v", left)
			}
			h := st.Height + 1
			if !tc.committed { // the block again, on lanes
				blk, err := runParallel(t, b2, laneTxs(), 3)
				if err != nil {
					t.Fatal(err)
				}
				if got := finishLaneBlock(t, b2, blk, h); !reflect.DeepEqual(got.rows, whole.rows) {
					t.Errorf("the block again: rows %v, want %v", got.rows, whole.rows)
				}
				h++
			}
			runBlock(t, b2, h, [][]string{{"INSERT INTO log1 VALUES (100, 'next')"}})
			if left := xaLeft(t, dsn); len(left) != 0 {
				t.Errorf("XA transactions after the next block: %v", left)
			}
			if rows := laneRows(t, b2); len(rows) != len(whole.rows)+1 {
				t.Errorf("after the next block: %d rows, want %d", len(rows), len(whole.rows)+1)
			}
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

// A lane of the recorded height whose session still lives when the
// backend opens (a process killed a moment ago, its disconnect not yet
// seen by the server): Open waits for the session to end and commits the
// lane, rather than taking MariaDB's XAER_NOTA for "finished meanwhile"
// and leaving it prepared.
func TestLaneLeftoverOfLiveSessionResolvedAtOpen(t *testing.T) {
	b, dsn := setupLaneDB(t)
	b.Close()
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	if i := strings.IndexByte(name, '?'); i >= 0 {
		name = name[:i]
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	owner, err := db.Conn(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	gid := fmt.Sprintf("%s%d:1", mysql.LanePrefix(name), laneHeight-1)
	for _, q := range []string{"XA START '" + gid + "'", "UPDATE acct SET bal = 7 WHERE id = 7", "DELETE c FROM (SELECT MAX(seq) AS s FROM relchain_changes) v STRAIGHT_JOIN relchain_changes c ON c.seq = v.s", "XA END '" + gid + "'", "XA PREPARE '" + gid + "'"} {
		if _, err := owner.ExecContext(ctx(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	go func() { // the owner's session ends a moment after Open starts
		time.Sleep(700 * time.Millisecond)
		owner.Raw(func(any) error { return driver.ErrBadConn })
		owner.Close()
	}()
	b = mustOpen(t, dsn, mysql.WithPostgresDialect())
	defer b.Close()
	if left := xaLeft(t, dsn); len(left) > 0 {
		t.Errorf("XA transactions after Open: %v", left)
	}
	rows, _, err := b.Query(ctx(t), "SELECT bal FROM acct WHERE id = 7", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[7]]" {
		t.Errorf("after Open: %v %v", rows, err)
	}
}
