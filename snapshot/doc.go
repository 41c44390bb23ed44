// Package snapshot turns a node's checkpoints into CometBFT state-sync
// snapshots and assembles a snapshot received from peers back into a
// checkpoint file.
//
// A snapshot is one checkpoint file (SQLite: the VACUUM INTO copy;
// PostgreSQL: the pg_dump archive) cut into fixed-size chunks. Its
// metadata is a Manifest: the backend, the file's size, the chunk size and
// the SHA-256 of every chunk; the snapshot's hash is the SHA-256 of the
// metadata. A Receiver checks every chunk against the manifest as it
// arrives, so a corrupt chunk is refused (and its sender named) before it
// is written; the assembled file is then restored and verified against the
// AppHash the light client trusts by the node (see node/statesync.go): a
// snapshot whose chunks all match a lying manifest still fails there.
//
// Formats: Format (1) is a node's own checkpoint; PortableFormat (2) is a
// SQLite database speaking PostgreSQL's SQL, which a server-database
// validator of a network over several engines exports from its
// checkpoints so that nodes of every engine can join (node/portable.go).
// A Receiver takes a snapshot of another engine or format only when its
// node says it can restore it (Foreign, Portable).
//
// Nothing here enters consensus: snapshots are a node's own files, and
// what a node restores is checked against the chain before it is used.
package snapshot
