package statetree

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// model is the map a tree must agree with: key -> row image.
type model map[string][]byte

func (m model) clone() model {
	c := make(model, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (m model) values(key []byte) ([]byte, error) {
	v, ok := m[string(key)]
	if !ok {
		return nil, fmt.Errorf("model has no %x", key)
	}
	return v, nil
}

// rows are the model's rows in [lo, hi], in key order.
func (m model) rows(lo, hi []byte) []KV {
	var rows []KV
	for k, v := range m {
		if bytes.Compare([]byte(k), lo) >= 0 && bytes.Compare([]byte(k), hi) <= 0 {
			rows = append(rows, KV{Key: []byte(k), Value: v})
		}
	}
	slices.SortFunc(rows, func(a, b KV) int { return bytes.Compare(a.Key, b.Key) })
	return rows
}

// build commits m's keys inserted in an order drawn from rng.
func (m model) build(t testing.TB, rng *rand.Rand) Root {
	t.Helper()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	tr := New()
	for _, k := range keys {
		if err := tr.Set([]byte(k), sha256.Sum256(m[k])); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Commit()
}

// keyGen draws prefix-free keys with long shared prefixes: a run over a
// small alphabet skewed to one letter, terminated by 0x00 (absent from
// the alphabet).
type keyGen struct {
	rng    *rand.Rand
	maxLen int
}

var alphabet = []byte{'a', 'a', 'a', 'a', 'b', 0x01, 0xfe}

func (g keyGen) key() []byte {
	n := 1 + g.rng.IntN(g.maxLen)
	k := make([]byte, n, n+1)
	for i := range k {
		k[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return append(k, 0)
}

// bound is a range end: a key, or any byte string near the keys.
func (g keyGen) bound() []byte {
	k := g.key()
	switch g.rng.IntN(3) {
	case 0:
		return k[:len(k)-1] // a proper prefix of keys
	case 1:
		return append(k, 0xff) // above k, below no key with prefix k
	}
	return k
}

func (g keyGen) image() []byte {
	v := make([]byte, 1+g.rng.IntN(40))
	for i := range v {
		v[i] = byte(g.rng.Uint32())
	}
	return v
}
