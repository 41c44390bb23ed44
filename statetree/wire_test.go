package statetree

import (
	"bytes"
	"errors"
	"sort"
	"testing"
)

// wireProofs is a chained proof of each kind over two tables.
func wireProofs(t testing.TB) (TablesRoot, map[string]ChainedProof, model) {
	r, m := fuzzTree(t)
	tables := NewTables()
	if err := tables.Set("t", r.Hash()); err != nil {
		t.Fatal(err)
	}
	if err := tables.Set("u", EmptyRootHash); err != nil {
		t.Fatal(err)
	}
	mr := tables.Commit()
	tp, err := mr.ProveTable("t", r.Hash())
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	k := []byte(keys[len(keys)/2])
	ex, err := r.ProveExistence(k, m[string(k)])
	if err != nil {
		t.Fatal(err)
	}
	var absent []byte
	for i := 0; absent == nil; i++ {
		if c := []byte{byte(i >> 8), byte(i), 0x5a}; !isPrefixOfAny(m, c) {
			absent = c
		}
	}
	ne, err := r.ProveNonExistence(absent, m.values)
	if err != nil {
		t.Fatal(err)
	}
	rng, err := r.ProveRange([]byte(keys[3]), []byte(keys[20]), m.values)
	if err != nil {
		t.Fatal(err)
	}
	return mr, map[string]ChainedProof{"existence": {tp, ex}, "non-existence": {tp, ne}, "range": {tp, rng}}, m
}

func isPrefixOfAny(m model, k []byte) bool {
	for key := range m {
		if bytes.HasPrefix([]byte(key), k) || bytes.HasPrefix(k, []byte(key)) {
			return true
		}
	}
	return false
}

// TestChainedProofWireRoundTrip: Marshal then UnmarshalChainedProof gives
// a proof that verifies as the original and marshals to the same bytes.
func TestChainedProofWireRoundTrip(t *testing.T) {
	mr, proofs, m := wireProofs(t)
	for name, p := range proofs {
		b, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		q, err := UnmarshalChainedProof(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := VerifyTable(mr.Hash(), "t", q.Table); err != nil || q.Table.TableRoot != p.Table.TableRoot {
			t.Errorf("%s: table link: %v", name, err)
		}
		again, err := q.Marshal()
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s: re-marshalled differs (%v)", name, err)
		}
		if ex := q.Rows.GetExist(); ex != nil {
			if err := VerifyChainedExistence(mr.Hash(), "t", ex.Key, m[string(ex.Key)], q); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}

// TestChainedProofWireRefusesDamage: every strict prefix, a trailing
// byte, another format, an oversized input and an empty proof are
// ErrMalformed.
func TestChainedProofWireRefusesDamage(t *testing.T) {
	_, proofs, _ := wireProofs(t)
	b, err := proofs["range"].Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := UnmarshalChainedProof(b[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("prefix of %d of %d bytes: %v", n, len(b), err)
		}
	}
	bad := map[string][]byte{
		"trailing byte": append(bytes.Clone(b), 0),
		"format 2":      append([]byte{2}, b[1:]...),
		"oversized":     make([]byte, MaxWireLen+1),
		"huge length":   append(bytes.Clone(b[:33]), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"no proofs":     append(bytes.Clone(b[:33]), 0, 0),
	}
	for name, in := range bad {
		if _, err := UnmarshalChainedProof(in); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := (ChainedProof{}).Marshal(); err == nil {
		t.Error("an empty chained proof marshalled")
	}
}

// FuzzUnmarshalChainedProof: arbitrary bytes never panic the decoder,
// and what it accepts marshals again without error.
func FuzzUnmarshalChainedProof(f *testing.F) {
	_, proofs, _ := wireProofs(f)
	for _, p := range proofs {
		b, err := p.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := UnmarshalChainedProof(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error not ErrMalformed: %v", err)
			}
			return
		}
		if _, err := p.Marshal(); err != nil {
			t.Fatalf("accepted, but does not marshal: %v", err)
		}
	})
}
