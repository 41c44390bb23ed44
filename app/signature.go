package app

import (
	"fmt"

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
		voi.VerifyWithOptions(voi.PublicKey(tx.PubKey), tx.SignBytes(), tx.Signature, stdLibSemantics) {
		return nil
	}
	if err := tx.Verify(); err != nil {
		return err
	}
	return fmt.Errorf("%w: curve25519-voi refuses the signature", txn.ErrBadSignature)
}
