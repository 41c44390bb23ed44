package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/statedigest"
)

// The AppHash and what it commits to.
//
//	AppHash(h) = H("relchain/apphash/v4" | AppHash(h-1) | h | H(results) | change digest | state)
//	             (protocol version 1)
//	AppHash(h) = H("relchain/apphash/v5" | version | AppHash(h-1) | h | H(results) | change digest | state)
//	             (protocol version 2 and later: see AppHashInputs.Protocol)
//	AppHash(h) = H("relchain/apphash/v6" | version | base | tables root)
//	             (protocol version 4 and later), where base is the v5
//	             form above: the authenticated state (authstate.go)
//	state      = H("relchain/state/v2" | tables digest | system sum)
//	AppHash(h) = H("relchain/apphash/v6" | version | base7 | tables root)
//	             (protocol version 5 and later: canonical), where
//	base7      = H("relchain/apphash/v7" | version | AppHash(h-1) | h | H(results) | system sum | sequences)
//
// From version 5 on the AppHash commits to canonical state only, the same
// on every database engine (issue 37): results whose unordered rows are in
// canonical order and whose effect digests are of canonical rows
// (canonicalEffects), the system state's sum, the sequences' canonical
// state (backend.CanonicalSequences) and the tables map. The engine's own
// change and state digests are still computed, node-local: the divergence
// checks and `relchain verify` use them, and an empty block on a database
// changed outside the chain still gets another AppHash (its height enters
// the preimage).
//
// From version 4 on the AppHash also commits to the root of the tables
// map (statetree.Tables over each authenticated table's statetree), at a
// fixed place: a client holding a header proves a row with base (32
// bytes, from the node), the map root and a chained statetree proof,
// without the rest of the preimage.
//
// H(results) covers each tx's code and data (the deterministic part of a
// result, which for a successful tx includes its effect digest: the
// backend's digest of the row changes that tx made, so that the first
// differing tx can be named when nodes disagree); the change digest is the backend's digest of every row change
// the block captured; the tables digest (package statedigest) covers every
// row of every replicated table after the block, and the system sum every
// entry of relchain's system state (replay windows, grants), an LtHash
// kept up to date from the entries each block writes. The change digest
// pins what the block did; the state pins everything a node holds, so a
// node whose database deviated for any reason computes another AppHash.
//
// The block's inputs (everything before "state") are stored in the
// system state with the block (key apphashKey, itself outside the system
// sum), so that a database can be checked against an AppHash on its own:
// a checkpoint restored by `relchain recover` or a snapshot received by
// state sync (VerifyState) is scanned and must reproduce the AppHash the
// chain signed.
//
// A block without txs that leaves the state unchanged leaves the AppHash
// (and the stored inputs) unchanged: otherwise every block would change
// the AppHash and CometBFT would follow each with an empty proof block,
// forever.

// apphashKey is the system-state key of the inputs of the last AppHash.
const apphashKey = "apphash"

// systemTable names the system state's pseudo-table in its LtHash
// elements; no SQL table name can contain a NUL byte.
const systemTable = "\x00relchain/system"

// AppHashInputs is everything an AppHash commits to except the state.
type AppHashInputs struct {
	// Protocol is the protocol version of the block (0 counts as 1).
	// From version 2 on the AppHash commits to it:
	//
	//	AppHash(h) = H("relchain/apphash/v5" | version | AppHash(h-1) | h | ...)
	//
	// the rest as above; version 1 blocks keep the v4 form unchanged.
	Protocol uint64
	Prev     []byte
	Height   int64
	Results  [sha256.Size]byte
	Changes  []byte
	// Tables is the root of the tables map after the block (version 4
	// and later; authstate.go). It is not stored with the inputs: a
	// database's rows give it again (AppHashOf).
	Tables [32]byte
	// System and Sequences are the system state's sum and the sequences'
	// canonical digest (SequencesDigest) after the block, version 5 and
	// later: not stored either, the database gives them again.
	System    statedigest.Sum
	Sequences [32]byte
	// Canonical: the inputs are of the canonical form (base7): a block
	// of version 5 or later on a network speaking PostgreSQL's SQL
	// (Executor.canonicalAt). Stored (format 3), so that a database
	// alone says which form its AppHash has.
	Canonical bool
}

// AppHash is the AppHash of these inputs over state (StateDigest).
func (in AppHashInputs) AppHash(state []byte) []byte {
	base := in.base(state)
	if in.Protocol < protocol.V4 {
		return base
	}
	return api.AuthenticatedAppHash(in.Protocol, base, in.Tables)
}

// base is the AppHash of versions 1 to 3, and the base of later ones.
func (in AppHashInputs) base(state []byte) []byte {
	if in.Canonical {
		return in.canonicalBase()
	}
	h := sha256.New()
	var n [8]byte
	if in.Protocol >= protocol.V2 {
		h.Write([]byte("relchain/apphash/v5"))
		binary.BigEndian.PutUint64(n[:], in.Protocol)
		h.Write(n[:])
	} else {
		h.Write([]byte("relchain/apphash/v4"))
	}
	binary.BigEndian.PutUint64(n[:], uint64(len(in.Prev)))
	h.Write(n[:])
	h.Write(in.Prev)
	binary.BigEndian.PutUint64(n[:], uint64(in.Height))
	h.Write(n[:])
	h.Write(in.Results[:])
	binary.BigEndian.PutUint64(n[:], uint64(len(in.Changes)))
	h.Write(n[:])
	h.Write(in.Changes)
	h.Write(state)
	return h.Sum(nil)
}

// canonicalBase is base7, the base of version 5 and later: no digest of
// the engine's own.
func (in AppHashInputs) canonicalBase() []byte {
	h := sha256.New()
	var n [8]byte
	h.Write([]byte("relchain/apphash/v7"))
	binary.BigEndian.PutUint64(n[:], in.Protocol)
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], uint64(len(in.Prev)))
	h.Write(n[:])
	h.Write(in.Prev)
	binary.BigEndian.PutUint64(n[:], uint64(in.Height))
	h.Write(n[:])
	h.Write(in.Results[:])
	h.Write(in.System[:])
	h.Write(in.Sequences[:])
	return h.Sum(nil)
}

// encode is the stored form: format 1, then the fields length-prefixed;
// from protocol version 2 on, format 2: the protocol version (uvarint)
// before the fields; canonical inputs, format 3: as format 2 (their
// change digest is empty).
func (in AppHashInputs) encode() []byte {
	b := []byte{1}
	switch {
	case in.Canonical:
		b = binary.AppendUvarint([]byte{3}, in.Protocol)
	case in.Protocol >= protocol.V2:
		b = binary.AppendUvarint([]byte{2}, in.Protocol)
	}
	b = binary.AppendUvarint(b, uint64(len(in.Prev)))
	b = append(b, in.Prev...)
	b = binary.AppendUvarint(b, uint64(in.Height))
	b = append(b, in.Results[:]...)
	b = binary.AppendUvarint(b, uint64(len(in.Changes)))
	return append(b, in.Changes...)
}

func decodeAppHashInputs(b []byte) (AppHashInputs, error) {
	var in AppHashInputs
	bad := errors.New("malformed AppHash inputs")
	if len(b) == 0 || b[0] < 1 || b[0] > 3 {
		return in, fmt.Errorf("AppHash inputs of unknown version (written by a newer relchain?)")
	}
	format := b[0]
	b = b[1:]
	if format >= 2 {
		v, k := binary.Uvarint(b)
		if k <= 0 || v < protocol.V2 || (format == 3 && !protocol.Canonical(v)) {
			return in, bad
		}
		in.Protocol, in.Canonical, b = v, format == 3, b[k:]
	}
	field := func() ([]byte, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, false
		}
		f := b[k : k+int(n)]
		b = b[k+int(n):]
		return f, true
	}
	prev, ok := field()
	if !ok {
		return in, bad
	}
	height, k := binary.Uvarint(b)
	if k <= 0 || len(b)-k < sha256.Size {
		return in, bad
	}
	b = b[k:]
	copy(in.Results[:], b)
	b = b[sha256.Size:]
	changes, ok := field()
	if !ok || len(b) != 0 {
		return in, bad
	}
	in.Prev, in.Height, in.Changes = bytes.Clone(prev), int64(height), bytes.Clone(changes)
	return in, nil
}

// ResultsHash is H(results): each tx's code and length-prefixed data.
func ResultsHash(results []TxResult) [sha256.Size]byte {
	rh := sha256.New()
	var n [8]byte
	for _, r := range results {
		binary.BigEndian.PutUint32(n[:4], r.Code)
		rh.Write(n[:4])
		binary.BigEndian.PutUint64(n[:], uint64(len(r.Data)))
		rh.Write(n[:])
		rh.Write(r.Data)
	}
	var out [sha256.Size]byte
	rh.Sum(out[:0])
	return out
}

// StateDigest combines the tables digest (Block.StateDigest,
// statedigest.Tables.Digest) with the system state's sum.
func StateDigest(tables []byte, system *statedigest.Sum) []byte {
	h := sha256.New()
	h.Write([]byte("relchain/state/v2"))
	h.Write(tables)
	h.Write(system[:])
	return h.Sum(nil)
}

// ComputeAppHash is AppHashInputs{prev, height, ResultsHash(results),
// changes}.AppHash(state).
func ComputeAppHash(prev []byte, height int64, results []TxResult, changes, state []byte) []byte {
	return AppHashInputs{Prev: prev, Height: height, Results: ResultsHash(results), Changes: changes}.AppHash(state)
}

// systemElement is the LtHash element of one system-state entry.
func systemElement(key string, value []byte) []byte {
	img := binary.AppendUvarint(nil, uint64(len(key)))
	img = append(img, key...)
	return statedigest.Row([]byte(systemTable), append(img, value...))
}

// SystemSum is the LtHash of a system state: every entry but the AppHash
// inputs.
func SystemSum(kv map[string][]byte) statedigest.Sum {
	var s statedigest.Sum
	for k, v := range kv {
		if k != apphashKey {
			s.Add(systemElement(k, v))
		}
	}
	return s
}

// updateSystemSum returns sum after replacing the entries of kv (a nil
// value deletes) whose committed values are in committed. LtHash addition
// commutes, so map order cannot change the result.
func updateSystemSum(sum statedigest.Sum, committed, kv map[string][]byte) statedigest.Sum {
	for k := range kv {
		if old, ok := committed[k]; ok {
			sum.Remove(systemElement(k, old))
		}
		if v := kv[k]; v != nil {
			sum.Add(systemElement(k, v))
		}
	}
	return sum
}

// ErrStateMismatch is wrapped by VerifyState when a database does not
// reproduce its AppHash.
var ErrStateMismatch = errors.New("the database does not reproduce its AppHash")

// VerifyState checks a database that no block is writing to (a staged
// checkpoint or snapshot, a stopped node) against the AppHash it
// records: it scans every replicated table, reads the system state and the
// inputs of the last AppHash, and recomputes it. It also checks that the
// scan agrees with the stored table sums. It returns the state verified.
// The caller compares that state's AppHash with the chain's.
func VerifyState(ctx context.Context, be backend.Backend) (backend.State, error) {
	st, err := be.LoadState(ctx)
	if err != nil {
		return st, fmt.Errorf("load state: %w", err)
	}
	if st.Height == 0 {
		return st, fmt.Errorf("the database holds no block")
	}
	stored, h1, err := be.StoredState(ctx)
	if err != nil {
		return st, fmt.Errorf("load the stored table sums: %w", err)
	}
	scanned, h2, err := be.ScanState(ctx)
	if err != nil {
		return st, fmt.Errorf("scan the tables: %w", err)
	}
	if h1 != st.Height || h2 != st.Height {
		return st, fmt.Errorf("the database changed while it was verified (heights %d, %d, %d)", st.Height, h1, h2)
	}
	if diff := statedigest.Diff(stored, scanned); len(diff) > 0 {
		return st, fmt.Errorf("%w: tables %v differ from their stored sums", ErrStateMismatch, diff)
	}
	kv, err := be.LoadSystem(ctx)
	if err != nil {
		return st, fmt.Errorf("load system state: %w", err)
	}
	got, err := AppHashOf(scanned.Digest(), kv, func() ([32]byte, error) { return AuthenticatedRoot(ctx, be) },
		func() ([32]byte, error) { return SequencesOf(ctx, be) })
	if err != nil {
		return st, err
	}
	if !bytes.Equal(got, st.AppHash) {
		return st, fmt.Errorf("%w: its contents give AppHash %X, it records %X at height %d", ErrStateMismatch, got, st.AppHash, st.Height)
	}
	return st, nil
}

// AppHashOf recomputes the AppHash a database's contents commit to: the
// digest of its tables (statedigest.Tables.Digest of a full scan), its
// system state, which holds the inputs of the last AppHash, and, when
// that block is of version 4 or later, the root of its authenticated
// state, which authRoot rebuilds from the rows (AuthenticatedRoot), and
// from version 5 on the sequences' digest, which sequences reads
// (SequencesOf).
func AppHashOf(tables []byte, system map[string][]byte, authRoot, sequences func() ([32]byte, error)) ([]byte, error) {
	raw, ok := system[apphashKey]
	if !ok {
		return nil, fmt.Errorf("%w: it records no AppHash inputs (written by an older relchain?)", ErrStateMismatch)
	}
	in, err := decodeAppHashInputs(raw)
	if err != nil {
		return nil, err
	}
	if in.Protocol >= protocol.V4 {
		if in.Tables, err = authRoot(); err != nil {
			return nil, err
		}
	}
	sys := SystemSum(system)
	if in.Canonical {
		if in.Sequences, err = sequences(); err != nil {
			return nil, err
		}
		in.System = sys
	}
	return in.AppHash(StateDigest(tables, &sys)), nil
}
