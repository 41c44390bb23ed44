// Validator membership: admin system statements that add a validator,
// change its power or remove it. The set is system state (key
// "validator/" + the raw ed25519 consensus key, value the power as 8
// bytes big-endian), so it is in the AppHash and travels with checkpoints
// and snapshots; every change a block makes is returned to CometBFT as a
// ValidatorUpdate, sorted by key.

package app

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

const validatorKeyPrefix = "validator/"

// MaxValidatorPower is CometBFT's bound on the total voting power
// (types.MaxTotalVotingPower); one validator's power cannot exceed it.
const MaxValidatorPower = int64(math.MaxInt64) / 8

// ValidatorUpdate is a change of a validator's power; Power 0 removes it.
type ValidatorUpdate struct {
	PubKey []byte // raw ed25519 consensus public key (32 bytes)
	Power  int64
}

func isValidatorStmt(sql string) bool {
	return sql == api.SystemValidatorAdd || sql == api.SystemValidatorPower || sql == api.SystemValidatorRemove
}

// valOp is a decoded validator statement.
type valOp struct {
	sql   string
	key   string // raw public key
	power int64  // 0 for a removal
	force bool
}

// parseValidator validates a validator statement's arguments: the key
// (bytes), the power (int, not for remove) and the force flag (bool).
func parseValidator(st txn.Statement) (valOp, error) {
	op := valOp{sql: st.SQL}
	want := []txn.ArgKind{txn.KindBytes, txn.KindInt, txn.KindBool}
	shape := "the validator's ed25519 consensus public key (bytes), its power (int) and force (bool)"
	if st.SQL == api.SystemValidatorRemove {
		want = []txn.ArgKind{txn.KindBytes, txn.KindBool}
		shape = "the validator's ed25519 consensus public key (bytes) and force (bool)"
	}
	if len(st.Args) != len(want) {
		return op, fmt.Errorf("%q takes %d arguments: %s", st.SQL, len(want), shape)
	}
	for i, k := range want {
		if st.Args[i].Kind != k {
			return op, fmt.Errorf("%q takes %s; argument %d is %s, want %s", st.SQL, shape, i+1, st.Args[i].Kind, k)
		}
	}
	key := st.Args[0].Bytes
	if len(key) != ed25519.PublicKeySize {
		return op, fmt.Errorf("%q: the validator's public key has %d bytes, want %d (ed25519)", st.SQL, len(key), ed25519.PublicKeySize)
	}
	if bytes.Equal(key, make([]byte, ed25519.PublicKeySize)) {
		return op, fmt.Errorf("%q: the validator's public key is all zeros", st.SQL)
	}
	op.key = string(key)
	op.force = st.Args[len(want)-1].Bool
	if st.SQL != api.SystemValidatorRemove {
		op.power = st.Args[1].Int
		if op.power <= 0 || op.power > MaxValidatorPower {
			return op, fmt.Errorf("%q: power %d is out of range: it must be between 1 and %d (use %q to remove a validator)", st.SQL, op.power, MaxValidatorPower, api.SystemValidatorRemove)
		}
	}
	return op, nil
}

// valSet is a validator set: power by raw public key.
type valSet map[string]int64

// with returns committed as changed by the overlays (outermost first; a
// power of 0 in an overlay removes the validator).
func (committed valSet) with(overlays ...valSet) valSet {
	out := make(valSet, len(committed)+1)
	for k, v := range committed {
		out[k] = v
	}
	for _, o := range overlays {
		for k, v := range o {
			if v == 0 {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
	}
	return out
}

// total is the set's voting power (bounded by MaxValidatorPower each).
func (s valSet) total() int64 {
	var t int64
	for _, v := range s {
		if t > math.MaxInt64-v {
			return math.MaxInt64
		}
		t += v
	}
	return t
}

// faultsTolerated is the number of validators that may fail (byzantine or
// down) with consensus still safe and live: the largest k such that the k
// most powerful validators hold less than one third of the power.
func (s valSet) faultsTolerated() int {
	powers := make([]int64, 0, len(s))
	for _, v := range s {
		powers = append(powers, v)
	}
	slices.Sort(powers)
	slices.Reverse(powers)
	total := s.total()
	k := 0
	var sum int64
	for _, p := range powers {
		// 3*(sum+p) < total, without overflow: every power and the
		// total are at most MaxInt64/8.
		if 3*(sum+p) >= total {
			break
		}
		sum += p
		k++
	}
	return k
}

// applyValidator judges op against the set as it stands (cur) and returns
// the new power of op's key, or why the change is refused. The rules are
// a function of the set alone, identical on every node.
func applyValidator(cur valSet, op valOp) (int64, string) {
	short := hex.EncodeToString([]byte(op.key))[:16] + "…"
	old, known := cur[op.key]
	switch {
	case op.sql == api.SystemValidatorAdd && known:
		return 0, fmt.Sprintf("validator %s is already in the set (power %d); use %q to change its power", short, old, api.SystemValidatorPower)
	case op.sql != api.SystemValidatorAdd && !known:
		return 0, fmt.Sprintf("validator %s is not in the set", short)
	}
	next := cur.with(valSet{op.key: op.power})
	if len(next) == 0 {
		return 0, "the change would remove the last validator: the chain could never commit again (refused even with force)"
	}
	if next.total() > MaxValidatorPower {
		return 0, fmt.Sprintf("the change would make the total voting power exceed %d", MaxValidatorPower)
	}
	before, after := cur.faultsTolerated(), next.faultsTolerated()
	if after < before && !op.force {
		return 0, fmt.Sprintf("the change would lower the number of validator faults the set tolerates from %d to %d (the %d most powerful validators would hold one third of the power or more); set force to do it anyway", before, after, after+1)
	}
	return op.power, ""
}

// updates lists a block's validator changes sorted by key (never in map
// order).
func (s valSet) updates() []ValidatorUpdate {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]ValidatorUpdate, len(keys))
	for i, k := range keys {
		out[i] = ValidatorUpdate{PubKey: []byte(k), Power: s[k]}
	}
	return out
}

func encodePower(p int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(p))
}

func decodePower(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("validator power has %d bytes, want 8", len(b))
	}
	p := int64(binary.BigEndian.Uint64(b))
	if p <= 0 || p > MaxValidatorPower {
		return 0, fmt.Errorf("validator power %d out of range", p)
	}
	return p, nil
}
