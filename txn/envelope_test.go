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
	batch, priv := sample(f)
	batch.Statements = append(batch.Statements, Statement{SQL: "SELECT 2"})
	batch.Groups = []int{2, 1}
	batch.Sign(priv)
	f.Add(Encode(batch))
	f.Add(Encode(expecting(f)))
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

func TestBatchEnvelopeRoundTripsAndSplitsIntoWLTransactions(t *testing.T) {
	tx, priv := sample(t)
	tx.Statements = append(tx.Statements, Statement{SQL: "SELECT 3", Args: []Arg{Int(3)}})
	tx.Groups = []int{1, 2}
	tx.Sign(priv)
	got := roundTrip(t, tx, VersionBatch)
	if got.NumWL() != 2 {
		t.Fatalf("NumWL = %d, want 2", got.NumWL())
	}
	if st, off := got.WL(1); off != 1 || len(st) != 2 || st[1].SQL != "SELECT 3" {
		t.Fatalf("WL(1) = %v at %d, want the last two statements at 1", st, off)
	}
	// The groups are signed: changing them breaks the signature.
	got.Groups = []int{2, 1}
	if err := got.Verify(); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("verify after regrouping: %v, want ErrBadSignature", err)
	}
	single, _ := sample(t)
	if b := Encode(single); b[3] != VersionSingle {
		t.Fatalf("a tx without groups encodes as version %d, want %d", b[3], VersionSingle)
	}
}

func TestDecodeRejectsBadGroups(t *testing.T) {
	for name, groups := range map[string][]int{
		"too few statements":  {1},
		"too many statements": {2, 1},
		"empty wl":            {0, 2},
	} {
		t.Run(name, func(t *testing.T) {
			tx, priv := sample(t)
			tx.Groups = groups
			tx.Sign(priv)
			if _, err := Decode(Encode(tx)); !errors.Is(err, ErrMalformed) {
				t.Fatalf("decode of groups %v: %v, want ErrMalformed", groups, err)
			}
		})
	}
	// A batch envelope must name at least one wl-transaction.
	tx, priv := sample(t)
	tx.Sign(priv)
	b := Encode(tx)
	body := append([]byte{}, b[:len(b)-ed25519.SignatureSize-1]...)
	body[3] = VersionBatch
	body = append(body, 0) // zero groups
	body = append(body, byte(ed25519.SignatureSize))
	body = append(body, tx.Signature...)
	if _, err := Decode(body); !errors.Is(err, ErrMalformed) {
		t.Fatalf("decode of a batch with no wl-transactions: %v, want ErrMalformed", err)
	}
}

// expecting is sample with an observation on its first statement and none
// on the second, signed.
func expecting(tb testing.TB) *Tx {
	tx, priv := sample(tb)
	seen := make(Observation, ObservationSize)
	seen[0] = byte(ObserveAll)
	seen[1] = 0xAB
	tx.Expect = []Observation{seen, nil}
	tx.Sign(priv)
	return tx
}

func TestExpectEnvelopeRoundTripsAndIsSigned(t *testing.T) {
	tx := expecting(t)
	got := roundTrip(t, tx, VersionExpect)
	// The observations are signed: a relayer cannot change what the
	// client saw.
	got.Expect[0][1] ^= 1
	if err := got.Verify(); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("verify after changing an observation: %v, want ErrBadSignature", err)
	}
}

func TestDecodeRejectsBadObservations(t *testing.T) {
	short := Observation{byte(ObserveAll), 1, 2}
	unknownMode := make(Observation, ObservationSize)
	unknownMode[0] = 9
	good := make(Observation, ObservationSize)
	good[0] = byte(ObserveCounts)
	for name, edit := range map[string]func(*Tx){
		"short":        func(tx *Tx) { tx.Expect = []Observation{short, nil} },
		"unknown mode": func(tx *Tx) { tx.Expect = []Observation{nil, unknownMode} },
		"too few":      func(tx *Tx) { tx.Expect = []Observation{good} },
		"too many":     func(tx *Tx) { tx.Expect = []Observation{good, nil, good} },
	} {
		t.Run(name, func(t *testing.T) {
			tx, priv := sample(t)
			edit(tx)
			tx.Sign(priv)
			if _, err := Decode(Encode(tx)); !errors.Is(err, ErrMalformed) {
				t.Fatalf("decode: %v, want ErrMalformed", err)
			}
		})
	}
	// The wire cannot carry both; a caller that builds such a Tx is told.
	tx, _ := sample(t)
	tx.Expect, tx.Groups = []Observation{good, nil}, []int{1, 1}
	if err := tx.CheckExpect(); err == nil {
		t.Fatal("CheckExpect accepts observations with wl-transaction groups")
	}
}

// roundTrip encodes tx, checks the envelope version, decodes it back
// unchanged and verifies its signature; it returns the decoded tx.
func roundTrip(t *testing.T, tx *Tx, version byte) *Tx {
	t.Helper()
	b := Encode(tx)
	if b[3] != version {
		t.Fatalf("the tx encodes as version %d, want %d", b[3], version)
	}
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
	return got
}
