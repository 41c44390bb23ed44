package tpcc_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload/workloadtest"
)

// BenchmarkSetup measures Setup through the in-process chain at full
// per-warehouse scale (TPC-C's cardinalities) with TPCC_WAREHOUSES
// warehouses (default 1):
//
//	go test ./bench/tpcc/ -run '^$' -bench Setup -benchtime 1x
func BenchmarkSetup(b *testing.B) {
	wh := 1
	if s := os.Getenv("TPCC_WAREHOUSES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("TPCC_WAREHOUSES=%q: %v", s, err)
		}
		wh = n
	}
	w, err := tpcc.New(tpcc.Options{Warehouses: wh})
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range dialects {
		b.Run(fmt.Sprintf("%s/warehouses=%d", d, wh), func(b *testing.B) {
			for b.Loop() {
				c := workloadtest.NewChain(b, d)
				c.Setup(w)
			}
		})
	}
}
