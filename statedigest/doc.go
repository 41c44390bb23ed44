// Package statedigest is relchain's digest of a whole database state: an
// LtHash (Bellare–Micciancio's additive multiset hash in the concrete
// LtHash16 form of Lewi, Kim, Maykov and Weis, "Securing Update Propagation
// with Homomorphic Hashing", 2019) over every row of every replicated table.
//
// A row enters as an element that names its table and holds the backend's
// canonical row image. The sum of a table is the lane-wise sum (mod 2^16) of
// its rows' 2048-byte expansions, so a block updates it with the
// rows it changed alone: Remove the old image, Add the new one. The state
// digest is a SHA-256 over the tables' names and sums in byte order of the
// names. It is a pure function of the multiset of (table, row image) pairs:
// the order in which rows were written, scanned or hashed does not matter.
//
// Limits of the construction (documented in app/DESIGN.md): a table without
// a key can hold identical rows; 65,536 copies of one row sum to zero and
// would vanish from the digest. The paper expands elements with BLAKE2xb
// and estimates at least 200 bits of security for 1024 16-bit lanes.
// relchain hashes the element with SHA-256 and stretches the hash with
// AES-256 in counter mode (hash-then-PRG; both from Go's standard library,
// both in hardware on current x86 and ARM CPUs). Expansion is most of the
// digest's cost per changed row, and this one is about six times cheaper
// than the SHAKE128 squeeze relchain used before (1.4 against 8.0 µs per
// row on the 2-vCPU AMD EPYC of BENCHMARKS.md, `go test -bench Expand`).
// Security is bounded at 128 bits by SHA-256's collision resistance, as
// it was with SHAKE128.
//
// On amd64 with AES-NI, Add and Remove expand in assembly
// (expand_amd64.s): the AES-256 key schedule and the 128 counter blocks are
// computed in registers and each keystream block is added into the sum as
// it is made — no cipher objects, no 2 KiB buffer, no allocation. With AVX2
// and VAES two blocks travel per instruction. Per element (BenchmarkAddAsm,
// BenchmarkAddReference): VAES 0.25 µs, AES-NI 0.35 µs, portable 0.78–0.94
// µs; the digest was the largest part of the executor's cost over raw
// SQLite (BENCHMARKS.md). The portable path (crypto/aes, then addLanes)
// serves other CPUs and the purego build tag (go build -tags purego). Both compute the same sums
// (TestAsmMatchesReference, TestAsmAddsTheKeystream, and the pinned
// expansion of TestExpansionIsPinned), so validators on different CPUs
// agree.
//
// No maintained Go LtHash library is reachable from this project's module
// proxy, so the construction lives here, tested against the properties
// that define it.
package statedigest
