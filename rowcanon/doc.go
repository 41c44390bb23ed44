// Package rowcanon is the engine-independent, versioned encoding of rows
// that the digests, the authenticated state and its proofs share: a
// typed value model (Value, built by validating constructors), the
// order-preserving key of a primary-key tuple (EncodeKey, DecodeKey) and
// the canonical image of a row (EncodeRow, DecodeRow) with its leaf hash
// (LeafHash, SHA-256).
//
// A backend maps each column's declared type to a Kind and each stored
// value to a Value; a type without a canonical form has no Kind and is
// refused. The byte-level specification, precise enough for another
// implementation, is DESIGN.md beside this file; testdata/golden.txt
// holds test vectors that any implementation must reproduce.
//
// The package depends on the standard library and
// github.com/google/orderedcode (whose byte-string encoding it uses)
// only, so that clients verifying proofs can import it.
package rowcanon
