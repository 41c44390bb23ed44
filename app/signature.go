package app

import (
	"fmt"
	"sync"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"

	"github.com/relchain/relchain/txn"
)

// stdLibSemantics makes curve25519-voi accept exactly the signatures Go's
// crypto/ed25519 accepts (txn.Tx.Verify): the same checks of key and
// signature encodings, the same cofactorless equation.
var stdLibSemantics = &voi.Options{Verify: voi.VerifyOptionsStdLib}

// verifySignature checks tx's signature as txn.Tx.Verify does, with
// curve25519-voi, which CometBFT already links for its own keys and which
// verifies in about half of crypto/ed25519's time here (55 against 100 µs,
// BenchmarkVerifySignature on the loaded 2-vCPU bench machine): each
// validator verifies every bc-transaction once (CheckTx, or FinalizeBlock
// for one it never saw), so this is on every node's hot path. A signature
// voi refuses is checked by txn.Tx.Verify as well, so that the refusal
// carries the envelope's own message; should the standard library accept
// it, the tx is refused all the same (every node runs this same code, so
// they agree either way).
func verifySignature(tx *txn.Tx) error {
	if len(tx.PubKey) == voi.PublicKeySize && len(tx.Signature) == voi.SignatureSize &&
		expandedKeys.verify(voi.PublicKey(tx.PubKey), tx.SignBytes(), tx.Signature) {
		return nil
	}
	if err := tx.Verify(); err != nil {
		return err
	}
	return fmt.Errorf("%w: curve25519-voi refuses the signature", txn.ErrBadSignature)
}

// maxExpandedKeys bounds the expanded-key cache: about 1.5 KiB each, so
// at most ~6 MiB.
const maxExpandedKeys = 4096

// keyCache keeps curve25519-voi's expanded form of the public keys that
// sign repeatedly (a client's key signs all its bc-transactions): the
// decompressed point and its multiples table, which a plain verification
// computes again for every signature (BenchmarkVerifySignature: about a
// quarter of its time). A key is expanded the second time it is seen, so
// a stream of one-off keys costs one map entry each and no expansion. When
// the cache is full it starts over. It changes no verdict:
// VerifyExpandedWithOptions with the same options accepts exactly what
// VerifyWithOptions accepts (TestVerifySignatureAgreesWithTheEnvelope runs
// every case on both paths).
type keyCache struct {
	mu   sync.Mutex
	keys map[[voi.PublicKeySize]byte]*voi.ExpandedPublicKey // nil: seen once
}

var expandedKeys = &keyCache{keys: make(map[[voi.PublicKeySize]byte]*voi.ExpandedPublicKey)}

// verify reports whether sig is pub's signature of msg under
// stdLibSemantics.
func (c *keyCache) verify(pub voi.PublicKey, msg, sig []byte) bool {
	if exp := c.expanded(pub); exp != nil {
		return voi.VerifyExpandedWithOptions(exp, msg, sig, stdLibSemantics)
	}
	return voi.VerifyWithOptions(pub, msg, sig, stdLibSemantics)
}

// expanded returns pub's expanded form if pub was seen before, expanding
// it now if needed; nil the first time (and for a key that does not
// decompress, which plain verification refuses).
func (c *keyCache) expanded(pub voi.PublicKey) *voi.ExpandedPublicKey {
	k := [voi.PublicKeySize]byte(pub)
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, seen := c.keys[k]
	if exp != nil || !seen {
		if !seen {
			if len(c.keys) >= maxExpandedKeys {
				clear(c.keys)
			}
			c.keys[k] = nil
		}
		return exp
	}
	exp, err := voi.NewExpandedPublicKey(pub)
	if err != nil {
		return nil
	}
	c.keys[k] = exp
	return exp
}
