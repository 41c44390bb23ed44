package txn

import (
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"fmt"
)

// RehearsalVersion is the version of the rehearsal request (api.RehearsePath)
// this package writes without a probe, and reads. Version 1 (an unsigned
// public key and the statements) is no longer accepted: it let anyone act
// as any key.
const RehearsalVersion = 2

// RehearsalProbeVersion is the version of a rehearsal request that carries
// a probe (Rehearsal.Probe): version 2's fields, then the probe statement,
// all signed. A request without a probe is written as version 2, so a node
// that reads only version 2 still serves it.
const RehearsalProbeVersion = 3

// rehearsalMagic starts every encoded rehearsal request; it differs from the
// envelope's magic so that neither decodes as the other.
var rehearsalMagic = [3]byte{'R', 'L', 'R'}

// RehearsalDomain prefixes the bytes a rehearsal's signature covers, so that
// a signature made for a rehearsal can never verify as anything else a key
// signs (an envelope's signed bytes start with "RLC"), and no other
// signature as a rehearsal.
const RehearsalDomain = "relchain rehearsal request\x00"

// Rehearsal is the request of a rehearsal: the statements run with the
// permissions of Sender, who signs the request. Height is a recent height
// of the chain as the sender knows it: a node refuses a request whose
// height is too far from its own (see api.RehearsePath), so a captured
// request stops being accepted after a while.
//
// Encoding (version 2), all numbers unsigned varints, strings and byte
// strings length-prefixed with a varint:
//
//	"RLR" 0x02 | chain id | height | public key (32) | statement count |
//	statements (AppendStatement, as in the envelope) | signature (64)
//
// Version 3 (a request with a probe) is the same with 0x03 and the probe
// (AppendStatement) after the statements, before the signature.
//
// The signature is ed25519 over RehearsalDomain followed by every byte
// before the signature: the probe, when present, is signed with the rest.
type Rehearsal struct {
	ChainID    string
	Height     int64
	Sender     ed25519.PublicKey
	Statements []Statement
	// Probe, when not nil, is a read-only statement the node runs after
	// Statements, inside the rehearsal's db-transaction, under the read
	// policy (a catalog read that sees the transaction's own schema
	// changes; see api.RehearsePath). It is never part of a bc-transaction.
	Probe     *Statement
	Signature []byte
}

// ErrRehearsalVersion is DecodeRehearsal's error (wrapping ErrMalformed) for
// a request in an older or unknown format, such as version 1's bare key.
var ErrRehearsalVersion = errors.New("unsupported rehearsal request format")

// SignRehearsal returns the encoded, signed rehearsal request of priv's key
// for stmts on chainID at height.
func SignRehearsal(priv ed25519.PrivateKey, chainID string, height int64, stmts []Statement) []byte {
	return SignRehearsalProbe(priv, chainID, height, stmts, nil)
}

// SignRehearsalProbe is SignRehearsal with a probe (Rehearsal.Probe; nil:
// none, a version 2 request).
func SignRehearsalProbe(priv ed25519.PrivateKey, chainID string, height int64, stmts []Statement, probe *Statement) []byte {
	r := &Rehearsal{ChainID: chainID, Height: height, Sender: priv.Public().(ed25519.PublicKey), Statements: stmts, Probe: probe}
	r.Signature = ed25519.Sign(priv, r.SignBytes())
	return EncodeRehearsal(r)
}

// SignBytes returns what the signature covers: RehearsalDomain and the
// request's encoding up to the signature.
func (r *Rehearsal) SignBytes() []byte {
	return r.appendBody([]byte(RehearsalDomain))
}

// Verify checks the signature against Sender.
func (r *Rehearsal) Verify() error {
	if len(r.Sender) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: rehearsal key has %d bytes, want %d", ErrBadSignature, len(r.Sender), ed25519.PublicKeySize)
	}
	if len(r.Signature) != ed25519.SignatureSize {
		return fmt.Errorf("%w: rehearsal signature has %d bytes, want %d", ErrBadSignature, len(r.Signature), ed25519.SignatureSize)
	}
	if !ed25519.Verify(r.Sender, r.SignBytes(), r.Signature) {
		return fmt.Errorf("%w: the rehearsal's signature does not match its chain id, height, key, statements and probe", ErrBadSignature)
	}
	return nil
}

// EncodeRehearsal encodes r (version 2, or 3 with a probe: see Rehearsal).
func EncodeRehearsal(r *Rehearsal) []byte {
	b := r.appendBody(nil)
	return appendBytes(b, r.Signature)
}

func (r *Rehearsal) appendBody(b []byte) []byte {
	b = append(b, rehearsalMagic[:]...)
	if r.Probe != nil {
		b = append(b, RehearsalProbeVersion)
	} else {
		b = append(b, RehearsalVersion)
	}
	b = appendString(b, r.ChainID)
	b = binary.AppendUvarint(b, uint64(r.Height))
	b = appendBytes(b, r.Sender)
	b = binary.AppendUvarint(b, uint64(len(r.Statements)))
	for _, s := range r.Statements {
		b = AppendStatement(b, s)
	}
	if r.Probe != nil {
		b = AppendStatement(b, *r.Probe)
	}
	return b
}

// DecodeRehearsal parses EncodeRehearsal's bytes. It does not verify the
// signature. Any input that is not exactly the canonical encoding of its
// value is rejected with an error wrapping ErrMalformed (and
// ErrRehearsalVersion for another format).
func DecodeRehearsal(p []byte) (*Rehearsal, error) {
	d := decoder{p: p}
	r, err := d.rehearsal()
	if err != nil {
		return nil, fmt.Errorf("%w: rehearsal request: %w", ErrMalformed, err)
	}
	if d.off != len(p) {
		return nil, fmt.Errorf("%w: rehearsal request: %d unexpected trailing bytes", ErrMalformed, len(p)-d.off)
	}
	if string(EncodeRehearsal(r)) != string(p) {
		return nil, fmt.Errorf("%w: rehearsal request: not in canonical form", ErrMalformed)
	}
	return r, nil
}

func (d *decoder) rehearsal() (*Rehearsal, error) {
	if len(d.p) < 4 || [3]byte(d.p[:3]) != rehearsalMagic {
		return nil, fmt.Errorf("%w: want a signed request (\"RLR\", version %d; see api.RehearsePath), not a bare public key", ErrRehearsalVersion, RehearsalVersion)
	}
	v := d.p[3]
	if v != RehearsalVersion && v != RehearsalProbeVersion {
		return nil, fmt.Errorf("%w: version %d (this node speaks %d and %d)", ErrRehearsalVersion, v, RehearsalVersion, RehearsalProbeVersion)
	}
	d.off = 4
	r := &Rehearsal{}
	var err error
	if r.ChainID, err = d.string(MaxChainID); err != nil {
		return nil, fmt.Errorf("chain id: %w", err)
	}
	h, err := d.uvarint()
	if err != nil || h > 1<<62 {
		return nil, fmt.Errorf("height: %v", orRange(err))
	}
	r.Height = int64(h)
	pk, err := d.bytes(ed25519.PublicKeySize)
	if err != nil || len(pk) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("sender key: want %d bytes (%v)", ed25519.PublicKeySize, err)
	}
	r.Sender = ed25519.PublicKey(pk)
	n, err := d.count(MaxStatements)
	if err != nil {
		return nil, fmt.Errorf("statement count: %w", err)
	}
	if n == 0 {
		return nil, errors.New("a rehearsal needs at least one statement")
	}
	r.Statements = make([]Statement, n)
	for i := range r.Statements {
		if r.Statements[i], err = d.statement(); err != nil {
			return nil, fmt.Errorf("statement %d: %w", i+1, err)
		}
	}
	if v == RehearsalProbeVersion {
		p, err := d.statement()
		if err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
		r.Probe = &p
	}
	if r.Signature, err = d.bytes(ed25519.SignatureSize); err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	return r, nil
}

// orRange is err, or the out-of-range error when err is nil.
func orRange(err error) error {
	if err != nil {
		return err
	}
	return errors.New("out of range")
}
