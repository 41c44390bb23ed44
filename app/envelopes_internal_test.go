package app

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oasisprotocol/curve25519-voi/curve"
	"github.com/oasisprotocol/curve25519-voi/curve/scalar"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/txn"
)

const envTestChain = "envelope-test"

func signedEnvelope(t *testing.T, keySeed byte, nonce uint64, sql string) (*txn.Tx, []byte) {
	t.Helper()
	seed := sha256.Sum256([]byte{keySeed})
	tx := &txn.Tx{ChainID: envTestChain, Nonce: nonce, Statements: []txn.Statement{{SQL: sql, Args: []txn.Arg{txn.Int(int64(nonce))}}}}
	tx.Sign(ed25519.NewKeyFromSeed(seed[:]))
	return tx, txn.Encode(tx)
}

func TestEnvelopeCacheHitsMissesAndBounds(t *testing.T) {
	tx, raw := signedEnvelope(t, 1, 1, "SELECT ?1")
	size := envelopeSize(tx, len(raw))
	h := func(i int) [32]byte { return sha256.Sum256([]byte{byte(i)}) }

	c := newEnvelopeCache(3, 1<<20)
	if _, ok := c.get(h(0)); ok {
		t.Fatal("an empty cache has a hit")
	}
	for i := range 4 {
		c.add(h(i), tx, len(raw))
	}
	if got, ok := c.get(h(3)); !ok || got != tx {
		t.Fatal("the newest entry is missing")
	}
	if _, ok := c.get(h(0)); ok {
		t.Fatal("beyond 3 entries the oldest should have been evicted")
	}
	if c.hits != 1 || c.misses != 2 {
		t.Fatalf("hits %d misses %d, want 1 and 2", c.hits, c.misses)
	}
	c.forget([][32]byte{h(2), h(9)})
	if _, ok := c.get(h(2)); ok {
		t.Fatal("a forgotten entry is still there")
	}
	if c.order.Len() != 2 || c.bytes != 2*size {
		t.Fatalf("%d entries, %d bytes after forget, want 2 and %d", c.order.Len(), c.bytes, 2*size)
	}

	// The byte bound: room for two entries; an entry larger than the
	// whole bound is not cached at all.
	b := newEnvelopeCache(100, 2*size)
	for i := range 3 {
		b.add(h(i), tx, len(raw))
	}
	if _, ok := b.get(h(0)); ok || b.bytes != 2*size {
		t.Fatalf("bytes %d (limit %d), oldest present %v", b.bytes, 2*size, ok)
	}
	b.add(h(7), tx, 3*size)
	if _, ok := b.get(h(7)); ok {
		t.Fatal("an envelope larger than the byte bound was cached")
	}

	var none *envelopeCache
	none.add(h(0), tx, len(raw))
	none.forget([][32]byte{h(0)})
	if _, ok := none.get(h(0)); ok {
		t.Fatal("a nil cache has a hit")
	}
}

// CheckTx and the block run on different goroutines (go test -race).
func TestEnvelopeCacheIsSafeForConcurrentUse(t *testing.T) {
	tx, raw := signedEnvelope(t, 1, 1, "SELECT ?1")
	c := newEnvelopeCache(64, 1<<20)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				h := sha256.Sum256([]byte{byte(g), byte(i), byte(i >> 8)})
				c.add(h, tx, len(raw))
				if _, ok := c.get(h); !ok {
					// At most 4 entries exist at a time (each goroutine
					// forgets its own), far below the bound of 64.
					t.Errorf("entry added just now is missing")
				}
				c.forget([][32]byte{h})
			}
		})
	}
	wg.Wait()
	if c.order.Len() != 0 || len(c.byHash) != 0 || c.bytes != 0 {
		t.Fatalf("after forgetting everything: %d entries, %d hashes, %d bytes", c.order.Len(), len(c.byHash), c.bytes)
	}
}

// smallOrder8 is a point of order 8 on edwards25519.
const smallOrder8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"

// craftTx signs tx with the key of seed as ed25519 does, except that the
// point of order 8 is added to R (torsionR) and/or to the public key
// (torsionA), and the scalar is computed for those points: signatures
// that the cofactored equation accepts and the cofactorless one
// (crypto/ed25519) refuses (always with torsionR; with torsionA unless 8
// divides the challenge).
func craftTx(t *testing.T, seed byte, tx *txn.Tx, torsionR, torsionA bool) {
	t.Helper()
	var tc curve.CompressedEdwardsY
	var torsion curve.EdwardsPoint
	if _, err := tc.SetBytes(mustHexBytes(t, smallOrder8)); err != nil {
		t.Fatal(err)
	}
	if _, err := torsion.SetCompressedY(&tc); err != nil || !torsion.IsSmallOrder() || torsion.IsIdentity() {
		t.Fatalf("%s is not a point of small order: %v", smallOrder8, err)
	}
	must := func(_ *scalar.Scalar, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	digest := sha512.Sum512([]byte{seed})
	var a, r, k, s scalar.Scalar
	must(a.SetBytesModOrder(clamp(digest[:32])))
	var pointA curve.EdwardsPoint
	pointA.MulBasepoint(curve.ED25519_BASEPOINT_TABLE, &a)
	if torsionA {
		pointA.Add(&pointA, &torsion)
	}
	var pubC curve.CompressedEdwardsY
	pubC.SetEdwardsPoint(&pointA)
	tx.PubKey = append(ed25519.PublicKey(nil), pubC[:]...)
	msg := tx.SignBytes()
	rh := sha512.Sum512(append(append([]byte{}, digest[32:]...), msg...))
	must(r.SetBytesModOrderWide(rh[:]))
	var pointR curve.EdwardsPoint
	pointR.MulBasepoint(curve.ED25519_BASEPOINT_TABLE, &r)
	if torsionR {
		pointR.Add(&pointR, &torsion)
	}
	var rC curve.CompressedEdwardsY
	rC.SetEdwardsPoint(&pointR)
	kh := sha512.New()
	kh.Write(rC[:])
	kh.Write(tx.PubKey)
	kh.Write(msg)
	must(k.SetBytesModOrderWide(kh.Sum(nil)))
	s.Mul(&k, &a)
	s.Add(&s, &r)
	sig := make([]byte, 64)
	copy(sig, rC[:])
	if err := s.ToBytes(sig[32:]); err != nil {
		t.Fatal(err)
	}
	tx.Signature = sig
}

func clamp(b []byte) []byte {
	c := append([]byte(nil), b...)
	c[0] &= 248
	c[31] &= 127
	c[31] |= 64
	return c
}

func mustHexBytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cofactoredBatchAccepts is what a batch verification (curve25519-voi's
// BatchVerifier, which needs the cofactored equation) says of tx alone.
func cofactoredBatchAccepts(tx *txn.Tx) bool {
	v := voi.NewBatchVerifier()
	v.AddWithOptions(voi.PublicKey(tx.PubKey), tx.SignBytes(), tx.Signature, &voi.Options{Verify: voi.VerifyOptionsFIPS_186_5})
	return v.VerifyBatchOnly(nil)
}

// The reason the block verifies the signatures of txs it has not cached
// one by one instead of in a batch (app/DESIGN.md): a batch's equation is
// cofactored, and accepts signatures crypto/ed25519 (and so CheckTx)
// refuses.
func TestCofactoredBatchAcceptsSignaturesTheStandardLibraryRefuses(t *testing.T) {
	tx := &txn.Tx{ChainID: envTestChain, Nonce: 1, Statements: []txn.Statement{{SQL: "SELECT 1"}}}
	craftTx(t, 3, tx, false, false)
	if tx.Verify() != nil || verifySignature(tx) != nil || !cofactoredBatchAccepts(tx) {
		t.Fatal("the crafting itself is wrong: an untouched signature does not verify")
	}
	craftTx(t, 3, tx, true, false)
	if tx.Verify() == nil || verifySignature(tx) == nil {
		t.Fatal("crypto/ed25519 accepts R with a torsion component")
	}
	if !cofactoredBatchAccepts(tx) {
		t.Fatal("the cofactored batch refuses R with a torsion component: then batching would be safe, revisit app/DESIGN.md")
	}
}

// newEnvelopeTestExecutor is an executor on a fresh SQLite file.
func newEnvelopeTestExecutor(t *testing.T) *Executor {
	t.Helper()
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	p := DefaultParams()
	p.MaxTxBytes = 4096
	ex, err := NewExecutor(ctx, be, envTestChain, p)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func finalizeAndCommit(t *testing.T, ex *Executor, txs [][]byte) []TxResult {
	t.Helper()
	ctx := context.Background()
	h := ex.State().Height + 1
	sum := sha256.Sum256([]byte(fmt.Sprint("block ", h)))
	res, _, err := ex.FinalizeBlock(ctx, BlockInfo{Height: h, Time: time.Date(2026, 11, 27, 0, 0, int(h), 0, time.UTC), Hash: sum[:]}, txs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return res
}

// edgeCaseEnvelopes are envelopes for the verdict tests: valid ones and
// every kind of envelope or signature failure, the signature edge cases
// among them.
func edgeCaseEnvelopes(t *testing.T) (names []string, raws [][]byte) {
	add := func(name string, raw []byte) { names, raws = append(names, name), append(raws, raw) }
	_, valid := signedEnvelope(t, 1, 1, "SELECT ?1")
	add("valid", valid)
	_, valid2 := signedEnvelope(t, 2, 1, "SELECT ?1")
	add("valid, another key", valid2)
	flipped := append([]byte(nil), valid...)
	flipped[len(flipped)-1] ^= 1
	add("bad signature", flipped)
	add("truncated", valid[:len(valid)-10])
	add("trailing byte", append(append([]byte(nil), valid...), 0))
	// Over-long varint for the nonce: the same value, another spelling.
	tx, _ := signedEnvelope(t, 4, 1, "SELECT ?1")
	body := txn.Encode(tx)
	at := 4 + 1 + len(envTestChain) // magic, version, chain id's length and bytes
	if body[at] != 1 {
		t.Fatalf("nonce not at offset %d", at)
	}
	overlong := append(append(append([]byte(nil), body[:at]...), 0x81, 0x00), body[at+1:]...)
	add("non-canonical (over-long nonce)", overlong)
	wrong, _ := signedEnvelope(t, 5, 1, "SELECT ?1")
	wrong.ChainID = "other"
	wrong.Sign(ed25519.NewKeyFromSeed(func() []byte { s := sha256.Sum256([]byte{5}); return s[:] }()))
	add("wrong chain", txn.Encode(wrong))
	crafted := func(name string, seed byte, torsionR, torsionA bool) {
		tx := &txn.Tx{ChainID: envTestChain, Nonce: 1, Statements: []txn.Statement{{SQL: "SELECT 1"}}}
		craftTx(t, seed, tx, torsionR, torsionA)
		add(name, txn.Encode(tx))
	}
	crafted("crafted, untouched", 6, false, false)
	crafted("R with a torsion component", 7, true, false)
	for seed := byte(8); seed < 12; seed++ {
		crafted(fmt.Sprintf("key with a torsion component (%d)", seed), seed, false, true)
	}
	identity := mustHexBytes(t, "0100000000000000000000000000000000000000000000000000000000000000")
	small := &txn.Tx{ChainID: envTestChain, Nonce: 1, Statements: []txn.Statement{{SQL: "SELECT 1"}}, PubKey: identity}
	small.Signature = append(append([]byte{}, identity...), make([]byte, 32)...)
	add("identity key and R, zero S", txn.Encode(small))
	bigS, _ := signedEnvelope(t, 12, 1, "SELECT ?1")
	addOrder(t, bigS.Signature[32:])
	add("S not canonical (S+L)", txn.Encode(bigS))
	return names, raws
}

// addOrder adds the group order L to the little-endian scalar s in place.
func addOrder(t *testing.T, s []byte) {
	order := mustHexBytes(t, "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
	carry := 0
	for i := range s {
		v := int(s[i]) + int(order[i]) + carry
		s[i], carry = byte(v), v>>8
	}
	if carry != 0 {
		t.Fatal("S+L overflows 256 bits")
	}
}

// The cache must not change a verdict: CheckTx with and without it, and
// the block's results on a node that admitted the txs in CheckTx (hits),
// one that never saw them, and one without a cache, are the same bytes.
func TestEnvelopeVerdictsAreTheSameWithAndWithoutTheCache(t *testing.T) {
	ctx := context.Background()
	names, raws := edgeCaseEnvelopes(t)
	cached, unseen, uncached := newEnvelopeTestExecutor(t), newEnvelopeTestExecutor(t), newEnvelopeTestExecutor(t)
	uncached.envelopes = nil
	admitted := 0
	for i, raw := range raws {
		_, withCache := cached.Check(ctx, raw)
		_, without := uncached.Check(ctx, raw)
		if fmt.Sprint(withCache) != fmt.Sprint(without) {
			t.Errorf("%s: CheckTx says %v with the cache, %v without", names[i], withCache, without)
		}
		if tx, err := txn.Decode(raw); err == nil && (tx.Verify() == nil) != (withCache == nil) && withCache.Code != api.CodeWrongChain {
			t.Errorf("%s: crypto/ed25519 says %v, CheckTx %v", names[i], tx.Verify(), withCache)
		}
		if withCache == nil {
			admitted++
		}
	}
	if admitted < 3 || admitted == len(raws) {
		t.Fatalf("%d of %d envelopes admitted: the cases do not cover both verdicts", admitted, len(raws))
	}
	hitsBefore := cached.envelopes.hits
	want := finalizeAndCommit(t, uncached, raws)
	for name, ex := range map[string]*Executor{"cached": cached, "unseen": unseen} {
		got := finalizeAndCommit(t, ex, raws)
		for i := range want {
			if got[i].Code != want[i].Code || string(got[i].Data) != string(want[i].Data) || got[i].Log != want[i].Log {
				t.Errorf("%s: %s: code %d data %s log %q, without the cache code %d data %s log %q",
					name, names[i], got[i].Code, got[i].Data, got[i].Log, want[i].Code, want[i].Data, want[i].Log)
			}
		}
	}
	if hits := cached.envelopes.hits - hitsBefore; hits != uint64(admitted) {
		t.Errorf("the block found %d envelopes in the cache, CheckTx admitted %d", hits, admitted)
	}
	if n := cached.envelopes.order.Len(); n != 0 {
		t.Errorf("%d envelopes still cached after their block committed", n)
	}
}

// A block of txs this node admitted (cached) and txs it never saw, one of
// them with a bad signature: exactly that one is refused, and the cached
// ones are not decoded or verified again.
func TestBlockOfCachedAndUncachedTxsRefusesOnlyTheBadSignature(t *testing.T) {
	ctx := context.Background()
	ex := newEnvelopeTestExecutor(t)
	_, seen1 := signedEnvelope(t, 1, 1, "SELECT ?1")
	_, seen2 := signedEnvelope(t, 2, 1, "SELECT ?1")
	for _, raw := range [][]byte{seen1, seen2} {
		if _, rej := ex.Check(ctx, raw); rej != nil {
			t.Fatalf("check: %v", rej)
		}
	}
	_, unseen := signedEnvelope(t, 3, 1, "SELECT ?1")
	_, bad := signedEnvelope(t, 4, 1, "SELECT ?1")
	bad[len(bad)-20] ^= 1 // in the signature's S
	hitsBefore := ex.envelopes.hits
	res := finalizeAndCommit(t, ex, [][]byte{seen1, unseen, bad, seen2})
	got := make([]uint32, len(res))
	for i, r := range res {
		got[i] = r.Code
	}
	if want := []uint32{api.CodeOK, api.CodeOK, api.CodeBadSignature, api.CodeOK}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("codes %v, want %v (logs: %q)", got, want, res[2].Log)
	}
	if hits := ex.envelopes.hits - hitsBefore; hits != 2 {
		t.Fatalf("%d cache hits in the block, want 2 (the txs CheckTx admitted)", hits)
	}
}

// BenchmarkSignatureBatch is the measurement behind verifying a block's
// uncached signatures one by one (app/DESIGN.md): per signature, the
// single verification with crypto/ed25519's semantics, a cofactored batch
// of 64, and the check that R is torsion-free (the cheapest exact check
// known here, a variable-time multiplication by the group order) that a
// batch would need besides to accept only what the single verification
// accepts.
//
//	go test ./app -run '^$' -bench SignatureBatch -count 3
func BenchmarkSignatureBatch(b *testing.B) {
	const n = 64
	txs := make([]*txn.Tx, n)
	for i := range txs {
		seed := sha256.Sum256([]byte{byte(i)})
		tx := &txn.Tx{ChainID: "c", Nonce: uint64(i), Statements: []txn.Statement{{SQL: "UPDATE checking SET balance = balance + $1 WHERE customer_id = $2", Args: []txn.Arg{txn.Int(5), txn.Int(17)}}}}
		tx.Sign(ed25519.NewKeyFromSeed(seed[:]))
		txs[i] = tx
	}
	// CPU time of the process (user+system): steadier than wall time on
	// a shared machine.
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	perSignature := func(b *testing.B, start time.Duration) {
		b.ReportMetric(float64((cpu()-start).Nanoseconds())/float64(b.N*n)/1000, "cpu-us/sig")
	}
	b.Run("single-stdlib", func(b *testing.B) {
		start := cpu()
		for range b.N {
			for _, tx := range txs {
				if verifySignature(tx) != nil {
					b.Fatal("refused")
				}
			}
		}
		perSignature(b, start)
	})
	b.Run("batch-cofactored", func(b *testing.B) {
		opts := &voi.Options{Verify: voi.VerifyOptionsFIPS_186_5}
		start := cpu()
		for range b.N {
			v := voi.NewBatchVerifier()
			for _, tx := range txs {
				v.AddWithOptions(voi.PublicKey(tx.PubKey), tx.SignBytes(), tx.Signature, opts)
			}
			if !v.VerifyBatchOnly(nil) {
				b.Fatal("refused")
			}
		}
		perSignature(b, start)
	})
	b.Run("torsion-free-R", func(b *testing.B) {
		var zero scalar.Scalar
		start := cpu()
		for range b.N {
			for _, tx := range txs {
				var c curve.CompressedEdwardsY
				var r, check curve.EdwardsPoint
				if _, err := c.SetBytes(tx.Signature[:32]); err != nil {
					b.Fatal(err)
				}
				if _, err := r.SetCompressedY(&c); err != nil {
					b.Fatal(err)
				}
				if !check.DoubleScalarMulBasepointVartime(scalar.BASEPOINT_ORDER, &r, &zero).IsIdentity() {
					b.Fatal("R has a torsion component")
				}
			}
		}
		perSignature(b, start)
	})
}

// BenchmarkValidate splits the envelope checks of one tx in a block: a
// cache hit (a tx CheckTx admitted), decoding alone (what the block did
// for such a tx before the cache held decoded envelopes), and a miss
// (decoding and the signature: a tx this node never saw).
//
//	go test ./app -run '^$' -bench Validate -count 5
func BenchmarkValidate(b *testing.B) {
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	ex, err := NewExecutor(ctx, be, "c", DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	seed := sha256.Sum256([]byte("validate"))
	tx := &txn.Tx{ChainID: "c", Nonce: 1, Statements: []txn.Statement{{SQL: "UPDATE checking SET balance = balance + ?1 WHERE customer_id = ?2", Args: []txn.Arg{txn.Int(5), txn.Int(17)}}}}
	tx.Sign(ed25519.NewKeyFromSeed(seed[:]))
	raw := txn.Encode(tx)
	b.Run("hit", func(b *testing.B) {
		ex.envelopes.add(key(raw), tx, len(raw))
		for b.Loop() {
			if _, rej := ex.validate(raw, key(raw)); rej != nil {
				b.Fatal(rej)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			_ = key(raw)
			if _, err := txn.Decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("miss", func(b *testing.B) {
		ex.envelopes.forget([][32]byte{key(raw)})
		for b.Loop() {
			if _, rej := ex.validate(raw, key(raw)); rej != nil {
				b.Fatal(rej)
			}
		}
	})
}
