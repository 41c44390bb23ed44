package critarena

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"testing"

	ics23 "github.com/cosmos/ics23/go"

	"spike36/critbit"
)

// The arena layout computes critbit's roots for the same inserts and updates.
func TestSameRootsAsCritbit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	a := New(1000)
	var c critbit.Tree
	vals := map[string][]byte{}
	for round := 0; round < 200; round++ {
		for i := 0; i < 30; i++ {
			n := 1 + r.IntN(10)
			k := make([]byte, n+1)
			for j := 0; j < n; j++ {
				k[j] = byte(1 + r.IntN(3))
			}
			v := []byte{byte(r.Uint32()), byte(round)}
			vals[string(k)] = v
			a.Set(k, sha256.Sum256(v))
			c.Set(k, sha256.Sum256(v))
		}
		ra, rc := a.Commit(), c.Commit()
		if !bytes.Equal(ra, rc) {
			t.Fatalf("round %d: roots differ", round)
		}
		for k, v := range vals {
			p := &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Exist{Exist: a.Exist([]byte(k), v)}}
			if !ics23.VerifyMembership(ics23.TendermintSpec, ra, p, []byte(k), v) {
				t.Fatal("membership")
			}
			break
		}
	}
}
