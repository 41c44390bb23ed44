package statetree

import (
	"encoding/binary"
	"errors"
	"fmt"

	ics23 "github.com/cosmos/ics23/go"
)

// The wire form of a ChainedProof (format 1), for a client that receives
// a proof from a node:
//
//	0x01                      format
//	32 bytes                  the table's root (TableProof.TableRoot)
//	uvarint n, n bytes        TableProof.Proof, ics23 protobuf (CommitmentProof.Marshal)
//	uvarint m, m bytes        Rows, ics23 protobuf
//
// and nothing after. A lone ics23 proof (MarshalCommitment) is its
// protobuf bytes. Decoding bounds the input at MaxWireLen, checks every
// length against the bytes left before slicing, and never panics; what it
// returns is parsed, not verified.

// MaxWireLen is the longest encoded proof the decoders accept.
const MaxWireLen = 32 << 20

const wireFormat = 1

// ErrMalformed: proof bytes that do not parse.
var ErrMalformed = errors.New("statetree: malformed proof bytes")

// Marshal is p's wire form.
func (p ChainedProof) Marshal() ([]byte, error) {
	table, err := MarshalCommitment(p.Table.Proof)
	if err != nil {
		return nil, fmt.Errorf("marshal chained proof: table: %w", err)
	}
	rows, err := MarshalCommitment(p.Rows)
	if err != nil {
		return nil, fmt.Errorf("marshal chained proof: rows: %w", err)
	}
	b := make([]byte, 0, 1+32+2*binary.MaxVarintLen64+len(table)+len(rows))
	b = append(b, wireFormat)
	b = append(b, p.Table.TableRoot[:]...)
	b = append(binary.AppendUvarint(b, uint64(len(table))), table...)
	return append(binary.AppendUvarint(b, uint64(len(rows))), rows...), nil
}

// UnmarshalChainedProof parses a ChainedProof's wire form.
func UnmarshalChainedProof(b []byte) (ChainedProof, error) {
	var p ChainedProof
	if len(b) > MaxWireLen {
		return p, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(b), MaxWireLen)
	}
	if len(b) < 1+32 || b[0] != wireFormat {
		return p, fmt.Errorf("%w: not a chained proof of format %d", ErrMalformed, wireFormat)
	}
	copy(p.Table.TableRoot[:], b[1:33])
	b = b[33:]
	var parts [2]*ics23.CommitmentProof
	for i, what := range []string{"table", "rows"} {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return ChainedProof{}, fmt.Errorf("%w: %s proof: bad length", ErrMalformed, what)
		}
		var err error
		if parts[i], err = UnmarshalCommitment(b[k : k+int(n)]); err != nil {
			return ChainedProof{}, fmt.Errorf("%s proof: %w", what, err)
		}
		b = b[k+int(n):]
	}
	if len(b) != 0 {
		return ChainedProof{}, fmt.Errorf("%w: %d bytes after the proof", ErrMalformed, len(b))
	}
	p.Table.Proof, p.Rows = parts[0], parts[1]
	return p, nil
}

// MarshalCommitment is p's ics23 protobuf form.
func MarshalCommitment(p *ics23.CommitmentProof) ([]byte, error) {
	if p == nil || p.Proof == nil {
		return nil, errors.New("no proof")
	}
	b, err := p.Marshal()
	if err != nil {
		return nil, fmt.Errorf("ics23 marshal: %w", err)
	}
	return b, nil
}

// UnmarshalCommitment parses an ics23 CommitmentProof (protobuf). It
// refuses more than MaxWireLen bytes and a message holding no proof.
func UnmarshalCommitment(b []byte) (p *ics23.CommitmentProof, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%w: %v", ErrMalformed, r)
		}
	}()
	if len(b) > MaxWireLen {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(b), MaxWireLen)
	}
	p = new(ics23.CommitmentProof)
	if err := p.Unmarshal(b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if p.Proof == nil {
		return nil, fmt.Errorf("%w: a commitment proof holding no proof", ErrMalformed)
	}
	return p, nil
}
