package statetree

import (
	"bytes"
	"math/rand/v2"
	"testing"

	ics23 "github.com/cosmos/ics23/go"
)

// fuzzTree is a fixed tree and its model for FuzzVerifiers.
func fuzzTree(t testing.TB) (Root, model) {
	g := keyGen{rng: rand.New(rand.NewPCG(36, 0)), maxLen: 4}
	tr, m := New(), model{}
	for len(m) < 40 {
		k, v := g.key(), g.image()
		mustSet(t, tr, k, v)
		m[string(k)] = v
	}
	return tr.Commit(), m
}

// FuzzVerifiers feeds arbitrary bytes to the verifiers as a proof: they
// must never panic, and whatever they accept must be true of the tree. The
// claims tried are the ones the proof itself makes (its keys and values),
// the only ones it could make pass.
func FuzzVerifiers(f *testing.F) {
	r, m := fuzzTree(f)
	for k, v := range m {
		lo, hi := []byte(k)[:1], append([]byte(k)[:1], 0xff)
		for _, p := range seedProofs(f, r, m, []byte(k), v, lo, hi) {
			b, err := p.Marshal()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, lo, hi)
		}
	}
	f.Fuzz(func(t *testing.T, data, lo, hi []byte) {
		p := &ics23.CommitmentProof{}
		if p.Unmarshal(data) != nil {
			return
		}
		root := r.Hash()
		if ex := p.GetExist(); ex != nil && VerifyExistence(root, ex.Key, ex.Value, p) == nil {
			if v, ok := m[string(ex.Key)]; !ok || !bytes.Equal(v, ex.Value) {
				t.Fatalf("accepted existence of %x -> %x", ex.Key, ex.Value)
			}
		}
		if ne := nonExistenceOf(p); ne != nil && VerifyNonExistence(root, ne.Key, p) == nil {
			if _, ok := m[string(ne.Key)]; ok {
				t.Fatalf("accepted absence of present %x", ne.Key)
			}
		}
		if bytes.Compare(lo, hi) <= 0 {
			rows := claimedRows(p, lo, hi)
			if VerifyRange(root, lo, hi, rows, p) == nil && !equalRows(rows, m.rows(lo, hi)) {
				t.Fatalf("accepted range [%x, %x] of %d rows, the tree has %d", lo, hi, len(rows), len(m.rows(lo, hi)))
			}
		}
	})
}

func seedProofs(t testing.TB, r Root, m model, key, value, lo, hi []byte) []*ics23.CommitmentProof {
	ex, err := r.ProveExistence(key, value)
	if err != nil {
		t.Fatal(err)
	}
	absent := append(bytes.Clone(key[:len(key)-1]), 'z', 0)
	ne, err := r.ProveNonExistence(absent, m.values)
	if err != nil {
		return []*ics23.CommitmentProof{ex}
	}
	rp, err := r.ProveRange(lo, hi, m.values)
	if err != nil {
		t.Fatal(err)
	}
	return []*ics23.CommitmentProof{ex, ne, rp, ics23.Decompress(rp)}
}

// nonExistenceOf is nonExistence, unless decompressing panics.
func nonExistenceOf(p *ics23.CommitmentProof) (ne *ics23.NonExistenceProof) {
	defer func() { _ = recover() }()
	return nonExistence(ics23.Decompress(p))
}

// claimedRows are the proof's entries inside [lo, hi].
func claimedRows(p *ics23.CommitmentProof, lo, hi []byte) (rows []KV) {
	defer func() { _ = recover() }()
	for _, e := range ics23.Decompress(p).GetBatch().GetEntries() {
		if ex := e.GetExist(); ex != nil && bytes.Compare(ex.Key, lo) >= 0 && bytes.Compare(ex.Key, hi) <= 0 {
			rows = append(rows, KV{Key: ex.Key, Value: ex.Value})
		}
	}
	return rows
}

func equalRows(a, b []KV) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].Key, b[i].Key) || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}
