package postgres

import (
	"bytes"
	"testing"
)

// The arena's copies are the values, stay so while later values are
// copied (also past a chunk, and values larger than a chunk), and an
// append to one never writes into the next.
func TestRecordArenaCopiesAreIndependent(t *testing.T) {
	var a recordArena
	var want, got [][]byte
	for i := range 3000 {
		v := bytes.Repeat([]byte{byte(i)}, 1+i%97)
		if i%1000 == 999 {
			v = bytes.Repeat([]byte{byte(i)}, arenaChunk+5)
		}
		want = append(want, bytes.Clone(v))
		got = append(got, a.copy(v))
		v[0] ^= 0xff // the source buffer is reused by the driver
	}
	_ = append(got[10], 'x', 'y', 'z')
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("value %d: %q, want %q", i, got[i], want[i])
		}
	}
}
