package snapshot

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/backend"
)

func checkpoint(t *testing.T, size int) backend.Checkpoint {
	t.Helper()
	p := filepath.Join(t.TempDir(), "checkpoint-7.db")
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 31)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return backend.Checkpoint{Height: 7, Path: p}
}

// Chunks served and received reassemble the file byte for byte, also after
// the checkpoint is pruned while the snapshot is being fetched.
func TestRoundTrip(t *testing.T) {
	cp := checkpoint(t, 10_000)
	want, _ := os.ReadFile(cp.Path)
	src := &Source{Backend: "sqlite", ChunkSize: 4096, List: func() ([]backend.Checkpoint, error) { return []backend.Checkpoint{cp}, nil }}
	defer src.Close()
	snaps, err := src.Snapshots(10)
	if err != nil || len(snaps) != 1 || snaps[0].Chunks != 3 {
		t.Fatalf("snapshots %v, %v", snaps, err)
	}
	if err := os.Remove(cp.Path); err != nil { // pruned
		t.Fatal(err)
	}
	r := &Receiver{Backend: "sqlite", Dir: t.TempDir()}
	if res, err := r.Offer(snaps[0]); err != nil || res != abci.ResponseOfferSnapshot_ACCEPT {
		t.Fatalf("offer: %v %v", res, err)
	}
	for i := uint32(0); i < 3; i++ {
		chunk, err := src.Chunk(7, Format, i)
		if err != nil {
			t.Fatal(err)
		}
		done, err := r.Apply(i, chunk, "p")
		if err != nil || done != (i == 2) {
			t.Fatalf("chunk %d: done %v, %v", i, done, err)
		}
	}
	got, err := os.ReadFile(r.File().Path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("reassembled %d bytes (%v), want the %d of the checkpoint", len(got), err, len(want))
	}
}

func TestOfferRefusesBadSnapshots(t *testing.T) {
	cp := checkpoint(t, 5000)
	src := &Source{Backend: "sqlite", ChunkSize: 4096, List: func() ([]backend.Checkpoint, error) { return []backend.Checkpoint{cp}, nil }}
	defer src.Close()
	snaps, _ := src.Snapshots(1)
	good := snaps[0]
	mutate := func(f func(s *abci.Snapshot)) *abci.Snapshot {
		s := *good
		f(&s)
		return &s
	}
	rehash := func(s *abci.Snapshot) {
		h := sha256.Sum256(s.Metadata)
		s.Hash = h[:]
	}
	for name, c := range map[string]struct {
		snap *abci.Snapshot
		want abci.ResponseOfferSnapshot_Result
	}{
		"format":      {mutate(func(s *abci.Snapshot) { s.Format = 9 }), abci.ResponseOfferSnapshot_REJECT_FORMAT},
		"hash":        {mutate(func(s *abci.Snapshot) { s.Hash = []byte{1} }), abci.ResponseOfferSnapshot_REJECT},
		"chunk count": {mutate(func(s *abci.Snapshot) { s.Chunks = 5 }), abci.ResponseOfferSnapshot_REJECT},
		"metadata":    {mutate(func(s *abci.Snapshot) { s.Metadata = []byte("{"); rehash(s) }), abci.ResponseOfferSnapshot_REJECT},
		"size": {mutate(func(s *abci.Snapshot) {
			s.Metadata = bytes.Replace(s.Metadata, []byte(`"size":5000`), []byte(`"size":9000`), 1)
			rehash(s)
		}), abci.ResponseOfferSnapshot_REJECT},
		"other engine": {mutate(func(s *abci.Snapshot) {
			s.Metadata = bytes.Replace(s.Metadata, []byte(`"sqlite"`), []byte(`"postgres"`), 1)
			rehash(s)
		}), abci.ResponseOfferSnapshot_REJECT},
	} {
		r := &Receiver{Backend: "sqlite", Dir: t.TempDir()}
		if res, err := r.Offer(c.snap); res != c.want || err == nil {
			t.Errorf("%s: %v (%v), want %v with a reason", name, res, err, c.want)
		}
	}
	r := &Receiver{Backend: "sqlite", Dir: t.TempDir()}
	if res, err := r.Offer(good); res != abci.ResponseOfferSnapshot_ACCEPT {
		t.Fatalf("good snapshot: %v %v", res, err)
	}
	if _, err := r.Apply(1, []byte("x"), "p"); err == nil {
		t.Fatal("chunk 1 before chunk 0 was accepted")
	}
}
