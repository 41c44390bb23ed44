package app

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"

	"github.com/relchain/relchain/txn"
)

// verifySignature must accept exactly what txn.Tx.Verify (crypto/ed25519)
// accepts, including the edge cases where ed25519 implementations differ:
// a non-canonical S, small-order keys and R, a non-canonical key encoding.
func TestVerifySignatureAgreesWithTheEnvelope(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 7
	priv := ed25519.NewKeyFromSeed(seed)
	signed := func() *txn.Tx {
		tx := &txn.Tx{ChainID: "c", Nonce: 1, Statements: []txn.Statement{{SQL: "SELECT 1"}}}
		tx.Sign(priv)
		return tx
	}
	mustHex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// S + L: the same point equation, a non-canonical scalar encoding.
	withBigS := func(tx *txn.Tx) {
		l, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
		s := make([]byte, 32)
		for i := range s {
			s[i] = tx.Signature[63-i] // little endian to big endian
		}
		v := new(big.Int).Add(new(big.Int).SetBytes(s), l).FillBytes(make([]byte, 32))
		for i := range v {
			tx.Signature[32+i] = v[31-i]
		}
	}
	identity := mustHex("0100000000000000000000000000000000000000000000000000000000000000")
	nonCanonicalIdentity := mustHex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
	cases := map[string]func(*txn.Tx){
		"valid":           func(*txn.Tx) {},
		"message changed": func(tx *txn.Tx) { tx.Nonce++ },
		"R changed":       func(tx *txn.Tx) { tx.Signature[0] ^= 1 },
		"S changed":       func(tx *txn.Tx) { tx.Signature[40] ^= 1 },
		"S not canonical": withBigS,
		"short key":       func(tx *txn.Tx) { tx.PubKey = tx.PubKey[:31] },
		"short signature": func(tx *txn.Tx) { tx.Signature = tx.Signature[:63] },
		"identity key, zero sig": func(tx *txn.Tx) {
			tx.PubKey = identity
			tx.Signature = append(append([]byte{}, identity...), make([]byte, 32)...)
		},
		"non-canonical identity key": func(tx *txn.Tx) {
			tx.PubKey = nonCanonicalIdentity
			tx.Signature = append(append([]byte{}, identity...), make([]byte, 32)...)
		},
		"all zero": func(tx *txn.Tx) { tx.PubKey = make([]byte, 32); tx.Signature = make([]byte, 64) },
	}
	accepted := 0
	// Three rounds: a key's first sight verifies plainly, the second
	// expands it, the third uses the cached expansion (keyCache).
	clear(expandedKeys.keys)
	for round := range 3 {
		for name, mutate := range cases {
			tx := signed()
			mutate(tx)
			want := tx.Verify()
			got := verifySignature(tx)
			if (want == nil) != (got == nil) {
				t.Errorf("%s, round %d: envelope says %v, verifySignature says %v", name, round, want, got)
			}
			if got != nil && !errors.Is(got, txn.ErrBadSignature) {
				t.Errorf("%s: %v does not wrap txn.ErrBadSignature", name, got)
			}
			if got == nil {
				accepted++
			}
		}
	}
	if expandedKeys.keys[[32]byte(signed().PubKey)] == nil {
		t.Fatal("the signing key was not expanded: the cached path was not tested")
	}
	if accepted == 0 {
		t.Fatal("no case was accepted: the test proves nothing")
	}
	if verifySignature(signed()) != nil {
		t.Fatal("a valid signature was refused")
	}
}

func BenchmarkVerifySignature(b *testing.B) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	tx := &txn.Tx{ChainID: "c", Nonce: 1, Statements: []txn.Statement{{SQL: "UPDATE checking SET balance = balance + $1 WHERE customer_id = $2", Args: []txn.Arg{txn.Int(5), txn.Int(17)}}}}
	tx.Sign(priv)
	b.Run("voi", func(b *testing.B) {
		for b.Loop() {
			if verifySignature(tx) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("voi-uncached", func(b *testing.B) {
		for b.Loop() {
			clear(expandedKeys.keys)
			if verifySignature(tx) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("crypto-ed25519", func(b *testing.B) {
		for b.Loop() {
			if tx.Verify() != nil {
				b.Fatal("refused")
			}
		}
	})
}
