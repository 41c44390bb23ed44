package critbit

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"sort"
	"testing"

	ics23 "github.com/cosmos/ics23/go"

	"spike36/rangeproof"
)

// randKey is a prefix-free variable-length key: 1..12 bytes from 1..255,
// then a 0x00 terminator.
func randKey(r *rand.Rand) []byte {
	n := 1 + r.IntN(12)
	k := make([]byte, n+1)
	for i := 0; i < n; i++ {
		k[i] = byte(1 + r.IntN(3)) // small alphabet: long shared prefixes
	}
	return k
}

func TestAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var tr Tree
	model := map[string][]byte{}
	for round := 0; round < 300; round++ {
		for i := 0; i < 20; i++ {
			k := randKey(r)
			if r.IntN(4) == 0 {
				_, had := model[string(k)]
				if tr.Delete(k) != had {
					t.Fatal("delete disagrees")
				}
				delete(model, string(k))
			} else {
				v := []byte{byte(r.Uint32()), byte(round)}
				tr.Set(k, sha256.Sum256(v))
				model[string(k)] = v
			}
		}
		root := tr.Commit()
		if tr.Size != len(model) {
			t.Fatal("size", tr.Size, len(model))
		}
		// history independence: a rebuild in another order gives the root
		keys := make([]string, 0, len(model))
		for k := range model {
			keys = append(keys, k)
		}
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		var re Tree
		for _, k := range keys {
			re.Set([]byte(k), sha256.Sum256(model[k]))
		}
		if !bytes.Equal(re.Commit(), root) {
			t.Fatal("rebuild gives another root")
		}
		if len(model) == 0 {
			continue
		}
		s := tr.Snapshot()
		sort.Strings(keys)
		for _, k := range keys {
			p, err := s.Exist([]byte(k), model[k])
			if err != nil {
				t.Fatal(err)
			}
			cp := &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Exist{Exist: p}}
			if !ics23.VerifyMembership(ics23.TendermintSpec, root, cp, []byte(k), model[k]) {
				t.Fatal("membership")
			}
			if ics23.VerifyMembership(ics23.TendermintSpec, root, cp, []byte(k), []byte("x")) {
				t.Fatal("wrong value verified")
			}
		}
		for i := 0; i < 20; i++ {
			k := randKey(r)
			if _, ok := model[string(k)]; ok {
				continue
			}
			np := s.NonExist(k, func(k []byte) []byte { return model[string(k)] })
			if !ics23.VerifyNonMembership(ics23.TendermintSpec, root, np, k) {
				t.Fatal("non-membership")
			}
			// a range [k, k2] against the model
			k2 := randKey(r)
			lo, hi := k, k2
			if bytes.Compare(lo, hi) > 0 {
				lo, hi = hi, lo
			}
			var want []string
			for _, mk := range keys {
				if mk >= string(lo) && mk <= string(hi) {
					want = append(want, mk)
				}
			}
			rp := s.Range(lo, hi, keys, func(k []byte) []byte { return model[string(k)] })
			rows, ok := rangeproof.Verify(ics23.TendermintSpec, root, rp, lo, hi)
			if !ok || len(rows) != len(want) {
				t.Fatalf("range: ok %v rows %d want %d", ok, len(rows), len(want))
			}
			// drop one row in the middle: must fail
			if b := rp.GetBatch(); len(want) > 0 && len(b.Entries) >= 3 {
				b.Entries = append(b.Entries[:1], b.Entries[2:]...)
				if _, ok := rangeproof.Verify(ics23.TendermintSpec, root, rp, lo, hi); ok {
					t.Fatal("range with a dropped row verified")
				}
			}
		}
	}
}
