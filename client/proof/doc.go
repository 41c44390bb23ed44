// Package proof verifies a node's answer to a proof request (api.ProofPath)
// on the client's side, trusting nothing the node says beyond what the
// proof shows (issue 36).
//
// The caller brings the AppHash of the block the response names, taken
// from a header it trusts: the header of height resp.Height+1, verified
// by a light client (not this package). Verify then checks, in order:
//
//  1. the response is well formed, of protocol version 4 or later, and
//     answers the request: the same table, the same key or range, the
//     height asked for (when one was);
//  2. SHA256("relchain/apphash/v6" | version | base | tables root) is the
//     trusted AppHash (api.AuthenticatedAppHash): a stale height, or a
//     forged base or tables root, fails here (ErrAppHash);
//  3. the rows against the tables root, through the table's root in the
//     tables map (statetree's chained proofs): a point lookup's row or its
//     absence, a range's rows complete in [lo, hi] and in key order; each
//     row image names the table asked for.
//
// A table that is not in the tables map has rows that are not
// authenticated (their values have no canonical form, or the storage
// has none): the node proves that absence, and Verify returns
// ErrNotAuthenticated. That is a verified statement, not a lie: the
// caller falls back to asking f+1 nodes and comparing their answers.
//
// Every other failure wraps ErrRejected and one of the errors naming
// what failed (ErrAppHash, ErrTamperedRow, ErrMissingRow, ErrExtraRow,
// ErrWrongQuestion, ErrMalformed, ...). Verify never panics, whatever the
// response holds, and refuses before parsing a proof longer than an
// honest answer of its shape (a point, or a range of as many rows) can
// be, so the memory and hashing a hostile node can cost a client grow
// with the answer, not with api.MaxProofBytes.
//
// The package links no database driver, parser or backend: statetree and
// rowcanon only (internal/lint).
package proof
