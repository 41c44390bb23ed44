package txn

import (
	"crypto/ed25519"
	"errors"
	"reflect"
	"testing"
)

func rehearsalKey(t testing.TB) ed25519.PrivateKey {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func TestRehearsalRoundTripAndVerify(t *testing.T) {
	priv := rehearsalKey(t)
	stmts := []Statement{{SQL: "DELETE FROM big WHERE k < $1 RETURNING k", Args: []Arg{Int(10)}}, {SQL: "SELECT 1"}}
	raw := SignRehearsal(priv, "chain-A", 77, stmts)
	r, err := DecodeRehearsal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if r.ChainID != "chain-A" || r.Height != 77 || !reflect.DeepEqual(r.Statements, stmts) || !r.Sender.Equal(priv.Public()) {
		t.Fatalf("decoded %+v", r)
	}
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
}

// TestRehearsalSignatureCoversEverything changes each signed field of a
// signed request in turn: none verifies, including the original signature
// presented with another (admin) key.
func TestRehearsalSignatureCoversEverything(t *testing.T) {
	priv, admin := rehearsalKey(t), rehearsalKey(t)
	stmts := []Statement{{SQL: "DROP TABLE big"}}
	good, err := DecodeRehearsal(SignRehearsal(priv, "chain-A", 5, stmts))
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string]func(r *Rehearsal){
		"another key":       func(r *Rehearsal) { r.Sender = admin.Public().(ed25519.PublicKey) },
		"another chain":     func(r *Rehearsal) { r.ChainID = "chain-B" },
		"another height":    func(r *Rehearsal) { r.Height = 6 },
		"another statement": func(r *Rehearsal) { r.Statements = []Statement{{SQL: "DROP TABLE other"}} },
		"an added argument": func(r *Rehearsal) { r.Statements = []Statement{{SQL: "DROP TABLE big", Args: []Arg{Null()}}} },
		"no signature":      func(r *Rehearsal) { r.Signature = nil },
		"a zero signature":  func(r *Rehearsal) { r.Signature = make([]byte, ed25519.SignatureSize) },
	}
	for name, change := range variants {
		r := *good
		change(&r)
		dec, err := DecodeRehearsal(EncodeRehearsal(&r))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := dec.Verify(); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: Verify = %v, want ErrBadSignature", name, err)
		}
	}
}

// TestRehearsalSignatureIsDomainSeparated: the signature of an envelope
// never verifies as a rehearsal's, even over the same statements.
func TestRehearsalSignatureIsDomainSeparated(t *testing.T) {
	priv := rehearsalKey(t)
	stmts := []Statement{{SQL: "SELECT 1"}}
	tx := &Tx{ChainID: "chain-A", Nonce: 5, Statements: stmts}
	tx.Sign(priv)
	r := &Rehearsal{ChainID: "chain-A", Height: 5, Sender: tx.PubKey, Statements: stmts, Signature: tx.Signature}
	if err := r.Verify(); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("an envelope's signature verified as a rehearsal's: %v", err)
	}
	if _, err := Decode(SignRehearsal(priv, "chain-A", 5, stmts)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a rehearsal request decoded as an envelope: %v", err)
	}
}

// TestRehearsalRejectsOldAndMalformedRequests: version 1's bare key and
// statements, truncations and trailing bytes are refused by decoding.
func TestRehearsalRejectsOldAndMalformedRequests(t *testing.T) {
	priv := rehearsalKey(t)
	stmts := []Statement{{SQL: "SELECT 1"}}
	v1 := appendBytes(nil, priv.Public().(ed25519.PublicKey))
	v1 = append(v1, 1)
	v1 = AppendStatement(v1, stmts[0])
	if _, err := DecodeRehearsal(v1); !errors.Is(err, ErrRehearsalVersion) || !errors.Is(err, ErrMalformed) {
		t.Fatalf("version 1 request: %v, want ErrRehearsalVersion", err)
	}
	raw := SignRehearsal(priv, "chain-A", 5, stmts)
	for n := 0; n < len(raw); n++ {
		if _, err := DecodeRehearsal(raw[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	if _, err := DecodeRehearsal(append(append([]byte{}, raw...), 0)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte: %v", err)
	}
	none := EncodeRehearsal(&Rehearsal{ChainID: "chain-A", Height: 5, Sender: priv.Public().(ed25519.PublicKey)})
	if _, err := DecodeRehearsal(none); !errors.Is(err, ErrMalformed) {
		t.Fatalf("no statement: %v", err)
	}
}

func FuzzDecodeRehearsal(f *testing.F) {
	f.Add(SignRehearsal(rehearsalKey(f), "c", 1, []Statement{{SQL: "SELECT $1", Args: []Arg{Text("x")}}}))
	f.Add(SignRehearsalProbe(rehearsalKey(f), "c", 1, []Statement{{SQL: "SELECT 1"}}, &Statement{SQL: "SELECT $1", Args: []Arg{Text("x")}}))
	f.Fuzz(func(t *testing.T, p []byte) {
		r, err := DecodeRehearsal(p)
		if err != nil {
			return
		}
		if string(EncodeRehearsal(r)) != string(p) {
			t.Fatal("decoded request re-encodes differently")
		}
		_ = r.Verify()
	})
}

// TestRehearsalProbeIsSigned: a request with a probe is version 3 and
// round-trips; its signature covers the probe, so a probe changed, added
// to a signed request without one, or removed from one that had it does
// not verify.
func TestRehearsalProbeIsSigned(t *testing.T) {
	priv := rehearsalKey(t)
	stmts := []Statement{{SQL: "CREATE TABLE t (k int PRIMARY KEY)"}}
	probe := &Statement{SQL: "SELECT table_name FROM information_schema.tables WHERE table_name = $1", Args: []Arg{Text("t")}}
	raw := SignRehearsalProbe(priv, "chain-A", 5, stmts, probe)
	if raw[3] != RehearsalProbeVersion {
		t.Fatalf("version byte %d, want %d", raw[3], RehearsalProbeVersion)
	}
	if plain := SignRehearsal(priv, "chain-A", 5, stmts); plain[3] != RehearsalVersion {
		t.Fatalf("a request without a probe has version %d, want %d", plain[3], RehearsalVersion)
	}
	good, err := DecodeRehearsal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(good.Probe, probe) || !reflect.DeepEqual(good.Statements, stmts) {
		t.Fatalf("decoded %+v", good)
	}
	if err := good.Verify(); err != nil {
		t.Fatal(err)
	}
	variants := map[string]func(r *Rehearsal){
		"another probe":          func(r *Rehearsal) { r.Probe = &Statement{SQL: "SELECT * FROM secrets"} },
		"another probe argument": func(r *Rehearsal) { r.Probe = &Statement{SQL: probe.SQL, Args: []Arg{Text("u")}} },
		"the probe removed":      func(r *Rehearsal) { r.Probe = nil },
	}
	for name, change := range variants {
		r := *good
		change(&r)
		dec, err := DecodeRehearsal(EncodeRehearsal(&r))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := dec.Verify(); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: Verify = %v, want ErrBadSignature", name, err)
		}
	}
	// A probe added to a request signed without one.
	plain, err := DecodeRehearsal(SignRehearsal(priv, "chain-A", 5, stmts))
	if err != nil {
		t.Fatal(err)
	}
	plain.Probe = probe
	dec, err := DecodeRehearsal(EncodeRehearsal(plain))
	if err != nil {
		t.Fatal(err)
	}
	if err := dec.Verify(); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a probe added: Verify = %v, want ErrBadSignature", err)
	}
	for n := 0; n < len(raw); n++ {
		if _, err := DecodeRehearsal(raw[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
}
