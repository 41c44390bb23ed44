package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// TestAuthenticatedAppHashVector pins the v6 AppHash layout: a change to
// it is a protocol change, and clients verify against it.
func TestAuthenticatedAppHashVector(t *testing.T) {
	base := bytes.Repeat([]byte{0x11}, 32)
	var tables [32]byte
	for i := range tables {
		tables[i] = byte(i)
	}
	pre := append([]byte("relchain/apphash/v6"), 0, 0, 0, 0, 0, 0, 0, 4)
	pre = append(append(pre, base...), tables[:]...)
	want := sha256.Sum256(pre)
	got := AuthenticatedAppHash(4, base, tables)
	if !bytes.Equal(got, want[:]) {
		t.Fatalf("AuthenticatedAppHash = %x, want %x", got, want)
	}
	if h := hex.EncodeToString(got); h != "f2d8f52619cb42af9de2e707760621b63c4311478a4d96298bb427337fcd4767" {
		t.Errorf("vector changed: %s", h)
	}
}

// TestProofRequestCheck: a request is a point or a range, never both,
// with bounded keys.
func TestProofRequestCheck(t *testing.T) {
	long := bytes.Repeat([]byte{1}, MaxProofKeyLen)
	good := []ProofRequest{
		{Table: "t", Key: []byte{1}},
		{Table: "t", Key: long[1:]},
		{Table: "t", Hi: []byte{1}},
		{Table: "t", Lo: []byte{1}, Hi: []byte{1}, Height: 7},
		{Table: "t", Lo: []byte{0}, Hi: long},
	}
	for _, r := range good {
		if err := r.Check(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	bad := map[string]ProofRequest{
		"no table":       {Key: []byte{1}},
		"negative":       {Table: "t", Key: []byte{1}, Height: -1},
		"key and range":  {Table: "t", Key: []byte{1}, Hi: []byte{2}},
		"key and lo":     {Table: "t", Key: []byte{1}, Lo: []byte{0}},
		"neither":        {Table: "t"},
		"lo only":        {Table: "t", Lo: []byte{1}},
		"lo above hi":    {Table: "t", Lo: []byte{2}, Hi: []byte{1}},
		"key too long":   {Table: "t", Key: long},
		"bound too long": {Table: "t", Hi: append(long, 1)},
	}
	for name, r := range bad {
		if err := r.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestProofResponseJSON: the documented field names, byte strings in
// base64, and a round trip.
func TestProofResponseJSON(t *testing.T) {
	resp := ProofResponse{Height: 3, Version: 4, Base: []byte{1}, TablesRoot: []byte{2}, Table: "t", Key: []byte{3},
		Rows: []ProofRow{{Key: []byte{3}, Image: []byte{4}}}, Proof: []byte{5}}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{`"height":3`, `"version":4`, `"base":"AQ=="`, `"tables_root":"Ag=="`, `"table":"t"`, `"rows":[{"key":"Aw==","image":"BA=="}]`, `"proof":"BQ=="`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("%s lacks %s", b, f)
		}
	}
	var back ProofResponse
	if err := json.Unmarshal(b, &back); err != nil || back.Height != 3 || !bytes.Equal(back.Rows[0].Image, []byte{4}) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
