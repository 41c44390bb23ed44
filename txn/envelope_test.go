package txn

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"math"
	"reflect"
	"testing"
)

func sample(t testing.TB) (*Tx, ed25519.PrivateKey) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := &Tx{
		ChainID: "chain-A",
		Nonce:   42,
		Statements: []Statement{
			{SQL: "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)", Args: []Arg{Null(), Int(-7), Float(math.Pi), Text("héllo"), Bytes([]byte{0, 1, 2}), Bool(true)}},
			{SQL: "SELECT 1"},
		},
	}
	tx.Sign(priv)
	return tx, priv
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	tx, _ := sample(t)
	b := Encode(tx)
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if !reflect.DeepEqual(got, tx) {
		t.Fatalf("round trip changed the tx:\n got %#v\nwant %#v", got, tx)
	}
	if err := got.Verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !bytes.Equal(Encode(got), b) {
		t.Fatal("re-encoding differs")
	}
}

func TestVerifyRejectsAnyChange(t *testing.T) {
	tx, _ := sample(t)
	mutations := map[string]func(*Tx){
		"chain id":  func(x *Tx) { x.ChainID = "chain-B" },
		"nonce":     func(x *Tx) { x.Nonce++ },
		"sql":       func(x *Tx) { x.Statements[1].SQL = "SELECT 2" },
		"arg value": func(x *Tx) { x.Statements[0].Args[1] = Int(8) },
		"arg type":  func(x *Tx) { x.Statements[0].Args[1] = Text("-7") },
		"drop stmt": func(x *Tx) { x.Statements = x.Statements[:1] },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			c, _ := Decode(Encode(tx))
			mutate(c)
			if err := c.Verify(); !errors.Is(err, ErrBadSignature) {
				t.Fatalf("Verify after changing %s = %v, want ErrBadSignature", name, err)
			}
		})
	}
}

func TestDecodeRejectsNonCanonicalAndTruncated(t *testing.T) {
	tx, _ := sample(t)
	b := Encode(tx)
	for i := 0; i < len(b); i++ {
		if _, err := Decode(b[:i]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("prefix of %d/%d bytes decoded without ErrMalformed: %v", i, len(b), err)
		}
	}
	if _, err := Decode(append(append([]byte(nil), b...), 0)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte accepted: %v", err)
	}
	// An over-long varint for the chain id length (0x87 0x00 = 7).
	overlong := append([]byte(nil), b[:4]...)
	overlong = append(overlong, 0x87, 0x00)
	overlong = append(overlong, b[5:]...)
	if _, err := Decode(overlong); !errors.Is(err, ErrMalformed) {
		t.Fatalf("over-long varint accepted: %v", err)
	}
	bad := append([]byte(nil), b...)
	bad[3] = 9
	if _, err := Decode(bad); err == nil || !bytes.Contains([]byte(err.Error()), []byte("version 9")) {
		t.Fatalf("unknown version: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	tx, _ := sample(f)
	f.Add(Encode(tx))
	f.Add([]byte("RLC\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Decode(b)
		if err != nil {
			return
		}
		// Whatever decodes must be canonical.
		if !bytes.Equal(Encode(got), b) {
			t.Fatalf("decoded input does not re-encode to itself")
		}
	})
}
