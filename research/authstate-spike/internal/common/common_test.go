package common

import (
	"crypto/sha256"
	"testing"
)

// BenchmarkValue is the workload generator's own cost per changed row,
// included in every per-key figure of iavlbench and critbench.
func BenchmarkValue(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Value(uint64(i), 1)
	}
}

func BenchmarkValueSHA256(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		sha256.Sum256(Value(uint64(i), 1))
	}
}
