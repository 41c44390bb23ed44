// arenabench: the blocks phase of critbench on the pointer-free layout.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"time"

	"spike36/critarena"
	"spike36/internal/common"
)

func main() {
	n := flag.Uint64("n", 10000, "rows")
	blocks := flag.Int("blocks", 20, "blocks per batch size")
	prof := flag.String("cpuprofile", "", "profile the blocks phase")
	flag.Parse()
	h0 := common.Heap()
	tr := critarena.New(int(*n))
	perm := rand.New(rand.NewPCG(1, 2)).Perm(int(*n))
	c0, t0 := common.CPU(), time.Now()
	for j, p := range perm {
		tr.Set(common.Key(uint64(p)), sha256.Sum256(common.Value(uint64(p), 0)))
		if (j+1)%10000 == 0 || j+1 == len(perm) {
			tr.Commit()
		}
	}
	root := tr.Commit()
	rss, _ := common.RSS()
	fmt.Printf("critarena n=%d\nload: wall %.2fs cpu %.2fs = %.1f µs CPU/row; heap %.0f MiB (%.0f B/row) rss %.0f MiB; root %x\n",
		*n, time.Since(t0).Seconds(), (common.CPU() - c0).Seconds(), float64((common.CPU()-c0).Microseconds())/float64(*n),
		common.Heap()-h0, (common.Heap()-h0)*(1<<20)/float64(*n), rss, root[:8])
	{
		re := critarena.New(int(*n))
		c0, t0 := common.CPU(), time.Now()
		for i := uint64(0); i < *n; i++ {
			re.Set(common.Key(i), sha256.Sum256(common.Value(i, 0)))
		}
		same := string(re.Commit()) == string(root)
		fmt.Printf("rebuild from a sorted scan: wall %.2fs cpu %.2fs = %.1f µs CPU/row; same root: %v\n",
			time.Since(t0).Seconds(), (common.CPU() - c0).Seconds(), float64((common.CPU()-c0).Microseconds())/float64(*n), same)
	}
	if *prof != "" {
		f, _ := os.Create(*prof)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	rng := rand.New(rand.NewPCG(3, 4))
	v := 1
	for _, batch := range []int{100, 1000} {
		var cpu, commit common.Stats
		for b := 0; b < *blocks; b++ {
			v++
			c0 := common.CPU()
			for k := 0; k < batch; k++ {
				i := rng.Uint64N(*n)
				tr.Set(common.Key(i), sha256.Sum256(common.Value(i, v)))
			}
			t1 := time.Now()
			tr.Commit()
			cpu.Add(float64((common.CPU() - c0).Microseconds()) / float64(batch))
			commit.Add(float64(time.Since(t1).Microseconds()))
		}
		fmt.Printf("block of %d updates + Commit: CPU µs/key %s | Commit wall µs %s | nodes rehashed %d\n", batch, &cpu, &commit, tr.Dirty)
	}
	rss, hwm := common.RSS()
	fmt.Printf("after blocks: heap %.0f MiB (tree live) rss %.0f MiB hwm %.0f MiB\n", common.Heap(), rss, hwm)
	tr.Set(common.Key(0), [32]byte{}) // keep tr live until here
}
