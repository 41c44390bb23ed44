package sqlcheck

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// Analysis is what an accepted statement does, as far as relchain's on-chain
// permissions are concerned. It is a function of the statement text (and,
// for dialects whose gate runs inside the engine, of the replicated schema),
// never of the node.
type Analysis struct {
	// DDL: the statement creates, alters or drops a schema object (table,
	// index, view, trigger, function, procedure). Only admins may.
	DDL bool
	// Writes are the tables the statement itself inserts into, updates or
	// deletes from (including data-modifying CTEs), normalized (unquoted
	// lower-case unless quoted, the default schema's qualifier dropped),
	// sorted and without duplicates. Writes a trigger or function body does
	// are the object owner's (an admin's) decision and are not listed.
	Writes []string
	// UsesEnv: the dialect's gate accepted the statement only on condition
	// that it is executed as rewritten with the tx's Env (for PostgreSQL:
	// backend/postgres/pggate.Rewrite): it reads the clock or random numbers, or
	// (PostgreSQL) the gate fixed the input order of its aggregates. When
	// false, the text runs as it is and rewriting can be skipped.
	UsesEnv bool
	// Params is the number of arguments the statement takes: its highest
	// placeholder index ($n on PostgreSQL; ?, ?NNN and named parameters
	// on SQLite, as sqlite3_bind_parameter_count counts them; ? on MySQL).
	// A function of the text alone. ParamsUnknown when the gate could not
	// count them yet (SQLite: the statement does not compile on committed
	// state, say because an earlier tx of the block creates its table);
	// the block's analysis then counts them. The executor refuses a
	// statement given another number of arguments (code 6).
	Params int
	// BeyondPostgres: a storage that translates PostgreSQL's SQL accepted
	// the statement though PostgreSQL's own gate refuses it (SQLite's
	// ALTER TABLE ... RENAME: pgdialect.BeyondGate). A network over
	// several engines refuses it on every node, since its PostgreSQL
	// validators cannot run it.
	BeyondPostgres bool
}

// ParamsUnknown is Analysis.Params when the gate could not count the
// statement's parameters.
const ParamsUnknown = -1

// Env is the deterministic environment one bc-transaction executes in.
// Where a dialect rewrites clock and random functions, they read from here:
// every node sees the same values for the same tx of the same block.
type Env struct {
	// Time is the block's consensus time (CometBFT's BFT time, UTC).
	Time time.Time
	// Seed seeds the tx's random-number generator.
	Seed [32]byte
	// Tx is the tx's 0-based index in its block. The backend tags the
	// row changes the tx makes with it (backend.Changes.Effects); it does
	// not influence what any statement computes.
	Tx int
	// Protocol is the protocol version of the block (package protocol;
	// 0 counts as 1), for the rules a backend applies by version.
	Protocol uint64
}

// NewEnv derives the environment of tx number index (0-based) of the block
// with the given hash and time.
func NewEnv(blockTime time.Time, blockHash []byte, index int) Env {
	h := sha256.New()
	h.Write([]byte("relchain/seed/v1"))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(blockHash)))
	h.Write(n[:])
	h.Write(blockHash)
	binary.BigEndian.PutUint64(n[:], uint64(index))
	h.Write(n[:])
	var e Env
	copy(e.Seed[:], h.Sum(nil))
	e.Time = blockTime.UTC()
	e.Tx = index
	return e
}
