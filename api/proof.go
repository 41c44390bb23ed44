package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// ProofPath is the abci_query path of verified reads (issue 36): the
// request data is a ProofRequest, the response value a ProofResponse.
// A node of protocol version 4 or later serves it for its latest
// committed block (app.Executor.Prove); the client side (package
// client/proof) verifies a response against an AppHash the caller
// trusts and believes nothing else the node says.
const ProofPath = "/proof"

// Limits of a proof request and response. A node refuses a range whose
// answer would hold more than MaxProofRows rows (the client narrows the
// range); a verifier refuses a response beyond these limits before any
// other work.
const (
	// MaxProofKeyLen is the longest key a proof request names: the
	// authenticated state's longest key (statetree.MaxKeyLen), plus one
	// byte so that a range's hi can lie above every key.
	MaxProofKeyLen = 257
	// MaxProofRows is the most rows one response carries.
	MaxProofRows = 10000
	// MaxProofBytes bounds the encoded proof (ProofResponse.Proof and
	// ProofResponse.TableAbsence each).
	MaxProofBytes = 32 << 20
)

// ProofRequest asks for rows of one table with a proof: either one key
// (a point lookup, which proves the row or its absence) or the inclusive
// key range [Lo, Hi] (which proves that no row in it is left out). Keys
// are canonical primary keys: rowcanon.EncodeKey of the primary-key
// values, the keys of the table's authenticated state. In JSON, byte
// strings are base64.
type ProofRequest struct {
	Table string `json:"table"`
	// Key is a point lookup's key (1 to MaxProofKeyLen-1 bytes); empty
	// for a range.
	Key []byte `json:"key,omitempty"`
	// Lo and Hi bound a range, both inclusive and compared bytewise: an
	// empty Lo is "from the first row"; Hi is non-empty, at least Lo, and
	// Hi = MaxProofKeyLen bytes 0xff is above every key.
	Lo []byte `json:"lo,omitempty"`
	Hi []byte `json:"hi,omitempty"`
	// Height is the block whose state is read; 0 is the latest.
	Height int64 `json:"height,omitempty"`
}

// IsRange reports whether r asks for a key range (else a point lookup).
func (r ProofRequest) IsRange() bool { return len(r.Key) == 0 }

// Check reports whether r is a well-formed request.
func (r ProofRequest) Check() error {
	switch {
	case r.Table == "":
		return errors.New("proof request: no table")
	case r.Height < 0:
		return fmt.Errorf("proof request: height %d", r.Height)
	case !r.IsRange() && (len(r.Lo) != 0 || len(r.Hi) != 0):
		return errors.New("proof request: both a key and a range")
	case len(r.Key) >= MaxProofKeyLen:
		return fmt.Errorf("proof request: key of %d bytes, at most %d", len(r.Key), MaxProofKeyLen-1)
	case r.IsRange() && len(r.Hi) == 0:
		return errors.New("proof request: neither a key nor a range's hi")
	case len(r.Lo) > MaxProofKeyLen || len(r.Hi) > MaxProofKeyLen:
		return fmt.Errorf("proof request: range bound longer than %d bytes", MaxProofKeyLen)
	case r.IsRange() && bytes.Compare(r.Lo, r.Hi) > 0:
		return errors.New("proof request: lo above hi")
	}
	return nil
}

// ProofRow is one row of a ProofResponse: its canonical key and its
// canonical image (rowcanon.EncodeRow, which names the table).
type ProofRow struct {
	Key   []byte `json:"key"`
	Image []byte `json:"image"`
}

// ProofResponse is a node's answer to a ProofRequest, with what a client
// needs to check it against an AppHash of protocol version 4 or later:
//
//	AppHash = AuthenticatedAppHash(Version, Base, TablesRoot)
//
// Height is the block whose state was read; its AppHash is in the
// CometBFT header of height Height+1 (a header carries the AppHash of
// the block before it), which the client obtains from a source it trusts
// (a light client). Table, Key, Lo and Hi repeat the question answered:
// a client checks that they are its own.
//
// Proof is a statetree.ChainedProof in its wire form
// (statetree.ChainedProof.Marshal: the table's root, the ics23 proof of
// that root in the tables map, and the ics23 proof of the rows in the
// table): an existence proof for a point lookup that found its row, a
// non-existence proof for one that did not, a range proof for a range.
// When the table is not in the tables map (its rows are not
// authenticated), Rows and Proof are empty and TableAbsence is the ics23
// non-existence proof (protobuf, ics23's Marshal) of statetree.TableKey
// of the table in the tables map.
type ProofResponse struct {
	Height       int64      `json:"height"`
	Version      uint64     `json:"version"`
	Base         []byte     `json:"base"`        // 32 bytes
	TablesRoot   []byte     `json:"tables_root"` // 32 bytes
	Table        string     `json:"table"`
	Key          []byte     `json:"key,omitempty"`
	Lo           []byte     `json:"lo,omitempty"`
	Hi           []byte     `json:"hi,omitempty"`
	Rows         []ProofRow `json:"rows"` // in key order
	Proof        []byte     `json:"proof,omitempty"`
	TableAbsence []byte     `json:"table_absence,omitempty"`
}

// AuthenticatedAppHash is the AppHash of a block of protocol version 4
// or later from its base (the version-2 form of its other inputs, 32
// bytes) and the root of its tables map:
//
//	SHA256("relchain/apphash/v6" | u64 big-endian version | base | tables)
//
// The application computes it, and a verifying client recomputes it
// from a ProofResponse.
func AuthenticatedAppHash(version uint64, base []byte, tables [32]byte) []byte {
	h := sha256.New()
	h.Write([]byte("relchain/apphash/v6"))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], version)
	h.Write(n[:])
	h.Write(base)
	h.Write(tables[:])
	return h.Sum(nil)
}
