// iavlbench measures cosmos/iavl v1.2.0 as relchain's per-table authenticated
// structure: bulk load, per-block updates, ICS23 point and range proofs.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"cosmossdk.io/log"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/iavl"
	idb "github.com/cosmos/iavl/db"
	ics23 "github.com/cosmos/ics23/go"

	"spike36/internal/common"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	n := flag.Uint64("n", 10000, "rows")
	backend := flag.String("db", "goleveldb", "goleveldb or memdb")
	dir := flag.String("dir", "/tmp/spike36-iavl", "db dir")
	blocks := flag.Int("blocks", 20, "blocks per batch size")
	cache := flag.Int("cache", 100000, "iavl node cache size")
	sync := flag.Bool("sync", false, "fsync each SaveVersion")
	keep := flag.Int64("keep", 2, "versions kept (prune older each block); 0 = no pruning")
	hashValue := flag.Bool("hashvalue", false, "store sha256(row image) (32 B) as the value instead of the image")
	flag.Parse()

	var db idb.DB
	if *backend == "memdb" {
		db = idb.NewMemDB()
	} else {
		os.RemoveAll(*dir)
		var err error
		ldb, err := dbm.NewGoLevelDB("iavl", *dir, nil)
		must(err)
		db = idb.NewWrapper(ldb)
	}
	tree := iavl.NewMutableTree(db, *cache, true, log.NewNopLogger(), iavl.SyncOption(*sync))
	val := func(i uint64, v int) []byte {
		b := common.Value(i, v)
		if *hashValue {
			s := sha(b)
			return s
		}
		return b
	}

	// Bulk load in shuffled order, 10,000 rows per version (as the rows of a
	// replayed history would arrive).
	perm := rand.New(rand.NewPCG(1, 2)).Perm(int(*n))
	c0, t0 := common.CPU(), time.Now()
	for j, p := range perm {
		_, err := tree.Set(common.Key(uint64(p)), val(uint64(p), 0))
		must(err)
		if (j+1)%10000 == 0 || j+1 == len(perm) {
			_, _, err := tree.SaveVersion()
			must(err)
		}
	}
	loadCPU, loadWall := common.CPU()-c0, time.Since(t0)
	rss, _ := common.RSS()
	fmt.Printf("iavl db=%s n=%d sync=%v hashvalue=%v\n", *backend, *n, *sync, *hashValue)
	fmt.Printf("load: wall %.2fs cpu %.2fs = %.1f µs CPU/row; height %d; heap %.0f MiB rss %.0f MiB\n",
		loadWall.Seconds(), loadCPU.Seconds(), float64(loadCPU.Microseconds())/float64(*n), tree.Height(), common.Heap(), rss)
	if *backend != "memdb" {
		fmt.Printf("disk after load: %.1f MiB\n", common.DirSize(*dir))
	}

	rng := rand.New(rand.NewPCG(3, 4))
	ver := 1
	for _, batch := range []int{100, 1000} {
		var cpu, wall, commit common.Stats
		for b := 0; b < *blocks; b++ {
			ver++
			c0, t0 := common.CPU(), time.Now()
			for k := 0; k < batch; k++ {
				i := rng.Uint64N(*n)
				_, err := tree.Set(common.Key(i), val(i, ver))
				must(err)
			}
			t1 := time.Now()
			_, v, err := tree.SaveVersion()
			must(err)
			if *keep > 0 && v > *keep {
				must(tree.DeleteVersionsTo(v - *keep))
			}
			cpu.Add(float64((common.CPU() - c0).Microseconds()) / float64(batch))
			wall.Add(float64(time.Since(t0).Microseconds()) / float64(batch))
			commit.Add(float64(time.Since(t1).Microseconds()))
		}
		fmt.Printf("block of %d updates + SaveVersion%s: CPU µs/key %s | wall µs/key %s | SaveVersion wall µs %s\n",
			batch, map[bool]string{true: " + prune", false: ""}[*keep > 0], &cpu, &wall, &commit)
	}
	rss, hwm := common.RSS()
	fmt.Printf("after blocks: heap %.0f MiB rss %.0f MiB hwm %.0f MiB\n", common.Heap(), rss, hwm)
	if *backend != "memdb" {
		fmt.Printf("disk after blocks: %.1f MiB\n", common.DirSize(*dir))
	}

	imm, err := tree.GetImmutable(tree.Version())
	must(err)
	root := imm.Hash()

	// Point proofs.
	var esz, nsz, egen, ever, ngen, nver, ncsz, ncver common.Stats
	for k := 0; k < 1000; k++ {
		i := rng.Uint64N(*n)
		key := common.Key(i)
		t0 := time.Now()
		p, err := imm.GetMembershipProof(key)
		must(err)
		egen.Add(float64(time.Since(t0).Microseconds()))
		bz, err := p.Marshal()
		must(err)
		esz.Add(float64(len(bz)))
		value := p.GetExist().Value
		t0 = time.Now()
		var q ics23.CommitmentProof
		must(q.Unmarshal(bz))
		ok := ics23.VerifyMembership(ics23.IavlSpec, root, &q, key, value)
		ever.Add(float64(time.Since(t0).Nanoseconds()) / 1000)
		if !ok {
			panic("membership proof did not verify")
		}

		abs := common.Absent(i)
		t0 = time.Now()
		p, err = imm.GetNonMembershipProof(abs)
		must(err)
		ngen.Add(float64(time.Since(t0).Microseconds()))
		bz, err = p.Marshal()
		must(err)
		nsz.Add(float64(len(bz)))
		t0 = time.Now()
		var r ics23.CommitmentProof
		must(r.Unmarshal(bz))
		ok = ics23.VerifyNonMembership(ics23.IavlSpec, root, &r, abs)
		nver.Add(float64(time.Since(t0).Nanoseconds()) / 1000)
		c, err := ics23.CombineProofs([]*ics23.CommitmentProof{p})
		if err != nil {
			panic(err)
		}
		bz, _ = c.Marshal()
		ncsz.Add(float64(len(bz)))
		t0 = time.Now()
		var cq ics23.CommitmentProof
		if cq.Unmarshal(bz) != nil || !ics23.VerifyNonMembership(ics23.IavlSpec, root, &cq, abs) {
			panic("compressed non-membership")
		}
		ncver.Add(float64(time.Since(t0).Nanoseconds()) / 1000)
		if !ok {
			panic("non-membership proof did not verify")
		}
	}
	fmt.Printf("existence proof: bytes %s | gen µs %s | unmarshal+verify µs %s\n", &esz, &egen, &ever)
	fmt.Printf("non-existence proof: bytes %s | gen µs %s | unmarshal+verify µs %s\n", &nsz, &ngen, &nver)
	fmt.Printf("non-existence proof, ics23 compressed batch of one: bytes %s | unmarshal+verify µs %s\n", &ncsz, &ncver)

	// Range proofs: 100 rows [lo, hi) plus the rows just outside.
	var rraw, rcomp, rgen, rver common.Stats
	for k := 0; k < 50; k++ {
		start := rng.Uint64N(*n-100) + 1                          // keep a left neighbour
		lo, hi := common.Absent(start-1), common.Absent(start+99) // range [lo, hi] holds rows start..start+99
		t0 := time.Now()
		var keys [][]byte
		// neighbour below lo, rows in range, neighbour above hi
		it, err := imm.Iterator(nil, lo, false)
		must(err)
		if it.Valid() {
			keys = append(keys, bytes.Clone(it.Key()))
		}
		it.Close()
		it, err = imm.Iterator(lo, nil, true)
		must(err)
		for ; it.Valid(); it.Next() {
			keys = append(keys, bytes.Clone(it.Key()))
			if bytes.Compare(it.Key(), hi) > 0 {
				break
			}
		}
		it.Close()
		var proofs []*ics23.CommitmentProof
		raw := 0
		for _, key := range keys {
			p, err := imm.GetMembershipProof(key)
			must(err)
			bz, _ := p.Marshal()
			raw += len(bz)
			proofs = append(proofs, p)
		}
		batch, err := ics23.CombineProofs(proofs)
		must(err)
		bz, err := batch.Marshal()
		must(err)
		rgen.Add(float64(time.Since(t0).Microseconds()))
		rraw.Add(float64(raw))
		rcomp.Add(float64(len(bz)))
		t0 = time.Now()
		var q ics23.CommitmentProof
		must(q.Unmarshal(bz))
		if !VerifyRange(ics23.IavlSpec, root, &q, lo, hi) {
			panic("range proof did not verify")
		}
		rver.Add(float64(time.Since(t0).Microseconds()))
		if len(keys) != 102 {
			panic(fmt.Sprint("range has ", len(keys)))
		}
	}
	fmt.Printf("100-row range (102 existence proofs): separate bytes %s | compressed batch bytes %s | gen µs %s | unmarshal+verify µs %s\n",
		&rraw, &rcomp, &rgen, &rver)
	if *backend != "memdb" {
		must(tree.Close())
		fmt.Printf("disk at end: %.1f MiB\n", common.DirSize(*dir))
	}
}
