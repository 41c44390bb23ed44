package node

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
)

// ErrDiskFull is wrapped by the reason a node halts when a write to its
// disk failed for lack of space (ENOSPC, or a quota): one of CometBFT's
// stores, its consensus WAL, its validator's sign state, or the
// application's database. A restart with space freed resumes: the database
// commits a block atomically with its height and AppHash, and CometBFT's
// handshake replays what its stores hold beyond that.
var ErrDiskFull = errors.New("disk full")

// DiskFullError is the report of a node that stopped because its disk is
// full. Errors.Is(err, ErrDiskFull) holds; so does errors.Is with the
// database's error, when the database reported it.
type DiskFullError struct {
	// What failed to write: "consensus" (CometBFT's stores, WAL or sign
	// state; its consensus stopped) or "database" (the application's).
	What string
	// Path is where the node writes what failed: CometBFT's data
	// directory, or the database file.
	Path string
	// Cause is the failed write as reported (CometBFT's panic, the
	// database's error); it usually names the file.
	Cause string
	// Free and Size are the bytes available and in all on Path's file
	// system when the node stopped; Size is 0 when unknown.
	Free, Size uint64
	err        error // the database's error, else nil
}

func (e *DiskFullError) Error() string {
	space := ""
	if e.Size > 0 {
		space = fmt.Sprintf(" (%s free of %s)", bytesText(e.Free), bytesText(e.Size))
	}
	return fmt.Sprintf("disk full: no space left on device for this node's %s at %s%s: %s; free space on that file system and start the node again: it resumes from its last committed block and catches up with the network",
		e.What, e.Path, space, oneLine(e.Cause, 400))
}

func (e *DiskFullError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrDiskFull}
	}
	return []error{ErrDiskFull, e.err}
}

// diskFullTexts are how a full disk reads in the errors and panics that
// reach the node: the OS's ENOSPC and EDQUOT texts (in Go's *PathError and
// in CometBFT's panics, which are often formatted strings) and SQLite's
// SQLITE_FULL.
var diskFullTexts = []string{"no space left on device", "disk quota exceeded", "database or disk is full"}

// isDiskFull reports whether err (an error, or a recovered panic value)
// says that a write failed for lack of space.
func isDiskFull(v any) bool {
	if err, ok := v.(error); ok && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)) {
		return true
	}
	text := strings.ToLower(fmt.Sprint(v))
	for _, t := range diskFullTexts {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// newDiskFullError reports a failed write of what ("consensus" or
// "database") under path, with the space left on its file system.
func newDiskFullError(what, path, cause string, err error) *DiskFullError {
	e := &DiskFullError{What: what, Path: path, Cause: cause, err: err}
	e.Free, e.Size = diskSpace(path)
	return e
}

// diskSpace is the space available to the node and in all on the file
// system of path (or of its nearest existing parent); 0, 0 when unknown.
func diskSpace(path string) (free, size uint64) {
	for p := path; ; p = filepath.Dir(p) {
		if free, size, ok := statFS(p); ok {
			return free, size
		}
		if p == filepath.Dir(p) {
			return 0, 0
		}
	}
}

func bytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// consensusFailureMsg is the message CometBFT v0.38's consensus logs, with
// the recovered panic as "err", when its receive routine panics and ends
// (consensus/state.go receiveRoutine). The panic value reaches the node
// nowhere else.
const consensusFailureMsg = "CONSENSUS FAILURE!!!"

// panicNote keeps the first consensus failure logged through a node's
// logger (quietLogger notes it).
type panicNote struct{ first atomic.Pointer[string] }

func (p *panicNote) note(cause string) { p.first.CompareAndSwap(nil, &cause) }

// cause is the panic consensus ended with, or "" if none was logged.
func (p *panicNote) cause() string {
	if p == nil {
		return ""
	}
	if c := p.first.Load(); c != nil {
		return *c
	}
	return ""
}

// diskFullInConsensus is the report of a consensus that ended because a
// write to the disk failed for lack of space, else nil. It is logged here:
// the node stops at once, without the grace it gives its peers to show a
// divergence when consensus ended for another reason.
func (n *Node) diskFullInConsensus() error {
	cause := n.panics.cause()
	if cause == "" || !isDiskFull(cause) {
		return nil
	}
	err := newDiskFullError("consensus", n.cmt.Config().DBDir(), cause, nil)
	n.logger.Error("relchain: consensus stopped: "+err.Error(), "path", err.Path, "free_bytes", err.Free)
	return err
}

// lowSpace is how little space left on a database file's file system
// makes the node read a write error without a cause (SQLite's "disk I/O
// error") as a full disk.
const lowSpace = 1 << 20

// ioErrorTexts are how a failed write reads when the error lost its cause:
// SQLite's SQLITE_IOERR (its Go driver reports ENOSPC during a write as
// that, and the OS error is often gone by the time the statement fails),
// and EIO.
var ioErrorTexts = []string{"disk i/o error", "input/output error"}

// diskFullInDatabase turns a reason to halt that says the database's disk
// is full into a *DiskFullError naming the database file (or, for a
// server, the server); other reasons are returned as they are. A write
// error without a cause counts when the database file's file system has
// less than lowSpace left.
func (n *Node) diskFullInDatabase(err error) error {
	if errors.As(err, new(*DiskFullError)) {
		return err
	}
	if !isDiskFull(err) && !(n.dbFile != "" && isIOError(err) && spaceLow(n.dbFile)) {
		return err
	}
	path := n.dbFile
	if path == "" {
		path = "the database server (its data directory)"
	}
	e := newDiskFullError("database", path, err.Error(), err)
	if n.dbFile == "" {
		e.Free, e.Size = 0, 0 // the server's disk is not this machine's
	}
	n.logger.Error("relchain: "+e.Error(), "path", path, "free_bytes", e.Free)
	return e
}

func isIOError(err error) bool {
	text := strings.ToLower(err.Error())
	for _, t := range ioErrorTexts {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// spaceLow reports whether path's file system has less than lowSpace left.
func spaceLow(path string) bool {
	free, size := diskSpace(path)
	return size > 0 && free < lowSpace
}
