package statetree

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	ics23 "github.com/cosmos/ics23/go"
)

// MaxKeyLen is the longest key the trie accepts, in bytes. It bounds the
// trie's depth (see MaxDepth) and so the size of a proof.
const MaxKeyLen = 256

// MaxDepth is the longest path a proof may have: a path's inner nodes test
// strictly increasing critical bits, and the critical bit of two distinct
// prefix-free keys lies inside the shorter one, so a leaf is at most
// 8*MaxKeyLen inner nodes deep.
const MaxDepth = 8 * MaxKeyLen

// EmptyRootHash is the root hash of a tree with no keys: SHA-256 of the
// empty string, as CometBFT's merkle.HashFromByteSlices(nil). No leaf or
// inner node hashes to it (their preimages are never empty).
var EmptyRootHash = sha256.Sum256(nil)

var (
	// ErrEmptyKey: keys are at least one byte long.
	ErrEmptyKey = errors.New("statetree: empty key")
	// ErrKeyTooLong: keys are at most MaxKeyLen bytes long.
	ErrKeyTooLong = errors.New("statetree: key longer than MaxKeyLen")
	// ErrKeyPrefix: the keys of a tree must be prefix-free.
	ErrKeyPrefix = errors.New("statetree: key is a prefix of another key, or another key is a prefix of it")
	// ErrNotFound: the key is not in the snapshot.
	ErrNotFound = errors.New("statetree: key not found")
	// ErrValueMismatch: a value given to a prover does not hash to the
	// snapshot's value hash (the caller read another version of the row).
	ErrValueMismatch = errors.New("statetree: value does not match the snapshot's value hash")
	// ErrInvalidProof: a proof does not prove the claim.
	ErrInvalidProof = errors.New("statetree: invalid proof")
)

// spec is ics23.TendermintSpec with MaxDepth set. It is never handed out:
// ProofSpec returns a copy.
var spec = &ics23.ProofSpec{
	LeafSpec: &ics23.LeafOp{
		Prefix:       []byte{0},
		PrehashKey:   ics23.HashOp_NO_HASH,
		Hash:         ics23.HashOp_SHA256,
		PrehashValue: ics23.HashOp_SHA256,
		Length:       ics23.LengthOp_VAR_PROTO,
	},
	InnerSpec: &ics23.InnerSpec{
		ChildOrder:      []int32{0, 1},
		MinPrefixLength: 1,
		MaxPrefixLength: 1,
		ChildSize:       32,
		Hash:            ics23.HashOp_SHA256,
	},
	MaxDepth: MaxDepth,
}

// ProofSpec returns a copy of the ICS23 spec of the trie's proofs:
// ics23.TendermintSpec with MaxDepth. ics23's checks against it are
// necessary but not sufficient; see DESIGN.md, "Verifying a proof".
func ProofSpec() *ics23.ProofSpec {
	return &ics23.ProofSpec{
		LeafSpec: &ics23.LeafOp{
			Prefix:       []byte{0},
			PrehashKey:   spec.LeafSpec.PrehashKey,
			Hash:         spec.LeafSpec.Hash,
			PrehashValue: spec.LeafSpec.PrehashValue,
			Length:       spec.LeafSpec.Length,
		},
		InnerSpec: &ics23.InnerSpec{
			ChildOrder:      []int32{0, 1},
			MinPrefixLength: spec.InnerSpec.MinPrefixLength,
			MaxPrefixLength: spec.InnerSpec.MaxPrefixLength,
			ChildSize:       spec.InnerSpec.ChildSize,
			Hash:            spec.InnerSpec.Hash,
		},
		MaxDepth: spec.MaxDepth,
	}
}

// CheckKey reports whether key has an acceptable length. Prefix-freeness
// is a property of a set of keys: Tree.Set checks it.
func CheckKey(key []byte) error {
	switch {
	case len(key) == 0:
		return ErrEmptyKey
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrKeyTooLong, len(key), MaxKeyLen)
	}
	return nil
}

// LeafHash is the ICS23 TendermintSpec leaf of key and a value whose
// SHA-256 is valueHash: SHA256(0x00 | uvarint(len key) | key | 0x20 | valueHash).
func LeafHash(key []byte, valueHash [32]byte) [32]byte {
	var buf [1 + binary.MaxVarintLen64 + MaxKeyLen + 1 + 32]byte
	b := append(buf[:0], 0)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = append(b, 32)
	b = append(b, valueHash[:]...)
	return sha256.Sum256(b)
}

// innerHash is SHA256(0x01 | left | right).
func innerHash(left, right *[32]byte) [32]byte {
	var b [65]byte
	b[0] = 1
	copy(b[1:33], left[:])
	copy(b[33:], right[:])
	return sha256.Sum256(b[:])
}
