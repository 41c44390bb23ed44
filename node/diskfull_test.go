package node

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/cometbft/cometbft/libs/log"
)

// The texts a full disk reaches the node with: CometBFT's panics (often
// formatted strings), Go's *PathError, SQLite's SQLITE_FULL, a quota.
// Nothing else counts: a divergence or a lost database connection keeps its
// own report.
func TestIsDiskFullReadsEveryFormOfENOSPC(t *testing.T) {
	pathErr := &fs.PathError{Op: "write", Path: "/home/n/data/blockstore.db/000001.log", Err: syscall.ENOSPC}
	for _, v := range []any{
		pathErr,
		fmt.Errorf("save block: %w", pathErr),
		"failed to write {...} msg to consensus WAL due to write /home/n/data/cs.wal/wal: no space left on device; check your file system and restart the node",
		fmt.Errorf("commit block 12: sqlite3: database or disk is full"),
		&fs.PathError{Op: "write", Path: "/q", Err: syscall.EDQUOT},
		"open /x/priv_validator_state.json.tmp: Disk quota exceeded",
	} {
		if !isDiskFull(v) {
			t.Errorf("isDiskFull(%v) = false", v)
		}
	}
	for _, v := range []any{
		"+2/3 committed an invalid block: wrong Block.Header.AppHash.  Expected 0A, got 0B",
		errors.New("sqlite3: database is locked"),
		&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT},
		errors.New("failed to apply block; error FATAL: terminating connection due to administrator command"),
	} {
		if isDiskFull(v) {
			t.Errorf("isDiskFull(%v) = true", v)
		}
	}
}

// The report names the cause, the path and what to do, on one line, and
// keeps the database's error in its chain.
func TestDiskFullErrorSaysWhatAndWhere(t *testing.T) {
	dbErr := errors.New("commit block 7: sqlite3: database or disk is full")
	e := newDiskFullError("database", t.TempDir()+"/relchain.db", dbErr.Error(), dbErr)
	msg := e.Error()
	for _, want := range []string{"disk full: no space left on device", "database at " + e.Path, "free of", "sqlite3: database or disk is full", "free space on that file system and start the node again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report lacks %q:\n%s", want, msg)
		}
	}
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("report is not one line:\n%s", msg)
	}
	if !errors.Is(e, ErrDiskFull) || !errors.Is(e, dbErr) {
		t.Errorf("errors.Is(ErrDiskFull) = %t, errors.Is(database error) = %t; want both", errors.Is(e, ErrDiskFull), errors.Is(e, dbErr))
	}
	if e.Size == 0 || e.Free > e.Size {
		t.Errorf("space of %s: %d free of %d", e.Path, e.Free, e.Size)
	}
}

// The consensus's panic reaches the node only through its logger: the
// logger CometBFT's consensus derives (With) notes the first one, and a
// node whose consensus ended is not ready, saying why.
func TestConsensusPanicIsNotedAndMakesTheNodeNotReady(t *testing.T) {
	q := quiet(log.NewNopLogger()).(*quietLogger)
	cs := q.With("module", "consensus")
	cs.Error("CONSENSUS FAILURE!!!", "err", "write /h/data/cs.wal/wal: no space left on device", "stack", "goroutine 1 …")
	cs.Error("CONSENSUS FAILURE!!!", "err", "a later one", "stack", "")
	if got := q.panics.cause(); got != "write /h/data/cs.wal/wal: no space left on device" {
		t.Fatalf("noted cause %q, want the first panic", got)
	}
	n := &Node{stopping: make(chan struct{}), panics: q.panics}
	n.consensusEnded.Store(true)
	if got := n.readiness(); got != "consensus stopped: write /h/data/cs.wal/wal: no space left on device" {
		t.Errorf("readiness of a node whose consensus ended: %q", got)
	}
	n.deliver(newDiskFullError("consensus", "/h/data", q.panics.cause(), nil))
	if got := n.readiness(); !strings.HasPrefix(got, "halted (disk_full): disk full: no space left on device") {
		t.Errorf("readiness of a node halted by a full disk: %q", got)
	}
}

// A database error that says the disk is full names the database file; a
// write error without a cause counts only when that file's file system is
// (nearly) full, which a test's temporary directory is not.
func TestDatabaseErrorsOnAFullDisk(t *testing.T) {
	n := &Node{dbFile: t.TempDir() + "/relchain.db", logger: log.NewNopLogger()}
	full := errors.New("commit block 5: commit: sqlite3: database or disk is full")
	var d *DiskFullError
	if err := n.diskFullInDatabase(full); !errors.As(err, &d) || d.Path != n.dbFile || d.What != "database" || !errors.Is(err, full) {
		t.Errorf("diskFullInDatabase(%v) = %v, want a *DiskFullError for %s wrapping it", full, err, n.dbFile)
	}
	for _, err := range []error{
		errors.New("commit block 5: commit: sqlite3: disk I/O error"),
		errors.New("apply block 5: connection refused"),
	} {
		if got := n.diskFullInDatabase(err); got != err {
			t.Errorf("diskFullInDatabase(%v) = %v, want it unchanged (space is plentiful)", err, got)
		}
	}
}
