package statetree

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	ics23 "github.com/cosmos/ics23/go"
)

// checkRangeProof proves [lo, hi] and checks that exactly the model's rows
// verify: a claim or proof with a row dropped, added or altered, or an end
// cut off, is refused.
func checkRangeProof(t *testing.T, r Root, lo, hi []byte, m model) bool {
	t.Helper()
	rows := m.rows(lo, hi)
	p, err := r.ProveRange(lo, hi, m.values)
	if err != nil {
		t.Errorf("prove [%x, %x]: %v", lo, hi, err)
		return false
	}
	root := r.Hash()
	if err := VerifyRange(root, lo, hi, rows, p); err != nil {
		t.Errorf("range [%x, %x] of %d rows does not verify: %v", lo, hi, len(rows), err)
		return false
	}
	for name, claim := range tamperedClaims(rows) {
		if err := VerifyRange(root, lo, hi, claim, p); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("range [%x, %x]: claim with %s: %v, want ErrInvalidProof", lo, hi, name, err)
			return false
		}
	}
	for name, tp := range tamperedProofs(p, lo, hi, rows) {
		if err := VerifyRange(root, lo, hi, tp.rows, tp.proof); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("range [%x, %x]: proof with %s: %v, want ErrInvalidProof", lo, hi, name, err)
			return false
		}
	}
	return true
}

// tamperedClaims are rows with one row dropped, added or altered.
func tamperedClaims(rows []KV) map[string][]KV {
	c := map[string][]KV{}
	if len(rows) > 0 {
		mid := len(rows) / 2
		c["a row dropped"] = slices.Delete(slices.Clone(rows), mid, mid+1)
		altered := slices.Clone(rows)
		altered[mid].Value = append(bytes.Clone(altered[mid].Value), 0)
		c["a value altered"] = altered
		fake := KV{Key: append(bytes.Clone(rows[mid].Key), 0), Value: []byte{1}}
		c["a row added"] = slices.Insert(slices.Clone(rows), mid+1, fake)
	} else {
		c["a row added"] = []KV{{Key: []byte{'x', 0}, Value: []byte{1}}}
	}
	return c
}

type tamperedProof struct {
	proof *ics23.CommitmentProof
	rows  []KV
}

// tamperedProofs drop an entry from the proof, and from the claim too when
// it was a row: an end cut off, or a row in the middle left out.
func tamperedProofs(p *ics23.CommitmentProof, lo, hi []byte, rows []KV) map[string]tamperedProof {
	entries := ics23.Decompress(p).GetBatch().Entries
	drop := func(i int) tamperedProof {
		key := entries[i].GetExist().Key
		claim := slices.DeleteFunc(slices.Clone(rows), func(r KV) bool { return bytes.Equal(r.Key, key) })
		batch := &ics23.BatchProof{Entries: slices.Delete(slices.Clone(entries), i, i+1)}
		return tamperedProof{ics23.Compress(&ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Batch{Batch: batch}}), claim}
	}
	c := map[string]tamperedProof{}
	if len(entries) > 0 {
		c["the left end cut"] = drop(0)
		c["the right end cut"] = drop(len(entries) - 1)
	}
	if len(entries) > 2 {
		c["a middle entry dropped"] = drop(len(entries) / 2)
	}
	return c
}

func TestRangeProofsOfSmallTrees(t *testing.T) {
	m := model{}
	tr := New()
	keys := [][]byte{{'m', 0}, {'c', 0}, {'x', 0}}
	for i := 0; i <= len(keys); i++ {
		r := tr.Commit()
		for _, b := range [][2]string{{"a", "z"}, {"a", "b"}, {"y", "z"}, {"c\x00", "c\x00"}, {"d", "w"}, {"m", "m\x01"}} {
			if !checkRangeProof(t, r, []byte(b[0]), []byte(b[1]), m) {
				t.Fatalf("tree of %d keys, range %q", r.Len(), b)
			}
		}
		if i < len(keys) {
			m[string(keys[i])] = []byte{byte(i + 1)}
			if err := tr.Set(keys[i], hashOf(m[string(keys[i])])); err != nil {
				t.Fatal(err)
			}
		}
	}
}
