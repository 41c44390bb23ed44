package app

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// ReplayWindow is how many nonces below a key's highest executed nonce are
// still tracked. A bc-transaction executes at most once, forever:
//
//   - a nonce above the key's highest executed nonce is new;
//   - a nonce within ReplayWindow below it is new unless its bit is set;
//   - anything older is refused as too old.
//
// Every tx that passes the envelope checks in a block consumes its nonce,
// whether its statements succeed or fail (a failed transfer replayed later,
// when funds exist, must not succeed). The state per key is fixed-size
// (8 + ReplayWindow/8 bytes), stored in the block's db-transaction, so it is
// bounded by the number of keys and survives restarts and the mempool cache
// forgetting a tx. Clients number their txs with a counter (client.Client
// starts it from the clock, so a restarted client never goes back); up to
// ReplayWindow txs of one key may be reordered between submission and
// inclusion. One key should be used by one client process at a time.
//
// A nonce may also not run ahead: it must be at most
//
//	max(Max + MaxNonceStep, chain time in Unix nanoseconds + MaxNonceAhead)
//
// so that no signed tx (a buggy or hostile client's nonce 2^64-1, say) can
// move a key's window to the top and leave it unable to send again: above
// the chain's clock a key advances by at most MaxNonceStep per tx, and
// 2^64/MaxNonceStep txs is more than any key will ever send. client.Client
// starts its counter at its machine's clock in nanoseconds, so its first
// nonce (a new key's too) is accepted unless that clock runs more than
// MaxNonceAhead (about 18 minutes) ahead of the chain's; a client that
// counts from 1 stays within Max + MaxNonceStep. The chain time is the
// block's consensus time (BFT time, the same on every node) in the block;
// CheckTx uses the time of the last block this node committed, which is
// never later, so a tx CheckTx admits passes the bound in the block (after
// a restart, before the first block, CheckTx uses the node's clock).
const ReplayWindow = 1024

// MaxNonceStep is how far above a key's highest executed nonce a nonce
// may be, whatever the chain's clock says (see ReplayWindow).
const MaxNonceStep = 1 << 20

// MaxNonceAhead is how far above the chain's clock, in Unix nanoseconds,
// a nonce may be (2^40 ns, about 18.3 minutes; see ReplayWindow).
const MaxNonceAhead = 1 << 40

// replayState is one key's window: Max is the highest executed nonce; bit i
// of Seen is set when nonce Max-i was executed.
type replayState struct {
	Max  uint64
	Seen [ReplayWindow / 64]uint64
}

const replayStateSize = 8 + ReplayWindow/8

func (s *replayState) encode() []byte {
	b := make([]byte, 0, replayStateSize)
	b = binary.BigEndian.AppendUint64(b, s.Max)
	for _, w := range s.Seen {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return b
}

func decodeReplayState(b []byte) (*replayState, error) {
	if len(b) != replayStateSize {
		return nil, fmt.Errorf("replay state has %d bytes, want %d", len(b), replayStateSize)
	}
	s := &replayState{Max: binary.BigEndian.Uint64(b)}
	for i := range s.Seen {
		s.Seen[i] = binary.BigEndian.Uint64(b[8+8*i:])
	}
	return s, nil
}

// nonceCeiling is the highest nonce a key whose highest executed nonce is
// max may use when the chain's clock reads chainTime.
func nonceCeiling(max uint64, chainTime time.Time) uint64 {
	ceiling := saturatingAdd(max, MaxNonceStep)
	if ns := chainTime.UnixNano(); !chainTime.IsZero() && ns > 0 {
		ceiling = maxU64(ceiling, saturatingAdd(uint64(ns), MaxNonceAhead))
	}
	return ceiling
}

func saturatingAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func maxU64(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// check reports why nonce n may not execute when the chain's clock reads
// chainTime, or "" if it may. s may be nil (a key that never executed).
func (s *replayState) check(n uint64, chainTime time.Time) string {
	if n == 0 {
		return "nonce 0 is not allowed: number transactions from 1"
	}
	var max uint64
	if s != nil {
		max = s.Max
	}
	if ceiling := nonceCeiling(max, chainTime); n > ceiling {
		return fmt.Sprintf("nonce %d is too far ahead: a nonce may be at most %d above this key's highest executed nonce (%d) or %d above the chain's clock in Unix nanoseconds (%d), i.e. at most %d; number transactions with a counter, or from a clock that is not ahead of the chain's",
			n, uint64(MaxNonceStep), max, uint64(MaxNonceAhead), chainTime.UnixNano(), ceiling)
	}
	if s == nil || n > s.Max {
		return ""
	}
	off := s.Max - n
	if off >= ReplayWindow {
		return fmt.Sprintf("nonce %d is too old: this key has executed nonce %d, and only the %d nonces below it are still accepted", n, s.Max, ReplayWindow)
	}
	if s.Seen[off/64]&(1<<(off%64)) != 0 {
		return fmt.Sprintf("nonce %d of this key was already executed (replay)", n)
	}
	return ""
}

// mark records nonce n as executed; check(n, …) must have returned "".
func (s *replayState) mark(n uint64) {
	if n > s.Max {
		shift := n - s.Max
		s.Max = n
		s.shift(shift)
	}
	off := s.Max - n
	s.Seen[off/64] |= 1 << (off % 64)
}

// shift moves every bit up by k positions (older), dropping those that
// leave the window.
func (s *replayState) shift(k uint64) {
	if k >= ReplayWindow {
		s.Seen = [ReplayWindow / 64]uint64{}
		return
	}
	words, bits := int(k/64), k%64
	for i := len(s.Seen) - 1; i >= 0; i-- {
		var v uint64
		if j := i - words; j >= 0 {
			v = s.Seen[j] << bits
			if bits > 0 && j-1 >= 0 {
				v |= s.Seen[j-1] >> (64 - bits)
			}
		}
		s.Seen[i] = v
	}
}

// EnvelopeCache reports the envelope cache's size and hit counts, for
// metrics.
func (e *Executor) EnvelopeCache() EnvelopeCacheStats { return e.envelopes.stats() }

// ReplayKeys is the number of keys whose replay window this node holds
// (committed state): the size of the replay-window table, for metrics.
func (e *Executor) ReplayKeys() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.replay)
}
