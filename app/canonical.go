// Protocol version 5's canonical parts of a block's outcome (issue 37):
// what makes the AppHash the same on every database engine.

package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
)

// canonicalAt reports whether blocks of version v follow the canonical
// rules: version 5 or later (protocol.Canonical) on a network speaking
// PostgreSQL's SQL. A network that does not reaches version 5 only by an
// upgrade a node of an older release admitted (this release's CheckTx
// refuses it, canonicalUpgrade; a block cannot, since releases that do
// not know version 5 would judge it otherwise): its blocks keep version
// 4's rules, the same on every node.
func (e *Executor) canonicalAt(v uint64) bool {
	return protocol.Canonical(v) && e.pgSQL
}

// canonicalOrder puts the rows of a result whose statement fixes no order
// (backend.Rows.Unordered) in canonical order: by the bytes of each row's
// JSON, as the tx's result data holds it. Each engine returns such rows
// in an order of its own (PostgreSQL storage sorts them by their text,
// SQLite's scan order is by value), and the results enter the AppHash.
func canonicalOrder(r *backend.Rows) {
	if !r.Unordered || len(r.Rows) < 2 {
		return
	}
	type keyed struct {
		key []byte
		row []any
	}
	ks := make([]keyed, len(r.Rows))
	for i, row := range r.Rows {
		ks[i] = keyed{encodeJSON(row), row}
	}
	sort.SliceStable(ks, func(i, j int) bool { return bytes.Compare(ks[i].key, ks[j].key) < 0 })
	for i := range ks {
		r.Rows[i] = ks[i].row
	}
}

// canonicalEffects are the effect digests of version 5: for each tx, the
// digest of the canonical rows its change records named, each as the
// block left it (table, key, image; a deleted row has no image), in the
// delta's order (tables by name, keys by bytes). Nil for a block whose
// delta named no rows (a block that changed the schema is read whole and
// carries none); a tx that changed nothing has none. Either way it is the
// same on every engine, and nodes that disagree on a block can name the
// first tx whose rows differ.
func canonicalEffects(d *backend.CanonicalDelta) map[int][]byte {
	if d == nil {
		return nil
	}
	hs := make(map[int]hashWriter)
	var n [8]byte
	field := func(h hashWriter, b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, td := range d.Tables {
		for _, c := range td.Rows {
			for _, tx := range c.Txs {
				h, ok := hs[tx]
				if !ok {
					h = sha256.New()
					h.Write([]byte("relchain/effects/v1"))
					hs[tx] = h
				}
				field(h, []byte(td.Table))
				field(h, c.Key)
				if c.Image == nil {
					h.Write([]byte{0})
				} else {
					h.Write([]byte{1})
					field(h, c.Image)
				}
			}
		}
	}
	out := make(map[int][]byte, len(hs))
	for tx, h := range hs {
		out[tx] = h.Sum(nil)
	}
	return out
}

// hashWriter is the part of hash.Hash canonicalEffects uses.
type hashWriter interface {
	Write([]byte) (int, error)
	Sum([]byte) []byte
}

// SequencesDigest is the digest of every sequence's canonical state
// (backend.CanonicalSequenceReader), sorted by name: version 5's AppHash
// commits to it.
func SequencesDigest(seqs []backend.SequenceState) [32]byte {
	h := sha256.New()
	h.Write([]byte("relchain/sequences/v1"))
	var n [8]byte
	put := func(v uint64) {
		binary.BigEndian.PutUint64(n[:], v)
		h.Write(n[:])
	}
	put(uint64(len(seqs)))
	for _, s := range seqs {
		put(uint64(len(s.Name)))
		h.Write([]byte(s.Name))
		put(uint64(s.LastValue))
		put(uint64(s.Increment))
		put(uint64(s.Min))
		put(uint64(s.Max))
		h.Write([]byte{boolByte(s.IsCalled), boolByte(s.Cycle)})
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// SequencesOf is the sequences' digest of a database's committed state
// (SequencesDigest), for checking it against its AppHash (AppHashOf).
func SequencesOf(ctx context.Context, be backend.Backend) ([32]byte, error) {
	return sequencesOf(ctx, be)
}

// sequencesOf reads r's sequences (a Block's or a Backend's) and digests
// them; storage that has none to give (no CanonicalSequenceReader) cannot
// run version 5.
func sequencesOf(ctx context.Context, r any) ([32]byte, error) {
	sr, ok := r.(backend.CanonicalSequenceReader)
	if !ok {
		return [32]byte{}, fmt.Errorf("this storage (%T) has no canonical sequences: protocol version 5 needs PostgreSQL's SQL", r)
	}
	seqs, err := sr.CanonicalSequences(ctx)
	if err != nil {
		return [32]byte{}, fmt.Errorf("sequences: %w", err)
	}
	return SequencesDigest(seqs), nil
}

// errSchemaChecked ends schemaLeftOut's read of a table at its first
// row: the schema's refusals come before any row.
var errSchemaChecked = errors.New("schema checked")

// canonicalSchema is version 5's rule that DDL keep every table in the
// tables map, checked after a tx's DDL (statement is its last DDL
// statement; before, the tables without canonical form before its first):
// the tx fails, naming the table and why, when its DDL left a table
// without canonical form that was not so before (no primary key, a
// column type rowcanon has no form for). Left out, its rows would be
// covered by no AppHash: version 5 commits to canonical state only. A
// table that was already out (created under version 4) does not fail
// other DDL, so tables can be given keys one at a time. A value without
// form (a numeric NaN) is not the schema's: such a table is left out of
// the map as under version 4 (authstate.go).
func canonicalSchema(ctx context.Context, blk backend.Block, statement int, before map[string]error) (*wlFailure, error) {
	after, err := schemaLeftOut(ctx, blk)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(after))
	for name := range after {
		if _, was := before[name]; !was {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	slices.Sort(names)
	why := "has no primary key"
	if !errors.Is(after[names[0]], backend.ErrNoPrimaryKey) {
		why = fmt.Sprintf("has a column type without canonical form (%v)", after[names[0]])
	}
	return execFailureOf(statement, &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
		Message: fmt.Sprintf("protocol version 5 keeps every table in the authenticated state: table %s %s; give it a primary key and column types with canonical form (docs/authenticated-state.md)", names[0], why)}), nil
}

// schemaLeftOut lists the tables of the block's schema that have no
// canonical form, with why.
func schemaLeftOut(ctx context.Context, blk backend.Block) (map[string]error, error) {
	cb, ok := blk.(backend.CanonicalBlock)
	if !ok {
		return nil, fmt.Errorf("protocol version 5: this storage has no canonical rows")
	}
	names, err := cb.CanonicalTables(ctx)
	if err != nil {
		return nil, fmt.Errorf("protocol version 5: list the tables: %w", err)
	}
	out := make(map[string]error)
	for _, name := range names {
		err := cb.CanonicalTableRows(ctx, name, func(_, _ []byte) error { return errSchemaChecked })
		switch {
		case err == nil, errors.Is(err, errSchemaChecked), errors.Is(err, backend.ErrValueNotCanonical):
		case errors.Is(err, backend.ErrNoPrimaryKey), errors.Is(err, backend.ErrNoCanonicalForm):
			out[name] = err
		default:
			return nil, fmt.Errorf("protocol version 5: check table %s: %w", name, err)
		}
	}
	return out, nil
}

// CanonicalInputs reports whether a database's system state records
// canonical AppHash inputs (protocol version 5 on a network speaking
// PostgreSQL's SQL): an AppHash any engine holding the same canonical
// state reproduces.
func CanonicalInputs(system map[string][]byte) bool {
	raw, ok := system[apphashKey]
	if !ok {
		return false
	}
	in, err := decodeAppHashInputs(raw)
	return err == nil && in.Canonical
}
