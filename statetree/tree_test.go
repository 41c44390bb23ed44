package statetree

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
)

func hashOf(v []byte) [32]byte { return sha256.Sum256(v) }

func mustSet(t testing.TB, tr *Tree, key []byte, value []byte) {
	t.Helper()
	if err := tr.Set(key, hashOf(value)); err != nil {
		t.Fatalf("set %x: %v", key, err)
	}
}

func TestEmptyTreeHasEmptyRootHash(t *testing.T) {
	tr := New()
	r := tr.Commit()
	if r.Hash() != EmptyRootHash || (Root{}).Hash() != EmptyRootHash || r.Len() != 0 {
		t.Fatalf("empty root %x, len %d; want %x", r.Hash(), r.Len(), EmptyRootHash)
	}
	mustSet(t, tr, []byte("k"), []byte("v"))
	if _, err := tr.Delete([]byte("k")); err != nil {
		t.Fatal(err)
	}
	if got := tr.Commit().Hash(); got != EmptyRootHash {
		t.Fatalf("emptied tree's root %x, want %x", got, EmptyRootHash)
	}
}

func TestSingleKeyRootIsItsLeafHash(t *testing.T) {
	tr := New()
	mustSet(t, tr, []byte("k"), []byte("v"))
	if got, want := tr.Commit().Hash(), LeafHash([]byte("k"), hashOf([]byte("v"))); got != want {
		t.Fatalf("root %x, want the leaf hash %x", got, want)
	}
}

func TestKeyLimitsAreRejected(t *testing.T) {
	tr := New()
	mustSet(t, tr, []byte("abc"), []byte("v"))
	cases := []struct {
		key  []byte
		want error
	}{
		{nil, ErrEmptyKey},
		{[]byte{}, ErrEmptyKey},
		{bytes.Repeat([]byte{'x'}, MaxKeyLen+1), ErrKeyTooLong},
		{[]byte("ab"), ErrKeyPrefix},   // a prefix of abc
		{[]byte("abcd"), ErrKeyPrefix}, // abc is a prefix of it
	}
	for _, c := range cases {
		if err := tr.Set(c.key, hashOf(nil)); !errors.Is(err, c.want) {
			t.Errorf("set %q: %v, want %v", c.key, err, c.want)
		}
	}
	if _, err := tr.Delete(nil); !errors.Is(err, ErrEmptyKey) {
		t.Errorf("delete of the empty key: %v, want ErrEmptyKey", err)
	}
	if err := tr.Set(bytes.Repeat([]byte{'x'}, MaxKeyLen), hashOf(nil)); err != nil {
		t.Errorf("a key of MaxKeyLen bytes: %v", err)
	}
	if tr.Len() != 2 {
		t.Errorf("len %d after the refused keys, want 2", tr.Len())
	}
}

func TestUpdateAndDeleteChangeTheRoot(t *testing.T) {
	tr := New()
	mustSet(t, tr, []byte("a\x00"), []byte("1"))
	mustSet(t, tr, []byte("b\x00"), []byte("2"))
	h1 := tr.Commit().Hash()
	mustSet(t, tr, []byte("b\x00"), []byte("2"))
	if h := tr.Commit().Hash(); h != h1 {
		t.Fatalf("setting the same value changed the root")
	}
	mustSet(t, tr, []byte("b\x00"), []byte("3"))
	h2 := tr.Commit().Hash()
	if ok, err := tr.Delete([]byte("c\x00")); ok || err != nil {
		t.Fatalf("delete of an absent key: %v, %v", ok, err)
	}
	if ok, err := tr.Delete([]byte("b\x00")); !ok || err != nil {
		t.Fatalf("delete of b: %v, %v", ok, err)
	}
	h3 := tr.Commit().Hash()
	if h1 == h2 || h2 == h3 || h1 == h3 || h3 != LeafHash([]byte("a\x00"), hashOf([]byte("1"))) {
		t.Fatalf("roots %x %x %x", h1, h2, h3)
	}
}

// TestOldSnapshotsStillProve keeps every committed root with its model and
// checks them all after later commits changed, added and deleted keys.
func TestOldSnapshotsStillProve(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	g := keyGen{rng: rng, maxLen: 8}
	tr, m := New(), model{}
	type version struct {
		r Root
		h [32]byte
		m model
	}
	var versions []version
	for round := 0; round < 12; round++ {
		applyOps(t, tr, m, g, 30)
		r := tr.Commit()
		versions = append(versions, version{r, r.Hash(), m.clone()})
	}
	for i, v := range versions {
		if v.r.Hash() != v.h || v.r.Len() != len(v.m) || v.m.build(t, rng).Hash() != v.h {
			t.Fatalf("version %d changed after later commits", i)
		}
		for k, val := range v.m {
			if !checkExistence(t, v.r, []byte(k), val) {
				t.Fatalf("version %d", i)
			}
		}
		if !checkRangeProof(t, v.r, []byte{0}, []byte{0xff}, v.m) {
			t.Fatalf("version %d", i)
		}
	}
}

// TestSnapshotProvesWhileWriterApplies reads a committed root from another
// goroutine while the tree applies the next blocks (run it with -race).
func TestSnapshotProvesWhileWriterApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 0))
	g := keyGen{rng: rng, maxLen: 6}
	tr, m := New(), model{}
	applyOps(t, tr, m, g, 200)
	r, frozen := tr.Commit(), m.clone()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k, v := range frozen {
			p, err := r.ProveExistence([]byte(k), v)
			if err == nil {
				err = VerifyExistence(r.Hash(), []byte(k), v, p)
			}
			if err != nil {
				t.Errorf("old snapshot, key %x: %v", k, err)
				return
			}
		}
	}()
	for i := 0; i < 5; i++ {
		applyOps(t, tr, m, g, 100)
		tr.Commit()
	}
	wg.Wait()
}

// TestDeepestTreeProvesAtMaxDepth builds the deepest trie MaxKeyLen allows
// (a chain: key i has its first i bits set, then a zero) and checks that
// the deepest key's proof, MaxDepth steps long, verifies.
func TestDeepestTreeProvesAtMaxDepth(t *testing.T) {
	tr, m := New(), model{}
	for i := 0; i <= 8*MaxKeyLen; i++ {
		k := make([]byte, MaxKeyLen)
		for b := 0; b < i; b++ {
			k[b/8] |= 0x80 >> (b % 8)
		}
		m[string(k)] = []byte{1}
		mustSet(t, tr, k, []byte{1})
	}
	r := tr.Commit()
	deepest := bytes.Repeat([]byte{0xff}, MaxKeyLen)
	p, err := r.ProveExistence(deepest, []byte{1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.GetExist().Path); n != MaxDepth {
		t.Fatalf("deepest path %d steps, want MaxDepth %d", n, MaxDepth)
	}
	if err := VerifyExistence(r.Hash(), deepest, []byte{1}, p); err != nil {
		t.Fatalf("a proof MaxDepth long: %v", err)
	}
	if !checkRangeProof(t, r, deepest[:MaxKeyLen-1], deepest, m) {
		t.Fatal("range at the deep end")
	}
}

func TestProversRefuseWrongValuesAndAbsentKeys(t *testing.T) {
	tr := New()
	mustSet(t, tr, []byte("a\x00"), []byte("1"))
	r := tr.Commit()
	if _, err := r.ProveExistence([]byte("a\x00"), []byte("2")); !errors.Is(err, ErrValueMismatch) {
		t.Errorf("prove with a wrong value: %v, want ErrValueMismatch", err)
	}
	if _, err := r.ProveExistence([]byte("b\x00"), []byte("1")); !errors.Is(err, ErrNotFound) {
		t.Errorf("prove an absent key: %v, want ErrNotFound", err)
	}
	if _, err := r.ProveNonExistence([]byte("a\x00"), model{"a\x00": []byte("1")}.values); err == nil {
		t.Error("proved a present key absent")
	}
	wrong := model{"a\x00": []byte("2")}
	if _, err := r.ProveNonExistence([]byte("b\x00"), wrong.values); !errors.Is(err, ErrValueMismatch) {
		t.Errorf("neighbour with a wrong value: %v, want ErrValueMismatch", err)
	}
}

// Put and Remove return what the key held before, as a Get of the last
// snapshot would, and leave the tree as Set and Delete do.
func TestPutAndRemoveReturnThePreviousValue(t *testing.T) {
	tr, twin := New(), New()
	r := rand.New(rand.NewPCG(36, 3))
	snap := tr.Commit()
	for i := range 2000 {
		key := []byte{byte(r.IntN(40)) + 1, byte(r.IntN(4))}
		value := hashOf([]byte{byte(r.IntN(3))})
		want, wantHad := snap.Get(key)
		var old [32]byte
		var had bool
		var err error
		if r.IntN(3) == 0 {
			old, had, err = tr.Remove(key)
			if err == nil {
				_, err = twin.Delete(key)
			}
		} else {
			old, had, err = tr.Put(key, value)
			if err == nil {
				err = twin.Set(key, value)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if old != want || had != wantHad {
			t.Fatalf("step %d, key %x: returned (%x, %v), snapshot held (%x, %v)", i, key, old, had, want, wantHad)
		}
		snap = tr.Commit()
		if got := twin.Commit(); got.Hash() != snap.Hash() || got.Len() != snap.Len() {
			t.Fatalf("step %d: Put/Remove give %x, Set/Delete %x", i, snap.Hash(), got.Hash())
		}
	}
}
