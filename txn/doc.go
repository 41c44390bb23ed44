// Package txn defines the bc-transaction envelope: one or more SQL statements
// with positional parameters and typed arguments, the chain id, the client's
// ed25519 public key, a nonce and a signature over everything else.
//
// The encoding is canonical: Decode rejects any byte string that Encode would
// not produce for the decoded value, so every validator sees exactly one
// meaning for a given tx and the tx hash (SHA-256 of the bytes, as CometBFT
// computes it) identifies the bc-transaction.
//
// The package also defines the signed request of a rehearsal (Rehearsal,
// SignRehearsal; api.RehearsePath), which reuses the envelope's statement
// encoding and is signed under its own domain tag.
//
// The package depends on the standard library only.
package txn
