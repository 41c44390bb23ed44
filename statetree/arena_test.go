package statetree

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"testing"
)

// TestCompactionKeepsRootsAndSnapshots churns a small tree through enough
// commits to compact its arena several times, and checks that every root
// equals that of a tree built afresh from the same rows, that the arena
// stays bounded, and that a Root committed before the compactions still
// proves every row, read concurrently with the writer (run it with -race).
func TestCompactionKeepsRootsAndSnapshots(t *testing.T) {
	const rows = 300
	key := func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }
	image := func(i, v int) []byte { return []byte{byte(i), byte(i >> 8), byte(v), byte(v >> 8)} }
	tr, version := New(), make([]int, rows)
	for i := 0; i < rows; i++ {
		mustSet(t, tr, key(i), image(i, 0))
	}
	old := tr.Commit()
	proveOld := func(when string) {
		for i := 0; i < rows; i++ {
			p, err := old.ProveExistence(key(i), image(i, 0))
			if err == nil {
				err = VerifyExistence(old.Hash(), key(i), image(i, 0), p)
			}
			if err != nil {
				t.Errorf("old snapshot %s, row %d: %v", when, i, err)
				return
			}
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for pass := 0; pass < 3; pass++ {
			proveOld("during the writes")
		}
	}()
	compactions, lastIn := 0, tr.a.nIn
	for c := 1; c <= 120; c++ {
		for j := 0; j < 40; j++ {
			i := (c*7919 + j*104729) % (rows / 2) // the upper half stays shared with old
			version[i] = c
			mustSet(t, tr, key(i), image(i, c))
		}
		if c%10 == 0 { // deletes and re-inserts too
			if ok, err := tr.Delete(key(c)); !ok || err != nil {
				t.Fatalf("delete row %d: %v %v", c, ok, err)
			}
			mustSet(t, tr, key(c), image(c, version[c]))
		}
		r := tr.Commit()
		if tr.a.nIn < lastIn {
			compactions++
		}
		lastIn = tr.a.nIn
		if used := int(tr.a.nIn + tr.a.nLeaf); used > 4*rows+4*chunkLen {
			t.Fatalf("commit %d: %d arena slots for %d rows", c, used, rows)
		}
		fresh := New()
		for i := 0; i < rows; i++ {
			mustSet(t, fresh, key(i), image(i, version[i]))
		}
		if r.Hash() != fresh.Commit().Hash() {
			t.Fatalf("commit %d: root differs from a tree built afresh", c)
		}
	}
	wg.Wait()
	proveOld("after the writes")
	if compactions < 2 {
		t.Fatalf("%d compactions; the test should cause several", compactions)
	}
	if got, want := old.Hash(), rootOf(t, rows, key, image); got != want {
		t.Fatalf("old snapshot's hash changed")
	}
}

func rootOf(t *testing.T, rows int, key func(int) []byte, image func(i, v int) []byte) [32]byte {
	tr := New()
	for i := 0; i < rows; i++ {
		if err := tr.Set(key(i), sha256.Sum256(image(i, 0))); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Commit().Hash()
}
