// critbench measures option B (package critbit): an in-memory, history-
// independent Merkle crit-bit trie with ICS23 TendermintSpec proofs.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"time"

	ics23 "github.com/cosmos/ics23/go"

	"spike36/critbit"
	"spike36/internal/common"
	"spike36/rangeproof"
)

func main() {
	n := flag.Uint64("n", 10000, "rows")
	blocks := flag.Int("blocks", 20, "blocks per batch size")
	hashValue := flag.Bool("hashvalue", false, "the ICS23 value is SHA256(row image) (32 B), not the image")
	prof := flag.String("cpuprofile", "", "profile the blocks phase into this file")
	flag.Parse()
	img := func(i uint64, v int) []byte {
		b := common.Value(i, v)
		if *hashValue {
			h := sha256.Sum256(b)
			return h[:]
		}
		return b
	}
	ver := map[uint64]int{} // row -> version of its image (the "SQL table")
	value := func(k []byte) []byte {
		i := uint64(k[7]>>1) | uint64(k[6])<<7 | uint64(k[5])<<15 | uint64(k[4])<<23 // Key(i) = BE(2i), i < 2^31
		return img(i, ver[i])
	}

	var tr critbit.Tree
	perm := rand.New(rand.NewPCG(1, 2)).Perm(int(*n))
	h0 := common.Heap()
	c0, t0 := common.CPU(), time.Now()
	for j, p := range perm {
		tr.Set(common.Key(uint64(p)), sha256.Sum256(img(uint64(p), 0)))
		if (j+1)%10000 == 0 || j+1 == len(perm) {
			tr.Commit()
		}
	}
	loadCPU, loadWall := common.CPU()-c0, time.Since(t0)
	rss, _ := common.RSS()
	maxd, meand := tr.Snapshot().Depth()
	fmt.Printf("critbit n=%d hashvalue=%v\n", *n, *hashValue)
	fmt.Printf("load (shuffled, commit per 10k): wall %.2fs cpu %.2fs = %.1f µs CPU/row (incl. SHA256 of the 100 B image); depth max %d mean %.1f; tree heap %.0f MiB (%.0f B/row) rss %.0f MiB\n",
		loadWall.Seconds(), loadCPU.Seconds(), float64(loadCPU.Microseconds())/float64(*n), maxd, meand, common.Heap()-h0, (common.Heap()-h0)*(1<<20)/float64(*n), rss)

	// Rebuild at start: from the rows in PK order (a table scan), one commit.
	{
		var re critbit.Tree
		c0, t0 := common.CPU(), time.Now()
		for i := uint64(0); i < *n; i++ {
			re.Set(common.Key(i), sha256.Sum256(img(i, 0)))
		}
		root := re.Commit()
		if string(root) != string(tr.Root()) {
			panic("rebuild differs")
		}
		fmt.Printf("rebuild from a sorted scan (images hashed): wall %.2fs cpu %.2fs = %.1f µs CPU/row; same root: yes\n",
			time.Since(t0).Seconds(), (common.CPU() - c0).Seconds(), float64((common.CPU()-c0).Microseconds())/float64(*n))
	}

	rng := rand.New(rand.NewPCG(3, 4))
	v := 1
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			panic(err)
		}
		pprof.StartCPUProfile(f)
	}
	for _, batch := range []int{100, 1000} {
		var cpu, wall, commit, dirty common.Stats
		for b := 0; b < *blocks; b++ {
			v++
			c0, t0 := common.CPU(), time.Now()
			for k := 0; k < batch; k++ {
				i := rng.Uint64N(*n)
				ver[i] = v
				tr.Set(common.Key(i), sha256.Sum256(img(i, v)))
			}
			t1 := time.Now()
			tr.Commit()
			cpu.Add(float64((common.CPU() - c0).Microseconds()) / float64(batch))
			wall.Add(float64(time.Since(t0).Microseconds()) / float64(batch))
			commit.Add(float64(time.Since(t1).Microseconds()))
			dirty.Add(float64(tr.Dirty))
		}
		fmt.Printf("block of %d updates + Commit: CPU µs/key %s | wall µs/key %s | Commit wall µs %s | nodes rewritten/block %s\n",
			batch, &cpu, &wall, &commit, &dirty)
	}
	if *prof != "" {
		pprof.StopCPUProfile()
	}
	rss, hwm := common.RSS()
	fmt.Printf("after blocks: heap %.0f MiB rss %.0f MiB hwm %.0f MiB (old versions garbage-collected)\n", common.Heap(), rss, hwm)

	s := tr.Snapshot()
	root := tr.Root()
	var esz, nsz, egen, ever, ngen, nver, ncsz, ncver common.Stats
	for k := 0; k < 1000; k++ {
		i := rng.Uint64N(*n)
		key := common.Key(i)
		val := img(i, ver[i])
		t0 := time.Now()
		e, err := s.Exist(key, val)
		if err != nil {
			panic(err)
		}
		p := &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Exist{Exist: e}}
		egen.Add(float64(time.Since(t0).Microseconds()))
		bz, _ := p.Marshal()
		esz.Add(float64(len(bz)))
		t0 = time.Now()
		var q ics23.CommitmentProof
		if q.Unmarshal(bz) != nil || !ics23.VerifyMembership(ics23.TendermintSpec, root, &q, key, val) {
			panic("membership")
		}
		ever.Add(float64(time.Since(t0).Nanoseconds()) / 1000)

		abs := common.Absent(i)
		t0 = time.Now()
		p = s.NonExist(abs, value)
		ngen.Add(float64(time.Since(t0).Microseconds()))
		bz, _ = p.Marshal()
		nsz.Add(float64(len(bz)))
		t0 = time.Now()
		var r ics23.CommitmentProof
		if r.Unmarshal(bz) != nil || !ics23.VerifyNonMembership(ics23.TendermintSpec, root, &r, abs) {
			panic("non-membership")
		}
		nver.Add(float64(time.Since(t0).Nanoseconds()) / 1000)
		c, err := ics23.CombineProofs([]*ics23.CommitmentProof{p})
		if err != nil {
			panic(err)
		}
		bz, _ = c.Marshal()
		ncsz.Add(float64(len(bz)))
		t0 = time.Now()
		var cq ics23.CommitmentProof
		if cq.Unmarshal(bz) != nil || !ics23.VerifyNonMembership(ics23.TendermintSpec, root, &cq, abs) {
			panic("compressed non-membership")
		}
		ncver.Add(float64(time.Since(t0).Nanoseconds()) / 1000)
	}
	fmt.Printf("existence proof: bytes %s | gen µs %s | unmarshal+verify µs %s\n", &esz, &egen, &ever)
	fmt.Printf("non-existence proof: bytes %s | gen µs %s | unmarshal+verify µs %s\n", &nsz, &ngen, &nver)
	fmt.Printf("non-existence proof, ics23 compressed batch of one: bytes %s | unmarshal+verify µs %s\n", &ncsz, &ncver)

	var rraw, rcomp, rgen, rver common.Stats
	for k := 0; k < 50; k++ {
		start := rng.Uint64N(*n-101) + 1
		lo, hi := common.Absent(start-1), common.Absent(start+99)
		t0 := time.Now()
		var keys [][]byte
		for i := start - 1; i <= start+100; i++ {
			keys = append(keys, common.Key(i))
		}
		p := s.Batch(keys, value)
		raw, _ := p.Marshal()
		c, err := ics23.CombineProofs([]*ics23.CommitmentProof{p})
		if err != nil {
			panic(err)
		}
		bz, _ := c.Marshal()
		rgen.Add(float64(time.Since(t0).Microseconds()))
		rraw.Add(float64(len(raw)))
		rcomp.Add(float64(len(bz)))
		t0 = time.Now()
		var q ics23.CommitmentProof
		if q.Unmarshal(bz) != nil {
			panic("unmarshal")
		}
		rows, ok := rangeproof.Verify(ics23.TendermintSpec, root, &q, lo, hi)
		if !ok || len(rows) != 100 {
			panic(fmt.Sprint("range ", ok, len(rows)))
		}
		rver.Add(float64(time.Since(t0).Microseconds()))
	}
	fmt.Printf("100-row range (102 existence proofs): batch bytes %s | compressed batch bytes %s | gen µs %s | unmarshal+verify µs %s\n",
		&rraw, &rcomp, &rgen, &rver)
}
