// Package common holds the workload shared by the spike's benchmarks.
package common

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Key is the order-preserving, prefix-free primary-key encoding of row i:
// present rows have even ids (2i), so every odd id is an absent key between
// two present ones. 8-byte big-endian (a BIGINT PK such as Smallbank's).
func Key(i uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], 2*i)
	return k[:]
}

// Absent is a key between Key(i) and Key(i+1).
func Absent(i uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], 2*i+1)
	return k[:]
}

// Value is a ~100-byte row image for row i at version v.
func Value(i uint64, v int) []byte {
	b := make([]byte, 100)
	r := rand.New(rand.NewPCG(i, uint64(v)))
	for j := range b {
		b[j] = byte(r.Uint32())
	}
	return b
}

// CPU is the process's user+system CPU time.
func CPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// RSS returns VmRSS and VmHWM in MiB.
func RSS() (rss, hwm float64) {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		var v float64
		if strings.HasPrefix(l, "VmRSS:") {
			fmt.Sscanf(strings.TrimPrefix(l, "VmRSS:"), "%f", &v)
			rss = v / 1024
		}
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Sscanf(strings.TrimPrefix(l, "VmHWM:"), "%f", &v)
			hwm = v / 1024
		}
	}
	return
}

// Heap is the live heap in MiB after a GC.
func Heap() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// DirSize is the size of a directory tree in MiB.
func DirSize(dir string) float64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return float64(n) / (1 << 20)
}

// Stats summarises samples.
type Stats struct{ s []float64 }

func (s *Stats) Add(v float64) { s.s = append(s.s, v) }
func (s *Stats) String() string {
	if len(s.s) == 0 {
		return "n/a"
	}
	c := append([]float64(nil), s.s...)
	sort.Float64s(c)
	sum := 0.0
	for _, v := range c {
		sum += v
	}
	return fmt.Sprintf("mean %.1f p50 %.1f p99 %.1f max %.1f", sum/float64(len(c)), c[len(c)/2], c[len(c)*99/100], c[len(c)-1])
}

// Less reports a < b for keys.
func Less(a, b []byte) bool { return bytes.Compare(a, b) < 0 }
