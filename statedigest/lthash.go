package statedigest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Size is the byte length of a Sum: 1024 lanes of 16 bits.
const Size = 2048

// Sum is an LtHash16 checksum, lanes little endian. The zero value is the
// sum of the empty multiset.
type Sum [Size]byte

// expandDomain separates the expansion's key derivation from every other
// SHA-256 relchain computes.
const expandDomain = "relchain/lthash16-expand/v2"

// zeroBlock is the plaintext the keystream is XORed into.
var zeroBlock [Size]byte

// expand writes the element's 2048-byte expansion to out: the keystream of
// AES-256 in counter mode (IV zero) under the key SHA-256(expandDomain |
// elem). Hash-then-PRG: SHA-256 maps the element to a key (collision
// resistant; modelled, like SHAKE128 before it, as a random oracle) and
// AES-CTR stretches the key to 1024 lanes (a PRG). With AES-NI and SHA-NI
// it costs about a sixth of SHAKE128's 2048-byte squeeze (see
// BenchmarkExpand), and expansion was most of the digest's per-row cost.
func expand(elem []byte, out *[Size]byte) {
	h := sha256.New()
	h.Write([]byte(expandDomain))
	h.Write(elem)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	keystream(&key, out)
}

// keystream writes AES-256-CTR's keystream under key (IV zero) to out.
func keystream(key *[sha256.Size]byte, out *[Size]byte) {
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic("statedigest: AES-256 refused a 32-byte key: " + err.Error())
	}
	var iv [aes.BlockSize]byte
	cipher.NewCTR(block, iv[:]).XORKeyStream(out[:], zeroBlock[:])
}

// expander is an expansion's working memory, reused through expanders: an
// expansion allocated its 2 KiB output and a SHA-256 state on the heap
// each time (about 40 % of Add's cost on the portable path). A buffer
// above maxKeptBuf is not kept (one huge row must not pin its size).
type expander struct {
	buf []byte // expandDomain | element, for hashKey
	key [sha256.Size]byte
	out [Size]byte
	rk  [240]byte // an assembly expansion's key schedule
}

var expanders = sync.Pool{New: func() any { return new(expander) }}

// expand is the package's expand on e's memory; the result is valid until
// e is used again.
func (e *expander) expand(elem []byte) *[Size]byte {
	e.hashKey(elem)
	keystream(&e.key, &e.out)
	return &e.out
}

// hashKey sets e.key to the element's AES key, SHA-256(expandDomain | elem),
// hashed from e's buffer in one call (hash.Hash's Sum allocates).
func (e *expander) hashKey(elem []byte) {
	e.buf = append(append(e.buf[:0], expandDomain...), elem...)
	e.key = sha256.Sum256(e.buf)
}

// hashRowKey is hashKey(Row(table, image)), the element written straight
// into e's buffer.
func (e *expander) hashRowKey(table, image []byte) {
	e.buf = appendRow(append(e.buf[:0], expandDomain...), table, image)
	e.key = sha256.Sum256(e.buf)
}

// Add adds one element.
func (s *Sum) Add(elem []byte) { s.addExpanded(elem, false) }

// Remove removes one element (that was added before).
func (s *Sum) Remove(elem []byte) { s.addExpanded(elem, true) }

// AddRow is Add(Row(table, image)) without building the element apart.
func (s *Sum) AddRow(table, image []byte) { s.addRow(table, image, false) }

// RemoveRow is Remove(Row(table, image)) without building the element
// apart.
func (s *Sum) RemoveRow(table, image []byte) { s.addRow(table, image, true) }

func (s *Sum) addExpanded(elem []byte, negate bool) {
	e := expanders.Get().(*expander)
	if expandAdd != nil {
		e.hashKey(elem)
		expandAdd(&e.key, &e.rk, (*[Size]byte)(s), negate)
	} else {
		s.addLanes(e.expand(elem), negate)
	}
	e.release()
}

func (s *Sum) addRow(table, image []byte, negate bool) {
	if expandAdd == nil {
		s.addExpanded(Row(table, image), negate)
		return
	}
	e := expanders.Get().(*expander)
	e.hashRowKey(table, image)
	expandAdd(&e.key, &e.rk, (*[Size]byte)(s), negate)
	e.release()
}

// release returns e to expanders, without a buffer grown past maxKeptBuf.
func (e *expander) release() {
	if cap(e.buf) > maxKeptBuf {
		e.buf = nil
	}
	expanders.Put(e)
}

// maxKeptBuf bounds the element buffer an expander keeps between uses.
const maxKeptBuf = 64 << 10

// Combine adds every element of o.
func (s *Sum) Combine(o *Sum) { s.addLanes((*[Size]byte)(o), false) }

// Subtract removes every element of o.
func (s *Sum) Subtract(o *Sum) { s.addLanes((*[Size]byte)(o), true) }

// laneHigh has the top bit of each 16-bit lane of a 64-bit word.
const laneHigh = 0x8000800080008000

// addLanes adds (or subtracts) x to s lane by lane, mod 2^16, four lanes
// per 64-bit word: the low 15 bits of each lane are added with the top
// bits cleared, so no carry crosses a lane, and the top bits are then set
// by their XOR (SWAR arithmetic; TestLanesMatchScalar checks it against
// the lane-by-lane definition).
func (s *Sum) addLanes(x *[Size]byte, negate bool) {
	for i := 0; i < Size; i += 8 {
		a := binary.LittleEndian.Uint64(s[i:])
		b := binary.LittleEndian.Uint64(x[i:])
		var r uint64
		if negate {
			r = ((a | laneHigh) - (b &^ laneHigh)) ^ ((a ^ ^b) & laneHigh)
		} else {
			r = ((a &^ laneHigh) + (b &^ laneHigh)) ^ ((a ^ b) & laneHigh)
		}
		binary.LittleEndian.PutUint64(s[i:], r)
	}
}

// IsZero reports whether s is the sum of the empty multiset.
func (s *Sum) IsZero() bool { return *s == Sum{} }

// Load reads a Sum from its stored bytes.
func Load(b []byte) (Sum, error) {
	var s Sum
	if len(b) != Size {
		return s, fmt.Errorf("statedigest: a stored sum has %d bytes, want %d", len(b), Size)
	}
	copy(s[:], b)
	return s, nil
}

// Row is the element of one row: its table's name and the backend's
// canonical image of the row, each length-prefixed.
func Row(table, image []byte) []byte {
	return appendRow(make([]byte, 0, len(rowDomain)+len(table)+len(image)+2*binary.MaxVarintLen64), table, image)
}

// rowDomain starts every row's element.
const rowDomain = "relchain/row/v1"

// appendRow appends Row(table, image) to b.
func appendRow(b, table, image []byte) []byte {
	b = append(b, rowDomain...)
	b = binary.AppendUvarint(b, uint64(len(table)))
	b = append(b, table...)
	b = binary.AppendUvarint(b, uint64(len(image)))
	return append(b, image...)
}

// Tables are the sums of a database's replicated tables by name.
type Tables map[string]*Sum

// Table returns t's sum for name, creating a zero one.
func (t Tables) Table(name string) *Sum {
	s, ok := t[name]
	if !ok {
		s = new(Sum)
		t[name] = s
	}
	return s
}

// Digest is the state digest: SHA-256 over "relchain/state/v1" and, in
// byte order of the names, every table's length-prefixed name and sum. A
// table with no rows still counts: its existence is state.
func (t Tables) Digest() []byte {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	h.Write([]byte("relchain/state/v1"))
	var n [binary.MaxVarintLen64]byte
	for _, name := range names {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(name)))])
		h.Write([]byte(name))
		h.Write(t[name][:])
	}
	return h.Sum(nil)
}

// Diff names the tables whose sums differ between want and got (present
// in one only, or with different sums), in byte order.
func Diff(want, got Tables) []string {
	var out []string
	for name, w := range want {
		if g, ok := got[name]; !ok || *g != *w {
			out = append(out, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// ErrMismatch is wrapped by verification failures.
var ErrMismatch = errors.New("state digest mismatch")
