package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
)

// The protocol versions relchain knows (see the package doc).
const (
	// V1 is everything relchain 0.1 does; a chain runs it from genesis.
	V1 uint64 = 1
	// V2 makes the AppHash commit to the protocol version.
	V2 uint64 = 2
	// V3 checks PostgreSQL storage's deferred constraints at the end of
	// each tx and lets a tx run SET CONSTRAINTS.
	V3 uint64 = 3
	// V4 makes the AppHash commit to the authenticated state: the root
	// of a statetree per table over its canonical rows.
	V4 uint64 = 4
	// V5 makes the AppHash engine independent (issue 37): it commits to
	// canonical state only, so validators on different database engines
	// can agree. For networks speaking PostgreSQL's SQL.
	V5 uint64 = 5
	// Latest is the newest version this source tree implements.
	Latest = V5
	// Genesis is the version a chain starts with when its genesis names
	// none (chains made before the field existed).
	Genesis = V1
	// DefaultGenesis is the version relchain init, testnet and localnet
	// give a new network unless told otherwise: the newest version every
	// network can run. V5 asks more of a schema (every table in the
	// authenticated state) and only networks speaking PostgreSQL's SQL
	// may run it; a network chooses it at genesis or by an upgrade.
	DefaultGenesis = V4
)

// Canonical reports whether blocks of version v commit to canonical state
// only (V5 and later): the AppHash is the same on every database engine.
func Canonical(v uint64) bool { return v >= V5 }

// UpgradeStatement is the admin system statement that schedules an
// upgrade: two int arguments, the new version and the height of its first
// block. It replaces an upgrade already scheduled.
const UpgradeStatement = "@relchain protocol upgrade"

// CancelUpgradeStatement is the admin system statement that cancels the
// scheduled upgrade: two int arguments, the version and the height of the
// upgrade scheduled (both must match it). The chain then stays on its
// version. The last block that may cancel an upgrade at height H is H-1
// (docs/upgrades.md, "Cancelling an upgrade").
const CancelUpgradeStatement = "@relchain protocol cancel upgrade"

// MinUpgradeDelay is how many blocks after the block that commits an
// upgrade its height must lie at least: the upgrade committed in block h
// takes effect at a height >= h+MinUpgradeDelay. CometBFT needs the block
// before the upgrade height to announce the new version for the next
// header; the operators need time to install the new release (they choose
// a height far enough ahead for that).
const MinUpgradeDelay = 5

// maxVersionOverride, set at link time, lowers Max (never raises it): a
// build that simulates an older release. Empty in a release build.
var maxVersionOverride string

// testMax, when set (SetMaxForTest), lowers Max further.
var testMax atomic.Uint64

// Max is the newest protocol version this binary can run.
func Max() uint64 {
	m := buildMax()
	if t := testMax.Load(); t != 0 && t < m {
		return t
	}
	return m
}

// buildMax is Latest as lowered by maxVersionOverride.
func buildMax() uint64 {
	if maxVersionOverride == "" {
		return Latest
	}
	v, err := strconv.ParseUint(maxVersionOverride, 10, 64)
	if err != nil || v < V1 || v > Latest {
		// A malformed override must not make a binary run versions it
		// does not implement; the lowest version is the safe reading.
		return V1
	}
	return v
}

// SetMaxForTest lowers Max to v (never raises it) until restore is
// called: in-process tests that play an older release. Not for use
// outside tests.
func SetMaxForTest(v uint64) (restore func()) {
	old := testMax.Swap(v)
	return func() { testMax.Store(old) }
}

// Supported reports whether this binary can execute blocks of version v.
func Supported(v uint64) bool { return v >= V1 && v <= Max() }

// Versions lists the versions this binary can run, oldest first.
func Versions() []uint64 {
	out := make([]uint64, 0, Max())
	for v := V1; v <= Max(); v++ {
		out = append(out, v)
	}
	return out
}

// ErrUnsupported is wrapped by the error of a binary asked to execute a
// block of a protocol version it cannot run.
var ErrUnsupported = errors.New("unsupported protocol version")

// UnsupportedError says which version the chain runs from which height
// and which release is needed.
type UnsupportedError struct {
	Version uint64 // the chain's version
	Height  int64  // the first block of that version (0: not known)
	Release string // this binary's release (relchain x.y.z)
}

func (e *UnsupportedError) Error() string {
	from := ""
	if e.Height > 0 {
		from = fmt.Sprintf(" from height %d", e.Height)
	}
	return fmt.Sprintf("this chain runs protocol version %d%s; this binary (relchain %s, protocol versions %s) cannot apply it: install a relchain that supports version %d",
		e.Version, from, e.Release, span(), e.Version)
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// span is "1" or "1-2": the versions this binary runs.
func span() string {
	if Max() == V1 {
		return "1"
	}
	return fmt.Sprintf("%d-%d", V1, Max())
}
