package app

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/sqlite"
)

// newPoolTestExecutor is newEnvelopeTestExecutor with a verification pool
// of n.
func newPoolTestExecutor(t *testing.T, n int) *Executor {
	t.Helper()
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	p := DefaultParams()
	p.MaxTxBytes = 4096
	ex, err := NewExecutor(ctx, be, envTestChain, p, WithVerifyPool(n))
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// The pool must not change a verdict: a block of the edge-case envelopes
// (valid, forged, truncated, non-canonical, crafted signatures), repeated
// so that the block is longer than the pool may run ahead
// (aheadMaxTxs), gives the same codes, data and logs with pools of 1, 2,
// 3 and 8, on a node that never saw the txs and on one that admitted
// some of them in CheckTx (cached: the pool skips them); and the pool's
// verdicts never enter the envelope cache.
func TestVerifyPoolGivesTheSerialVerdicts(t *testing.T) {
	ctx := context.Background()
	names, raws := edgeCaseEnvelopes(t)
	var block [][]byte
	var blockNames []string
	for len(block) < aheadMaxTxs+200 {
		for i, raw := range raws {
			block = append(block, raw)
			blockNames = append(blockNames, names[i])
		}
	}
	block = append(block, nil, []byte{}) // empty txs: refused alike
	blockNames = append(blockNames, "nil", "empty")
	serial := newPoolTestExecutor(t, 1)
	serial.envelopes = nil
	want := finalizeAndCommit(t, serial, block)
	for _, n := range []int{1, 2, 3, 8} {
		for _, seen := range []bool{false, true} {
			t.Run(fmt.Sprintf("pool %d seen %v", n, seen), func(t *testing.T) {
				ex := newPoolTestExecutor(t, n)
				admitted := 0
				if seen {
					for _, raw := range raws[:len(raws)/2] {
						if _, rej := ex.Check(ctx, raw); rej == nil {
							admitted++
						}
					}
				}
				h := ex.State().Height + 1
				sum := sha256.Sum256([]byte(fmt.Sprint("block ", h)))
				got, _, err := ex.FinalizeBlock(ctx, BlockInfo{Height: h, Time: time.Date(2026, 11, 27, 0, 0, int(h), 0, time.UTC), Hash: sum[:]}, block)
				if err != nil {
					t.Fatal(err)
				}
				if st := ex.envelopes.stats(); st.Entries != admitted {
					t.Errorf("the envelope cache holds %d entries after the block, CheckTx admitted %d", st.Entries, admitted)
				}
				if _, err := ex.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				if ex.ahead.Load() != nil {
					t.Error("the block's verdicts outlive it")
				}
				for i := range want {
					if got[i].Code != want[i].Code || string(got[i].Data) != string(want[i].Data) || got[i].Log != want[i].Log {
						t.Errorf("tx %d (%s): code %d data %s log %q, serially code %d data %s log %q",
							i, blockNames[i], got[i].Code, got[i].Data, got[i].Log, want[i].Code, want[i].Data, want[i].Log)
					}
				}
			})
		}
	}
}
