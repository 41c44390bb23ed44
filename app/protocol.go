// Protocol versions on chain: the active version and a scheduled upgrade
// are system state (keys protocolVersionKey and protocolUpgradeKey), so
// they are in the AppHash and travel with checkpoints and snapshots. A
// chain that never scheduled an upgrade records neither key: it runs
// version 1 and its AppHashes are those relchain 0.1 computed.
//
// Timeline of an upgrade to version V at height H, scheduled by an admin's
// UpgradeStatement committed in block h (H >= h+MinUpgradeDelay):
//
//	block h     records the upgrade (protocolUpgradeKey = V, H).
//	block H-1   is executed by the old version; FinalizeBlock returns
//	            ConsensusParamUpdates.Version.App = V, so CometBFT puts V
//	            in the header of block H and every block after it.
//	block H     is the first block of version V: before its txs run, the
//	            upgrade becomes the active version (protocolVersionKey =
//	            V, H; protocolUpgradeKey deleted), written with the block.
//
// A binary that cannot run V executes block H-1 like everyone else, then
// refuses block H (FinalizeBlock fails with a protocol.UnsupportedError:
// the node halts, nothing of block H is recorded) and refuses to start
// again on that database (NewExecutor); the same binary with V supported
// resumes at block H.
//
// Cancelling: an admin's CancelUpgradeStatement naming the scheduled
// upgrade (V, H), committed in block c, deletes protocolUpgradeKey. It is
// accepted iff c <= H-1, too late from block H on. Why that bound: the
// header of block H carries V iff block H-1's FinalizeBlock announced V
// (VersionUpdate), and block H executes by V iff the state committed by
// block H-1 still schedules (V, H) (beginProto). VersionUpdate reads the
// state of block H-1 after all its txs (blockProtoHeld), the very state
// that block commits, so both questions get the same answer for every c:
//
//	c <  H-1   nothing was announced yet; block H-1 finds nothing to
//	           announce; header H and block H keep the old version.
//	c == H-1   the cancel runs before block H-1's announcement is decided:
//	           no announcement, the state it commits schedules nothing.
//	           A block_atomic abort of block H-1 drops the cancel with the
//	           block's other writes, and then both announce/execute V.
//	c >= H     header H already carries V (announced by block H-1) and
//	           block H began by activating V: refused as too late.
//
// A cancel allowed at H-1 or earlier can never leave a header that carries
// V over a block executed by the old version, nor the reverse; one block
// later it would.

package app

import (
	"encoding/binary"
	"fmt"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// System-state keys of the protocol version.
const (
	// protocolVersionKey holds the active version and the height of its
	// first block (8+8 bytes big-endian); absent: version 1 from genesis.
	protocolVersionKey = "protocol/version"
	// protocolUpgradeKey holds the scheduled upgrade: version and height
	// (8+8 bytes big-endian); absent: none.
	protocolUpgradeKey = "protocol/upgrade"
)

// Upgrade is a protocol version and the height of its first block.
type Upgrade struct {
	Version uint64 `json:"version"`
	Height  int64  `json:"height"`
}

func (u Upgrade) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, u.Version)
	return binary.BigEndian.AppendUint64(b, uint64(u.Height))
}

func decodeUpgrade(b []byte) (Upgrade, error) {
	if len(b) != 16 {
		return Upgrade{}, fmt.Errorf("protocol entry has %d bytes, want 16", len(b))
	}
	u := Upgrade{Version: binary.BigEndian.Uint64(b), Height: int64(binary.BigEndian.Uint64(b[8:]))}
	if u.Version < protocol.V1 || u.Height < 0 {
		return u, fmt.Errorf("protocol entry (version %d, height %d) out of range", u.Version, u.Height)
	}
	return u, nil
}

// protoState is the chain's protocol state: the active version (since
// the height of its first block, 0 for genesis) and the scheduled
// upgrade, if any.
type protoState struct {
	active  Upgrade
	pending *Upgrade
}

// genesisProto is the state of a chain that records no protocol entry:
// its genesis version (Params.GenesisProtocol) since genesis.
func genesisProto(version uint64) protoState { return protoState{active: Upgrade{Version: version}} }

// at is the state in force for block h: the pending upgrade becomes the
// active version at its height. activated reports that it did at h.
func (s protoState) at(h int64) (out protoState, activated bool) {
	if s.pending != nil && s.pending.Height <= h {
		return protoState{active: *s.pending}, s.pending.Height == h
	}
	return s, false
}

// version is the version of block h under s (at).
func (s protoState) version(h int64) Upgrade {
	st, _ := s.at(h)
	return st.active
}

// loadProto decodes a protocol system entry into s.
func (s *protoState) load(k string, v []byte) error {
	u, err := decodeUpgrade(v)
	if err != nil {
		return fmt.Errorf("load %s: %w", k, err)
	}
	if k == protocolVersionKey {
		s.active = u
	} else {
		s.pending = &u
	}
	return nil
}

// entries returns the system entries that record s as changed from the
// committed state by a block: the active version when the block
// activated an upgrade, the pending upgrade when the block activated one
// or its txs scheduled or cancelled one (changed): nil deletes.
func (s protoState) entries(activated, changed bool) map[string][]byte {
	kv := make(map[string][]byte)
	if activated {
		kv[protocolVersionKey] = s.active.encode()
	}
	if changed || activated {
		kv[protocolUpgradeKey] = nil
		if s.pending != nil {
			kv[protocolUpgradeKey] = s.pending.encode()
		}
	}
	return kv
}

// isUpgradeStmt reports whether sql is a protocol-upgrade statement: one
// that schedules an upgrade or one that cancels the scheduled one. Both
// are admin-only (perms.admit) and judged by judgeProtocolStmt.
func isUpgradeStmt(sql string) bool {
	return sql == protocol.UpgradeStatement || sql == protocol.CancelUpgradeStatement
}

// parseUpgrade validates the arguments of an upgrade statement (the new
// version and the height of its first block) or of a cancel (the version
// and height of the scheduled upgrade): two positive ints.
func parseUpgrade(st txn.Statement) (Upgrade, error) {
	shape := "the new protocol version (int) and the height of its first block (int)"
	if st.SQL == protocol.CancelUpgradeStatement {
		shape = "the version (int) and the height (int) of the scheduled upgrade to cancel"
	}
	if len(st.Args) != 2 || st.Args[0].Kind != txn.KindInt || st.Args[1].Kind != txn.KindInt {
		return Upgrade{}, fmt.Errorf("%q takes two arguments: %s", st.SQL, shape)
	}
	v, h := st.Args[0].Int, st.Args[1].Int
	if v <= 0 || h <= 0 {
		return Upgrade{}, fmt.Errorf("%q: version %d and height %d must be positive", st.SQL, v, h)
	}
	return Upgrade{Version: uint64(v), Height: h}, nil
}

// judgeUpgrade decides an upgrade scheduled by a tx of block h under
// the block's protocol state cur. The verdict depends on the chain state
// alone, never on the versions this binary can run: a node whose binary
// cannot run the new version agrees on the outcome, and stops at its
// height instead.
func judgeUpgrade(cur protoState, h int64, u Upgrade) string {
	switch {
	case u.Version <= cur.active.Version:
		return fmt.Sprintf("version %d is not newer than the chain's protocol version %d", u.Version, cur.active.Version)
	case u.Height < h+protocol.MinUpgradeDelay:
		return fmt.Sprintf("height %d is too close: an upgrade scheduled in block %d may take effect at height %d at the earliest (%d blocks later)", u.Height, h, h+protocol.MinUpgradeDelay, protocol.MinUpgradeDelay)
	}
	return ""
}

// judgeCancel decides a cancel of upgrade u by a tx of block h under the
// block's protocol state cur (as earlier statements left it): u must be
// the scheduled upgrade and h at most u.Height-1 (the comment at the top
// of this file says why). Chain state alone decides, as for judgeUpgrade.
func judgeCancel(cur protoState, h int64, u Upgrade) string {
	switch {
	case u.Height <= h:
		return fmt.Sprintf("too late to cancel the upgrade to version %d at height %d: block %d is the last that may cancel it (it announces the version of block %d to CometBFT), this is block %d",
			u.Version, u.Height, u.Height-1, u.Height, h)
	case cur.pending == nil:
		return "no protocol upgrade is scheduled: nothing to cancel"
	case *cur.pending != u:
		return fmt.Sprintf("the scheduled upgrade is version %d at height %d, not version %d at height %d: a cancel must name the scheduled upgrade",
			cur.pending.Version, cur.pending.Height, u.Version, u.Height)
	}
	return ""
}

// judgeProtocolStmt judges an upgrade or cancel statement st of a tx in
// block h under the protocol state cur and returns the scheduled upgrade
// it leaves (nil: none), or why it is refused.
func judgeProtocolStmt(cur protoState, h int64, st txn.Statement) (*Upgrade, *Rejection) {
	u, err := parseUpgrade(st)
	if err != nil {
		return nil, &Rejection{Code: api.CodeSyntax, Reason: err.Error()}
	}
	judge, left := judgeUpgrade, &u
	if st.SQL == protocol.CancelUpgradeStatement {
		judge, left = judgeCancel, nil
	}
	if why := judge(cur, h, u); why != "" {
		return nil, &Rejection{Code: api.CodeForbidden, Reason: why}
	}
	return left, nil
}

// upgradeOverlay is what a wl-transaction did to the scheduled upgrade,
// which joins the block's if the wl-transaction succeeds: set when it
// scheduled or cancelled one, pending the scheduled upgrade it left (nil:
// cancelled). A block's txs together are one such overlay
// (pendingBlock.upgrade).
type upgradeOverlay struct {
	set     bool
	pending *Upgrade
}

// apply returns s with o's change of the scheduled upgrade (o may be nil).
func (o *upgradeOverlay) apply(s protoState) protoState {
	if o != nil && o.set {
		s.pending = nil
		if o.pending != nil {
			u := *o.pending
			s.pending = &u
		}
	}
	return s
}

// checkUpgrade judges an upgrade or cancel statement of a tx in block p
// (the block's protocol state, as changed by earlier txs and the tx's
// earlier statements) and records its change in the tx's overlay.
func (e *Executor) checkUpgrade(p *pendingBlock, st txn.Statement, txUp *upgradeOverlay) *Rejection {
	left, rej := judgeProtocolStmt(txUp.apply(e.blockProto(p)), p.height, st)
	if rej != nil {
		return rej
	}
	txUp.set, txUp.pending = true, left
	return nil
}

// admitUpgrade is CheckTx's verdict on an upgrade or cancel statement:
// judged as the next block would judge it on the committed state (the
// block decides; a cancel of an upgrade the same tx schedules is refused
// here, though a block would accept it).
func (e *Executor) admitUpgrade(st txn.Statement) *Rejection {
	e.mu.Lock()
	h := e.committed.Height + 1
	cur, _ := e.proto.at(h)
	e.mu.Unlock()
	left, rej := judgeProtocolStmt(cur, h, st)
	if rej != nil {
		return rej
	}
	return e.canonicalUpgrade(left)
}

// canonicalUpgrade is CheckTx's refusal of an upgrade to a canonical
// version (5) on a network that does not speak PostgreSQL's SQL
// (Params.checkCanonical). Only CheckTx's, a node's own admission: a
// block's verdict must not depend on the release, and releases that do
// not know version 5 accept it (such a chain keeps version 4's rules at
// version 5: Executor.canonicalAt).
func (e *Executor) canonicalUpgrade(u *Upgrade) *Rejection {
	if u == nil || u.Version > protocol.Latest {
		return nil // a version this release does not know is judged by the one that does
	}
	if err := e.Params().checkCanonical(u.Version); err != nil {
		return &Rejection{Code: api.CodeForbidden, Reason: err.Error()}
	}
	return nil
}

// blockProto is the protocol state of block p as its txs left it so far:
// the state at the block's start (execBlockHeld; for a rehearsal the
// committed state at its height) with the upgrade its txs scheduled or
// cancelled.
func (e *Executor) blockProto(p *pendingBlock) protoState {
	if p.proto != nil {
		return p.blockProtoHeld()
	}
	e.mu.Lock()
	st, _ := e.proto.at(p.height)
	e.mu.Unlock()
	return p.upgrade.apply(st)
}

// blockProtoHeld is blockProto of a block that began (p.proto set).
func (p *pendingBlock) blockProtoHeld() protoState {
	return p.upgrade.apply(*p.proto)
}

// version is the protocol version block p is executed by.
func (p *pendingBlock) version() uint64 {
	if p.proto == nil {
		return protocol.Genesis
	}
	return p.proto.active.Version
}

// beginProto sets p's protocol state at the start of its block and
// refuses a block whose version this binary cannot run.
func (e *Executor) beginProto(p *pendingBlock) error {
	e.mu.Lock()
	st, activated := e.proto.at(p.height)
	e.mu.Unlock()
	if !protocol.Supported(st.active.Version) {
		return &protocol.UnsupportedError{Version: st.active.Version, Height: st.active.Height, Release: Version}
	}
	p.proto, p.protoActivated = &st, activated
	return nil
}

// ProtocolPath is the abci_query path that answers the committed protocol
// state (ProtocolStatus, JSON).
const ProtocolPath = "/protocol"

// ProtocolStatus is the chain's protocol state as of a committed height.
type ProtocolStatus struct {
	Height int64 `json:"height"`
	// Version is the version of the committed block; Next that of the
	// block after it (what the next header carries, Info's AppVersion).
	Version uint64 `json:"version"`
	Since   int64  `json:"since"` // first block of Version (0: genesis)
	Next    uint64 `json:"next"`
	// Pending is the scheduled upgrade, if any.
	Pending *Upgrade `json:"pending,omitempty"`
	// Supported lists the versions this node's binary can run.
	Supported []uint64 `json:"supported"`
}

// Protocol returns the committed protocol state.
func (e *Executor) Protocol() ProtocolStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := e.committed.Height
	cur := e.proto.version(h)
	out := ProtocolStatus{Height: h, Version: cur.Version, Since: cur.Height, Next: e.proto.version(h + 1).Version, Supported: protocol.Versions()}
	if e.proto.pending != nil && e.proto.pending.Height > h {
		u := *e.proto.pending
		out.Pending = &u
	}
	return out
}

// NextVersion is the protocol version of the block after the committed
// one: Info's AppVersion (CometBFT's state sync compares it with the
// version of the header after the snapshot).
func (e *Executor) NextVersion() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.proto.version(e.committed.Height + 1).Version
}

// VersionUpdate returns the protocol version the block after the pending
// block of height h runs, when it differs from h's: FinalizeBlock's
// consensus parameter update, which makes CometBFT carry the new version
// in the next header.
func (e *Executor) VersionUpdate(h int64) (uint64, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.pending
	if p == nil || p.height != h || p.proto == nil {
		return 0, false
	}
	st := p.blockProtoHeld()
	next := st.version(h + 1)
	if next.Version == st.active.Version {
		return 0, false
	}
	return next.Version, true
}

// checkProtocol refuses a database whose next block is of a version this
// binary cannot run: the node would stop at its first block anyway, and
// it must not touch anything before saying which release it needs.
func checkProtocol(s protoState, height int64) error {
	next := s.version(height + 1)
	if !protocol.Supported(next.Version) {
		return fmt.Errorf("the database is at height %d: %w", height, &protocol.UnsupportedError{Version: next.Version, Height: next.Height, Release: Version})
	}
	return nil
}
