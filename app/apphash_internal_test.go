package app

import (
	"bytes"
	"testing"
)

func TestAppHashInputsRoundTrip(t *testing.T) {
	in := AppHashInputs{Prev: []byte{1, 2, 3}, Height: 77, Changes: bytes.Repeat([]byte{9}, 32)}
	in.Results[0] = 0xAB
	b := in.encode()
	out, err := decodeAppHashInputs(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.AppHash([]byte("s")), in.AppHash([]byte("s"))) || out.Height != 77 {
		t.Fatalf("round trip changed the inputs: %+v -> %+v", in, out)
	}
	for i := range b {
		if _, err := decodeAppHashInputs(b[:i]); err == nil {
			t.Fatalf("a truncation to %d bytes decoded", i)
		}
	}
	if _, err := decodeAppHashInputs(append(b, 0)); err == nil {
		t.Fatal("trailing bytes decoded")
	}
}
