package statetree

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"testing"

	ics23 "github.com/cosmos/ics23/go"

	"github.com/relchain/relchain/internal/racetest"
)

type propertyRun struct {
	seeds, rounds, opsPerRound, maxKeyLen int
}

// TestTreeAgreesWithModel drives a tree and a map with the same random
// inserts, updates and deletes, and checks roots, proofs and ranges after
// every commit (see checkRound).
func TestTreeAgreesWithModel(t *testing.T) {
	run := propertyRun{seeds: 4, rounds: 25, opsPerRound: 40, maxKeyLen: 12}
	if testing.Short() || racetest.Enabled { // the long run below covers more
		run.seeds, run.rounds = 3, 12
	}
	runProperty(t, run)
}

// TestTreeAgreesWithModelLong is the same with longer keys, more rounds
// and more keys (about 1,000).
func TestTreeAgreesWithModelLong(t *testing.T) {
	racetest.Heavy(t)
	runProperty(t, propertyRun{seeds: 3, rounds: 30, opsPerRound: 50, maxKeyLen: 40})
}

func runProperty(t *testing.T, run propertyRun) {
	for s := 0; s < run.seeds; s++ {
		seed := uint64(1000 + s)
		rng := rand.New(rand.NewPCG(seed, 0))
		g := keyGen{rng: rng, maxLen: run.maxKeyLen}
		tr, m := New(), model{}
		for round := 0; round < run.rounds; round++ {
			applyOps(t, tr, m, g, run.opsPerRound)
			r := tr.Commit()
			if !checkRound(t, r, m, g) {
				t.Fatalf("seed %d, round %d: tree and model disagree (see above)", seed, round)
			}
		}
	}
}

// applyOps applies n random changes to tr and m alike.
func applyOps(t *testing.T, tr *Tree, m model, g keyGen, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		k := g.key()
		if g.rng.IntN(3) == 0 && len(m) > 0 {
			if _, ok := m[string(k)]; !ok {
				k = anyKey(m, g)
			}
			ok, err := tr.Delete(k)
			_, want := m[string(k)]
			if err != nil || ok != want {
				t.Fatalf("delete %x: %v, %v; model has it: %v", k, ok, err, want)
			}
			delete(m, string(k))
			continue
		}
		img := g.image()
		if err := tr.Set(k, sha256.Sum256(img)); err != nil {
			t.Fatalf("set %x: %v", k, err)
		}
		m[string(k)] = img
	}
}

func anyKey(m model, g keyGen) []byte {
	i := g.rng.IntN(len(m))
	for k := range m {
		if i == 0 {
			return []byte(k)
		}
		i--
	}
	return nil
}

// checkRound checks r against m; it reports false after logging errors.
func checkRound(t *testing.T, r Root, m model, g keyGen) bool {
	t.Helper()
	if got := m.build(t, g.rng).Hash(); got != r.Hash() || r.Len() != len(m) {
		t.Errorf("root %x (len %d), shuffled rebuild %x (len %d)", r.Hash(), r.Len(), got, len(m))
		return false
	}
	ok := true
	for k, v := range m {
		ok = checkExistence(t, r, []byte(k), v) && ok
	}
	for i := 0; i < 20; i++ {
		if k := g.key(); m[string(k)] == nil {
			ok = checkNonExistence(t, r, k, m) && ok
		}
	}
	for i := 0; i < 10; i++ {
		lo, hi := g.bound(), g.bound()
		if bytes.Compare(lo, hi) > 0 {
			lo, hi = hi, lo
		}
		ok = checkRangeProof(t, r, lo, hi, m) && ok
	}
	return ok
}

func checkExistence(t *testing.T, r Root, key, value []byte) bool {
	t.Helper()
	p, err := r.ProveExistence(key, value)
	if err != nil {
		t.Errorf("prove %x: %v", key, err)
		return false
	}
	root := r.Hash()
	wrong := append(bytes.Clone(value), 1)
	switch {
	case VerifyExistence(root, key, value, p) != nil:
		t.Errorf("existence of %x does not verify: %v", key, VerifyExistence(root, key, value, p))
	case !ics23.VerifyMembership(ProofSpec(), root[:], p, key, value):
		t.Errorf("existence of %x: ics23.VerifyMembership refuses it", key)
	case !errors.Is(VerifyExistence(root, key, wrong, p), ErrInvalidProof):
		t.Errorf("existence of %x verifies with a wrong value", key)
	default:
		return true
	}
	return false
}

func checkNonExistence(t *testing.T, r Root, key []byte, m model) bool {
	t.Helper()
	p, err := r.ProveNonExistence(key, m.values)
	if err != nil {
		t.Errorf("prove absence of %x: %v", key, err)
		return false
	}
	root := r.Hash()
	if err := VerifyNonExistence(root, key, p); err != nil {
		t.Errorf("absence of %x does not verify: %v", key, err)
		return false
	}
	if r.Len() > 0 && !ics23.VerifyNonMembership(ProofSpec(), root[:], p, key) {
		t.Errorf("absence of %x: ics23.VerifyNonMembership refuses it", key)
		return false
	}
	for k := range m { // the proof of an absent key never proves a present one absent
		if VerifyNonExistence(root, []byte(k), p) == nil {
			t.Errorf("absence of %x's proof proves present %x absent", key, k)
			return false
		}
		break
	}
	return true
}
