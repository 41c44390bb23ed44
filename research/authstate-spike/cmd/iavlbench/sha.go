package main

import (
	"crypto/sha256"

	ics23 "github.com/cosmos/ics23/go"

	"spike36/rangeproof"
)

func sha(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

func VerifyRange(spec *ics23.ProofSpec, root []byte, p *ics23.CommitmentProof, lo, hi []byte) bool {
	rows, ok := rangeproof.Verify(spec, root, p, lo, hi)
	return ok && len(rows) == 100
}
