// Package statetree is relchain's authenticated state (issue 36): for each
// replicated table a binary Merkle crit-bit trie keyed by the table's
// order-preserving, prefix-free primary-key encoding, whose values are
// SHA-256 hashes of row images, and a tables map (the same trie over table
// names) whose root commits to every table. Proofs are standard ICS23
// CommitmentProofs (github.com/cosmos/ics23/go), hashed exactly as
// ics23.TendermintSpec; ProofSpec adds a MaxDepth. DESIGN.md says why, and
// specifies the range-completeness rule and the checks a verifier adds to
// ics23's.
//
// # Writing and reading
//
// One writer changes a Tree (Set, Delete) and calls Commit once per block;
// Commit returns a Root, an immutable snapshot built by path copying.
// Roots are safe for concurrent use, also while the writer applies the
// next block, so a reader can prove against height h during h+1. A Root is
// garbage once no one holds it.
//
//	tr := statetree.New()
//	_ = tr.Set(key, sha256.Sum256(rowImage))
//	root := tr.Commit()          // root.Hash() goes into the tables map
//	p, _ := root.ProveExistence(key, rowImage)
//	err := statetree.VerifyExistence(root.Hash(), key, rowImage, p)
//
// The trie holds value hashes, not rows. A prover therefore takes the row
// images from the caller (ValueFunc for the neighbours a proof names),
// read from the same version as the Root, and refuses an image whose hash
// differs from the snapshot's (ErrValueMismatch): the proof's ICS23 value
// is the row image, which the spec's PrehashValue hashes.
//
// # Keys
//
// Keys are 1 to MaxKeyLen bytes, and the keys of one tree must be
// prefix-free (no key is a proper prefix of another), which is what makes
// byte order, crit-bit order and ICS23's neighbour checks agree. Set
// refuses a key that breaks either rule (ErrEmptyKey, ErrKeyTooLong,
// ErrKeyPrefix) and leaves the tree unchanged. A fixed-length encoding, or
// one with a terminator that cannot occur inside it (TableKey appends 0x00
// to a table name), is prefix-free.
//
// # Proofs
//
//   - ProveExistence: an ExistenceProof (VerifyExistence).
//   - ProveNonExistence: a NonExistenceProof of the two neighbours in a
//     compressed batch of one (VerifyNonExistence).
//   - ProveRange: a compressed batch of ExistenceProofs of the rows in
//     [lo, hi] and the nearest row outside each end (VerifyRange).
//   - Tables.ProveTable and the VerifyChained functions: a row claim in a
//     table, chained to the table's root in the tables map.
//
// The empty tree's root hash is EmptyRootHash (SHA-256 of nothing). It has
// no existence proofs; its absence proof is a NonExistenceProof with no
// neighbours and its range proof a batch with no entries, which only this
// package's verifiers accept, and only against EmptyRootHash.
//
// Verifiers never panic, whatever the proof; their errors wrap
// ErrInvalidProof when the proof does not prove the claim.
package statetree
