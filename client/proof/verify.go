package proof

import (
	"bytes"
	"errors"
	"fmt"

	ics23 "github.com/cosmos/ics23/go"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

var (
	// ErrRejected is wrapped by every error that says the response is
	// not a proven answer (the node lied, or sent something broken),
	// together with one of the errors below naming what failed.
	ErrRejected = errors.New("proof rejected")
	// ErrNotAuthenticated: the response proves that the table is not in
	// the tables map, so its rows are not authenticated. Not wrapped in
	// ErrRejected: ask f+1 nodes instead.
	ErrNotAuthenticated = errors.New("the table's rows are not authenticated (it is not in the tables map): compare f+1 nodes' answers instead")
	// ErrBadRequest: the request itself is malformed (api.ProofRequest.Check).
	ErrBadRequest = errors.New("malformed proof request")

	// ErrVersion: a protocol version before 4 has no authenticated state.
	ErrVersion = errors.New("protocol version without authenticated state")
	// ErrAppHash: version, base and tables root do not give the trusted
	// AppHash: a stale height, or a forged base or tables root.
	ErrAppHash = errors.New("wrong AppHash (a stale height, or a forged base or tables root)")
	// ErrWrongQuestion: the response answers another table, key, range
	// or height than asked.
	ErrWrongQuestion = errors.New("the response answers another question")
	// ErrMalformed: the response or its proof bytes do not parse, or
	// exceed the api limits.
	ErrMalformed = errors.New("unparsable response or proof")
	// ErrTableProof: the table's root, or its absence, is not proven in
	// the tables map.
	ErrTableProof = errors.New("the table's proof in the tables map does not verify")
	// ErrTamperedRow: a row's image or key is not the one the table holds.
	ErrTamperedRow = errors.New("tampered row")
	// ErrWrongKey: a point lookup's row has another key than asked.
	ErrWrongKey = errors.New("the row is for another key")
	// ErrMissingRow: a row the table holds is left out (a range with a
	// gap, a point lookup answered "absent" for a present key).
	ErrMissingRow = errors.New("missing row")
	// ErrExtraRow: a row the table does not hold, one outside the range,
	// or rows out of key order.
	ErrExtraRow = errors.New("extra row")
	// ErrBadProof: the proof does not prove the claim, for no more
	// specific reason above.
	ErrBadProof = errors.New("the proof does not prove the answer")
)

// Result is a verified answer.
type Result struct {
	Height  int64  // the block whose state was read
	Version uint64 // its protocol version
	Table   string
	// Range: the request was a key range; otherwise a point lookup,
	// which found its row when Rows holds one.
	Range bool
	Rows  []Row // in key order
}

// Row is one verified row.
type Row struct {
	Key     []byte            // canonical primary key (rowcanon.EncodeKey)
	Image   []byte            // canonical image (rowcanon.EncodeRow)
	Columns []rowcanon.Column // the image decoded
}

// Verify checks that resp answers req under appHash, the AppHash of
// block resp.Height that the caller took from a header it trusts (the
// header of height resp.Height+1). It returns the verified rows, or an
// error wrapping ErrRejected and the error naming what failed, or
// ErrNotAuthenticated (with the Result's Height, Version and Table set).
// It never panics.
func Verify(req api.ProofRequest, resp api.ProofResponse, appHash []byte) (Result, error) {
	if err := req.Check(); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if err := checkEnvelope(req, resp, appHash); err != nil {
		return Result{}, err
	}
	res := Result{Height: resp.Height, Version: resp.Version, Table: req.Table, Range: req.IsRange()}
	var root [32]byte
	copy(root[:], resp.TablesRoot)
	if len(resp.TableAbsence) != 0 || len(resp.Proof) == 0 {
		if err := verifyTableAbsent(root, req.Table, resp); err != nil {
			return Result{}, err
		}
		return res, fmt.Errorf("table %q at height %d: %w", req.Table, resp.Height, ErrNotAuthenticated)
	}
	if limit := proofLimit(req, resp.Rows); len(resp.Proof) > limit {
		return Result{}, reject(ErrMalformed, "proof of %d bytes, at most %d for this answer", len(resp.Proof), limit)
	}
	cp, err := statetree.UnmarshalChainedProof(resp.Proof)
	if err != nil {
		return Result{}, reject(ErrMalformed, "proof: %v", err)
	}
	if err := statetree.VerifyTable(root, req.Table, cp.Table); err != nil {
		return Result{}, reject(ErrTableProof, "%v", err)
	}
	if res.Rows, err = decodeRows(req.Table, resp.Rows); err != nil {
		return Result{}, err
	}
	if req.IsRange() {
		err = verifyRange(cp, req.Lo, req.Hi, res.Rows)
	} else {
		err = verifyPoint(cp, req.Key, res.Rows)
	}
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// maxEntryBytes bounds one ics23 ExistenceProof of the trie in
// protobuf: at most MaxDepth inner ops of about 40 bytes, a leaf op, a key
// (the value is counted with the rows).
const maxEntryBytes = 64*statetree.MaxDepth + 2*statetree.MaxKeyLen

// proofLimit is the most proof bytes an honest answer takes: the table's
// entry in the map and, in the table, the rows' entries and at most two
// neighbours, plus the rows' keys and images (which the entries repeat).
// Refusing more before parsing bounds what a hostile node makes a client
// allocate and hash to a multiple of the answer's size.
func proofLimit(req api.ProofRequest, rows []api.ProofRow) int {
	entries, data := 4, 0
	if req.IsRange() {
		entries += len(rows)
	}
	for _, r := range rows {
		data += len(r.Key) + len(r.Image)
	}
	return min(1+32+entries*maxEntryBytes+data, api.MaxProofBytes)
}

func reject(what error, format string, args ...any) error {
	return fmt.Errorf("%w: %w: "+format, append([]any{ErrRejected, what}, args...)...)
}

// checkEnvelope checks everything but the rows: limits, version, the
// question answered, and the AppHash.
func checkEnvelope(req api.ProofRequest, resp api.ProofResponse, appHash []byte) error {
	switch {
	case len(resp.Base) != 32 || len(resp.TablesRoot) != 32:
		return reject(ErrMalformed, "base of %d bytes, tables root of %d, want 32", len(resp.Base), len(resp.TablesRoot))
	case len(resp.Rows) > api.MaxProofRows:
		return reject(ErrMalformed, "%d rows, at most %d", len(resp.Rows), api.MaxProofRows)
	case len(resp.Proof) > api.MaxProofBytes || len(resp.TableAbsence) > api.MaxProofBytes:
		return reject(ErrMalformed, "proof longer than %d bytes", api.MaxProofBytes)
	case resp.Version < protocol.V4:
		return reject(ErrVersion, "version %d, want %d or later", resp.Version, protocol.V4)
	case resp.Table != req.Table:
		return reject(ErrWrongQuestion, "table %q, asked %q", resp.Table, req.Table)
	case !bytes.Equal(resp.Key, req.Key) || !bytes.Equal(resp.Lo, req.Lo) || !bytes.Equal(resp.Hi, req.Hi):
		return reject(ErrWrongQuestion, "key %x / range [%x, %x], asked key %x / range [%x, %x]", resp.Key, resp.Lo, resp.Hi, req.Key, req.Lo, req.Hi)
	case resp.Height <= 0 || (req.Height != 0 && resp.Height != req.Height):
		return reject(ErrWrongQuestion, "height %d, asked %d", resp.Height, req.Height)
	}
	var tables [32]byte
	copy(tables[:], resp.TablesRoot)
	if got := api.AuthenticatedAppHash(resp.Version, resp.Base, tables); !bytes.Equal(got, appHash) {
		return reject(ErrAppHash, "height %d: the response gives %X, the trusted header %X", resp.Height, got, appHash)
	}
	return nil
}

// verifyTableAbsent checks the proof that table is not in the map.
func verifyTableAbsent(root [32]byte, table string, resp api.ProofResponse) error {
	if len(resp.Rows) != 0 || len(resp.Proof) != 0 || len(resp.TableAbsence) == 0 {
		return reject(ErrMalformed, "a response must hold either a proof or the table's absence from the tables map, and rows only with a proof")
	}
	if limit := proofLimit(api.ProofRequest{Key: []byte{0}}, nil); len(resp.TableAbsence) > limit {
		return reject(ErrMalformed, "table absence of %d bytes, at most %d", len(resp.TableAbsence), limit)
	}
	p, err := statetree.UnmarshalCommitment(resp.TableAbsence)
	if err != nil {
		return reject(ErrMalformed, "table absence: %v", err)
	}
	key, err := statetree.TableKey(table)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if err := statetree.VerifyNonExistence(root, key, p); err != nil {
		return reject(ErrTableProof, "absence of table %q: %v", table, err)
	}
	return nil
}

// decodeRows decodes each image, which must be a row of table.
func decodeRows(table string, rows []api.ProofRow) ([]Row, error) {
	out := make([]Row, 0, len(rows))
	for i, r := range rows {
		name, cols, err := rowcanon.DecodeRow(r.Image)
		if err != nil {
			return nil, reject(ErrTamperedRow, "row %d (key %x): %v", i, r.Key, err)
		}
		if name != table {
			return nil, reject(ErrTamperedRow, "row %d (key %x) is a row of table %q", i, r.Key, name)
		}
		out = append(out, Row{Key: r.Key, Image: r.Image, Columns: cols})
	}
	return out, nil
}

// verifyPoint checks a point lookup's row, or its absence, in the table.
func verifyPoint(cp statetree.ChainedProof, key []byte, rows []Row) error {
	root := cp.Table.TableRoot
	switch len(rows) {
	case 0:
		if err := statetree.VerifyNonExistence(root, key, cp.Rows); err != nil {
			if ex := cp.Rows.GetExist(); ex != nil && statetree.VerifyExistence(root, key, ex.Value, cp.Rows) == nil {
				return reject(ErrMissingRow, "the table holds key %x, the node answered none", key)
			}
			return reject(ErrBadProof, "absence of key %x: %v", key, err)
		}
		return nil
	case 1:
		if !bytes.Equal(rows[0].Key, key) {
			return reject(ErrWrongKey, "row of key %x, asked %x", rows[0].Key, key)
		}
		if err := statetree.VerifyExistence(root, key, rows[0].Image, cp.Rows); err != nil {
			return reject(ErrTamperedRow, "key %x: %v", key, err)
		}
		return nil
	}
	return reject(ErrExtraRow, "%d rows for one key", len(rows))
}

// verifyRange checks that rows are the table's rows in [lo, hi].
func verifyRange(cp statetree.ChainedProof, lo, hi []byte, rows []Row) error {
	kvs := make([]statetree.KV, len(rows))
	for i, r := range rows {
		if bytes.Compare(r.Key, lo) < 0 || bytes.Compare(r.Key, hi) > 0 {
			return reject(ErrExtraRow, "row %d (key %x) is outside [%x, %x]", i, r.Key, lo, hi)
		}
		if i > 0 && bytes.Compare(rows[i-1].Key, r.Key) >= 0 {
			return reject(ErrExtraRow, "rows %d and %d are not in increasing key order", i-1, i)
		}
		kvs[i] = statetree.KV{Key: r.Key, Value: r.Image}
	}
	err := statetree.VerifyRange(cp.Table.TableRoot, lo, hi, kvs, cp.Rows)
	if err == nil {
		return nil
	}
	return diagnoseRange(cp, lo, hi, kvs, err)
}

// diagnoseRange names why a range failed to verify (err): only on that
// path, so an honest answer's entries are verified once.
func diagnoseRange(cp statetree.ChainedProof, lo, hi []byte, rows []statetree.KV, err error) error {
	entries, ok := rangeEntries(cp.Rows)
	if !ok {
		return reject(ErrBadProof, "%v", err)
	}
	var inside []statetree.KV
	for i, ex := range entries {
		one := &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Exist{Exist: ex}}
		if statetree.VerifyExistence(cp.Table.TableRoot, ex.Key, ex.Value, one) != nil {
			return reject(ErrTamperedRow, "the proof's entry %d (key %x) is not in the table: %v", i, ex.Key, err)
		}
		if bytes.Compare(ex.Key, lo) >= 0 && bytes.Compare(ex.Key, hi) <= 0 {
			inside = append(inside, statetree.KV{Key: ex.Key, Value: ex.Value})
		}
	}
	return compareRows(rows, inside, err)
}

// compareRows names the first difference between the rows claimed and
// the verified entries inside the range; with none, the entries leave a
// gap (err), through which rows are missing.
func compareRows(rows, inside []statetree.KV, err error) error {
	i, j := 0, 0
	for i < len(rows) && j < len(inside) {
		switch c := bytes.Compare(rows[i].Key, inside[j].Key); {
		case c < 0:
			return reject(ErrExtraRow, "key %x is not in the table", rows[i].Key)
		case c > 0:
			return reject(ErrMissingRow, "key %x is left out", inside[j].Key)
		case !bytes.Equal(rows[i].Value, inside[j].Value):
			return reject(ErrTamperedRow, "key %x: the image differs from the table's", rows[i].Key)
		}
		i, j = i+1, j+1
	}
	if i < len(rows) {
		return reject(ErrExtraRow, "key %x is not in the table", rows[i].Key)
	}
	if j < len(inside) {
		return reject(ErrMissingRow, "key %x is left out", inside[j].Key)
	}
	return reject(ErrMissingRow, "the proof is not complete (rows may be left out): %v", err)
}

// rangeEntries is the existence proofs of a (compressed) batch, or false.
func rangeEntries(p *ics23.CommitmentProof) (entries []*ics23.ExistenceProof, ok bool) {
	defer func() {
		if recover() != nil {
			entries, ok = nil, false
		}
	}()
	b := ics23.Decompress(p).GetBatch()
	if b == nil {
		return nil, false
	}
	for _, e := range b.Entries {
		ex := e.GetExist()
		if ex == nil {
			return nil, false
		}
		entries = append(entries, ex)
	}
	return entries, true
}
