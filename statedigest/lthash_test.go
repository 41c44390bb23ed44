package statedigest

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha3"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

func rows(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = Row([]byte("t"), []byte(fmt.Sprintf("%d,'v%d'", i, i*7)))
	}
	return out
}

func TestSumIsIndependentOfOrder(t *testing.T) {
	elems := rows(200)
	var a, b Sum
	for _, e := range elems {
		a.Add(e)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, i := range r.Perm(len(elems)) {
		b.Add(elems[i])
	}
	if a != b {
		t.Fatal("the same rows added in another order give another sum")
	}
	if a.IsZero() {
		t.Fatal("the sum of 200 rows is zero")
	}
}

func TestRemoveUndoesAdd(t *testing.T) {
	elems := rows(50)
	var s, want Sum
	for _, e := range elems[:30] {
		s.Add(e)
		want.Add(e)
	}
	for _, e := range elems[30:] {
		s.Add(e)
	}
	for _, e := range elems[30:] {
		s.Remove(e)
	}
	if s != want {
		t.Fatal("adding then removing rows does not restore the sum")
	}
	for _, e := range elems[:30] {
		s.Remove(e)
	}
	if !s.IsZero() {
		t.Fatal("removing every row does not give the empty sum")
	}
}

// An update is Remove(old)+Add(new): the result equals the sum of the new
// state built from scratch, and Combine/Subtract agree with element-wise
// updates.
func TestIncrementalUpdateEqualsRecompute(t *testing.T) {
	elems := rows(100)
	var state Sum
	for _, e := range elems {
		state.Add(e)
	}
	var delta Sum
	newer := Row([]byte("t"), []byte("42,'changed'"))
	delta.Add(newer)
	delta.Remove(elems[42])
	state.Combine(&delta)

	var fresh Sum
	for i, e := range elems {
		if i == 42 {
			e = newer
		}
		fresh.Add(e)
	}
	if state != fresh {
		t.Fatal("incremental update differs from the recomputed sum")
	}
	state.Subtract(&delta)
	var orig Sum
	for _, e := range elems {
		orig.Add(e)
	}
	if state != orig {
		t.Fatal("Subtract does not undo Combine")
	}
}

func TestRowEncodingIsUnambiguous(t *testing.T) {
	a := Row([]byte("ab"), []byte("c"))
	b := Row([]byte("a"), []byte("bc"))
	if bytes.Equal(a, b) {
		t.Fatal("table and image boundaries are ambiguous")
	}
	var sa, sb Sum
	sa.Add(a)
	sb.Add(b)
	if sa == sb {
		t.Fatal("different rows hash alike")
	}
}

func TestDigestAndDiff(t *testing.T) {
	want := Tables{}
	want.Table("a").Add(Row([]byte("a"), []byte("1")))
	want.Table("b")
	got := Tables{}
	got.Table("a").Add(Row([]byte("a"), []byte("1")))
	got.Table("b")
	if !bytes.Equal(want.Digest(), got.Digest()) {
		t.Fatal("equal tables, different digests")
	}
	if d := Diff(want, got); len(d) != 0 {
		t.Fatalf("Diff of equal tables = %v", d)
	}
	got.Table("b").Add(Row([]byte("b"), []byte("x")))
	got.Table("c")
	delete(got, "a")
	if bytes.Equal(want.Digest(), got.Digest()) {
		t.Fatal("different tables, equal digests")
	}
	if d := fmt.Sprint(Diff(want, got)); d != "[a b c]" {
		t.Fatalf("Diff = %s, want [a b c]", d)
	}
	// An empty table is state: dropping it changes the digest.
	empty := Tables{}
	empty.Table("a").Add(Row([]byte("a"), []byte("1")))
	withB := Tables{}
	withB.Table("a").Add(Row([]byte("a"), []byte("1")))
	withB.Table("b")
	if bytes.Equal(empty.Digest(), withB.Digest()) {
		t.Fatal("an empty table does not count")
	}
}

func TestLoadChecksTheLength(t *testing.T) {
	if _, err := Load(make([]byte, 10)); err == nil {
		t.Fatal("Load of 10 bytes succeeded")
	}
	var s Sum
	s.Add([]byte("x"))
	l, err := Load(s[:])
	if err != nil || l != s {
		t.Fatalf("Load round trip: %v", err)
	}
}

// The expansion is part of the consensus rules: every validator, on every
// platform, must expand an element to the same 2048 bytes. This pins it
// (and so catches an accidental change of the construction).
func TestExpansionIsPinned(t *testing.T) {
	var out [Size]byte
	expand(Row([]byte("main.acct"), []byte(`{"id":1,"bal":100}`)), &out)
	sum := sha256.Sum256(out[:])
	const want = "685b26fa59dae94772c9cf63ab7ad247251718cbbe0692c1acd49bd981d1873f"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("expansion of a fixed row hashes to %s, want %s: the digest construction changed (a consensus change: bump the AppHash version)", got, want)
	}
}

// Add and Remove expand on pooled memory: what they add is the pinned
// expansion, whatever the pool held before.
func TestAddAddsTheExpansion(t *testing.T) {
	for i := range 3 {
		elem := Row([]byte("main.acct"), []byte(fmt.Sprintf(`{"id":%d}`, i)))
		var want [Size]byte
		expand(elem, &want)
		var s Sum
		s.Add(elem)
		if [Size]byte(s) != want {
			t.Fatalf("element %d: Add's lanes differ from the expansion", i)
		}
		s.Remove(elem)
		if !s.IsZero() {
			t.Fatalf("element %d: Remove after Add left a non-zero sum", i)
		}
	}
}

func BenchmarkExpand(b *testing.B) {
	elem := Row([]byte("bench_acct"), []byte("12345,678"))
	var out [Size]byte
	for b.Loop() {
		expand(elem, &out)
	}
}

// BenchmarkExpandSHAKE128 is the expansion relchain used before AppHash v4,
// kept beside BenchmarkExpand as the figure the choice rests on.
func BenchmarkExpandSHAKE128(b *testing.B) {
	elem := Row([]byte("bench_acct"), []byte("12345,678"))
	var out [Size]byte
	for b.Loop() {
		h := sha3.NewSHAKE128()
		_, _ = h.Write(elem)
		_, _ = h.Read(out[:])
	}
}

func BenchmarkAdd(b *testing.B) {
	elem := Row([]byte("bench_acct"), []byte("12345,678"))
	var s Sum
	for b.Loop() {
		s.Add(elem)
	}
}

// AddRow and RemoveRow are Add and Remove of Row's element, on every
// expansion, for tables and images of every length class of the varint
// prefixes.
func TestAddRowEqualsAddOfRow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(t *testing.T) {
		for _, n := range []int{0, 1, 127, 128, 300, 20000} {
			table, image := make([]byte, 1+n%40), make([]byte, n)
			for i := range image {
				image[i] = byte(r.Uint32())
			}
			for i := range table {
				table[i] = 'a' + byte(r.IntN(26))
			}
			var want, got Sum
			want.Add(Row(table, image))
			got.AddRow(table, image)
			want.Remove(Row(table, []byte("other")))
			got.RemoveRow(table, []byte("other"))
			if got != want {
				t.Fatalf("image of %d bytes: AddRow/RemoveRow differ from Add/Remove of Row", n)
			}
		}
	}
	t.Run("portable", func(t *testing.T) { withReference(func() { check(t) }) })
	for _, a := range expandAsms {
		t.Run(a.name, func(t *testing.T) { withExpansion(a.add, func() { check(t) }) })
	}
}

// BenchmarkAddRow is what a captured change costs: Row's element hashed
// from the table and image.
func BenchmarkAddRow(b *testing.B) {
	table, image := []byte("checking"), []byte(`{"custid":12345,"bal":678.5}`)
	var s Sum
	for b.Loop() {
		s.AddRow(table, image)
	}
}

// BenchmarkAddOfRow is the same through Row and Add.
func BenchmarkAddOfRow(b *testing.B) {
	table, image := []byte("checking"), []byte(`{"custid":12345,"bal":678.5}`)
	var s Sum
	for b.Loop() {
		s.Add(Row(table, image))
	}
}

// BenchmarkAddAsm is Add with each assembly expansion the CPU has.
func BenchmarkAddAsm(b *testing.B) {
	elem := Row([]byte("bench_acct"), []byte("12345,678"))
	for _, a := range expandAsms {
		b.Run(a.name, func(b *testing.B) {
			withExpansion(a.add, func() {
				var s Sum
				for b.Loop() {
					s.Add(elem)
				}
			})
		})
	}
}

// The four-lanes-per-word arithmetic equals lane-by-lane addition and
// subtraction mod 2^16, including lanes that overflow and underflow.
func TestLanesMatchScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200; round++ {
		var a, b Sum
		for i := range a {
			a[i], b[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		if round%3 == 0 {
			for i := range a { // extremes: 0xFFFF and 0x8000 lanes
				a[i] = 0xFF
				if i%4 == 1 {
					b[i] = 0x80
				}
			}
		}
		for _, negate := range []bool{false, true} {
			got := a
			got.addLanes((*[Size]byte)(&b), negate)
			for i := 0; i < Size; i += 2 {
				x := uint16(a[i]) | uint16(a[i+1])<<8
				y := uint16(b[i]) | uint16(b[i+1])<<8
				want := x + y
				if negate {
					want = x - y
				}
				if g := uint16(got[i]) | uint16(got[i+1])<<8; g != want {
					t.Fatalf("lane %d: %#x %s %#x = %#x, want %#x", i/2, x, map[bool]string{false: "+", true: "-"}[negate], y, g, want)
				}
			}
		}
	}
}

func TestScanEqualsSequentialSum(t *testing.T) {
	for _, n := range []int{0, 1, batchSize - 1, batchSize, 3*batchSize + 17} {
		var want Sum
		scan := NewScan("t")
		buf := make([]byte, 0, 32)
		for i := range n {
			img := fmt.Appendf(buf[:0], "%d,'x'", i)
			want.Add(Row([]byte("t"), img))
			scan.Add(img) // buf is reused: Add must copy
		}
		if got := scan.Sum(); got != want {
			t.Fatalf("%d rows: the parallel scan's sum differs from the sequential one", n)
		}
	}
}

func BenchmarkAddLanes(b *testing.B) {
	var s, x Sum
	for b.Loop() {
		s.addLanes((*[Size]byte)(&x), false)
	}
}

// skipWithoutAsm skips a test of the assembly expansions in a build that
// has none: another GOARCH, the purego tag, or an amd64 CPU without AES-NI
// (TestAsmSelectedWhereTheCPUHasIt keeps that last case from passing for
// a CPU that has it). Add then runs the portable path, which the other
// tests cover.
func skipWithoutAsm(tb testing.TB) {
	tb.Helper()
	if len(expandAsms) == 0 {
		tb.Skipf("this build has no assembly expansion (GOARCH=%s, purego tag, or no AES-NI): Add uses the portable path", runtime.GOARCH)
	}
}

// withExpansion runs f with add as the expansion (nil: the portable one,
// crypto/aes and addLanes).
func withExpansion(add func(*[32]byte, *[240]byte, *[Size]byte, bool), f func()) {
	saved := expandAdd
	expandAdd = add
	defer func() { expandAdd = saved }()
	f()
}

// withReference runs f with the portable expansion.
func withReference(f func()) { withExpansion(nil, f) }

// The assembly expansion adds and subtracts exactly what the portable one
// does: for random elements of every length (keys, and so key schedules,
// of all kinds), onto random sums, both ways. A mismatch would split the
// network between validators whose CPUs differ.
func TestAsmMatchesReference(t *testing.T) {
	skipWithoutAsm(t)
	for _, a := range expandAsms {
		t.Run(a.name, func(t *testing.T) { withExpansion(a.add, func() { asmMatchesReference(t) }) })
	}
}

func asmMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 3000 {
		elem := make([]byte, r.IntN(300))
		for i := range elem {
			elem[i] = byte(r.Uint32())
		}
		var start Sum
		for i := range start {
			start[i] = byte(r.Uint32())
		}
		if round%10 == 0 {
			start = Sum{} // zero: the sum is then the expansion itself
		}
		negate := round%2 == 1
		asm, ref := start, start
		asm.addExpanded(elem, negate)
		withReference(func() { ref.addExpanded(elem, negate) })
		if asm != ref {
			t.Fatalf("round %d (element of %d bytes, negate %v): assembly and reference sums differ", round, len(elem), negate)
		}
	}
}

// A zero sum plus one element is the element's expansion, byte for byte:
// the assembly generates AES-256-CTR's keystream, in order.
func TestAsmAddsTheKeystream(t *testing.T) {
	skipWithoutAsm(t)
	elem := Row([]byte("bench_acct"), []byte("12345,678"))
	var want [Size]byte
	expand(elem, &want)
	for _, a := range expandAsms {
		var got Sum
		withExpansion(a.add, func() { got.Add(elem) })
		if [Size]byte(got) != want {
			t.Fatalf("%s: the assembly sum of one element is not its expansion", a.name)
		}
	}
}

func BenchmarkAddReference(b *testing.B) {
	withReference(func() {
		elem := Row([]byte("bench_acct"), []byte("12345,678"))
		var s Sum
		for b.Loop() {
			s.Add(elem)
		}
	})
}

// FuzzAsmMatchesReference looks for an element on which the assembly and
// the portable expansion disagree (scripts/fuzz.sh).
func FuzzAsmMatchesReference(f *testing.F) {
	skipWithoutAsm(f)
	f.Add([]byte(""), false)
	f.Add([]byte("relchain/row/v1\x05table\x03a,b"), true)
	f.Fuzz(func(t *testing.T, elem []byte, negate bool) {
		var ref Sum
		for i := range ref {
			ref[i] = byte(i * 7)
		}
		start := ref
		withReference(func() { ref.addExpanded(elem, negate) })
		for _, a := range expandAsms {
			asm := start
			withExpansion(a.add, func() { asm.addExpanded(elem, negate) })
			if asm != ref {
				t.Fatalf("%s, element %x (negate %v): assembly and reference sums differ", a.name, elem, negate)
			}
		}
	})
}
