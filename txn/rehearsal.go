package txn

import (
	"crypto/ed25519"
	"encoding/binary"

	"fmt"
)

// EncodeRehearsal encodes the request of a rehearsal (api.RehearsePath):
// the sender's public key, whose permissions the statements run with,
// then the statements in the envelope's encoding. It is not signed: a
// rehearsal writes nothing and tells the sender only what a block would.
func EncodeRehearsal(sender ed25519.PublicKey, stmts []Statement) []byte {
	b := appendBytes(nil, sender)
	b = binary.AppendUvarint(b, uint64(len(stmts)))
	for _, s := range stmts {
		b = AppendStatement(b, s)
	}
	return b
}

// DecodeRehearsal parses EncodeRehearsal's bytes; errors wrap ErrMalformed.
func DecodeRehearsal(p []byte) (ed25519.PublicKey, []Statement, error) {
	d := decoder{p: p}
	pk, err := d.bytes(ed25519.PublicKeySize)
	if err != nil || len(pk) != ed25519.PublicKeySize {
		return nil, nil, fmt.Errorf("%w: rehearsal sender key: want %d bytes (%v)", ErrMalformed, ed25519.PublicKeySize, err)
	}
	n, err := d.count(MaxStatements)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: rehearsal statement count: %v", ErrMalformed, err)
	}
	if n == 0 {
		return nil, nil, fmt.Errorf("%w: a rehearsal needs at least one statement", ErrMalformed)
	}
	stmts := make([]Statement, n)
	for i := range stmts {
		if stmts[i], err = d.statement(); err != nil {
			return nil, nil, fmt.Errorf("%w: rehearsal statement %d: %v", ErrMalformed, i+1, err)
		}
	}
	if d.off != len(p) {
		return nil, nil, fmt.Errorf("%w: %d unexpected trailing bytes", ErrMalformed, len(p)-d.off)
	}
	return ed25519.PublicKey(pk), stmts, nil
}
