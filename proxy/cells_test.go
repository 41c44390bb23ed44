package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/proof"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/rowcanon"
)

// TestWireCells: every kind of proven value reaches the gateway in the
// form its wire conversion takes (what the read path's JSON carries).
func TestWireCells(t *testing.T) {
	must := func(v rowcanon.Value, err error) rowcanon.Value {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		v    rowcanon.Value
		want any
	}{
		{rowcanon.Value{}, nil},
		{rowcanon.Bool(true), true},
		{rowcanon.Int(-42), json.Number("-42")},
		{rowcanon.Float(1.5), "1.5"},
		{rowcanon.Float(math.Inf(-1)), "-Infinity"},
		{must(rowcanon.Numeric("12.50")), "12.5"},
		{must(rowcanon.Text("héllo")), "héllo"},
		{rowcanon.Bytes([]byte{0, 1, 0xff}), "AAH/"},
		{must(rowcanon.Date(19782)), "2024-02-29"},
		{must(rowcanon.Timestamp(1709212455123456)), "2024-02-29T13:14:15.123456Z"},
		{rowcanon.UUID([16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{must(rowcanon.JSON(`{"a":1}`)), `{"a":1}`},
	}
	for _, c := range cases {
		if got := wireCell(c.v); fmt.Sprint(got) != fmt.Sprint(c.want) || fmt.Sprintf("%T", got) != fmt.Sprintf("%T", c.want) {
			t.Errorf("wireCell(%s) = %#v, want %#v", c.v, got, c.want)
		}
	}
}

// TestVerificationErrors: a refuted answer (a lie, nodes that disagree,
// a rejected proof) becomes gateway.ErrVerification, which the gateway
// answers with SQLSTATE XX001; any other failure passes unchanged.
func TestVerificationErrors(t *testing.T) {
	for _, err := range []error{
		&client.LieError{Node: "http://n1", Err: proof.ErrTamperedRow},
		&client.MismatchError{SQL: "SELECT 1"},
		fmt.Errorf("verify: %w", proof.ErrRejected),
	} {
		if got := verificationError(err); !errors.Is(got, gateway.ErrVerification) {
			t.Errorf("%v: not a failed verification", err)
		}
	}
	other := errors.New("connection refused")
	if got := verificationError(other); errors.Is(got, gateway.ErrVerification) || got != other {
		t.Errorf("an unreachable node became %v", got)
	}
}

// TestNumericScale: a proven numeric shows its column's declared scale,
// as PostgreSQL does (numeric(10,2): 12.50), and a column without one
// the canonical form.
func TestNumericScale(t *testing.T) {
	typmod := func(p, s int32) int32 { return p<<16 | s + 4 }
	for _, c := range []struct {
		cell   any
		typ    string
		typmod int32
		want   any
	}{
		{"12.5", "numeric", typmod(10, 2), "12.50"},
		{"12", "numeric", typmod(10, 2), "12.00"},
		{"-0.125", "numeric", typmod(10, 3), "-0.125"},
		{"12.5", "numeric", -1, "12.5"},
		{"12", "numeric", typmod(10, 0), "12"},
		{"NaN", "numeric", typmod(10, 2), "NaN"},
		{"12.5", "text", typmod(10, 2), "12.5"},
		{json.Number("3"), "numeric", typmod(10, 2), json.Number("3")},
	} {
		if got := withScale(c.cell, c.typ, c.typmod); got != c.want {
			t.Errorf("withScale(%v, %s, %d) = %v, want %v", c.cell, c.typ, c.typmod, got, c.want)
		}
	}
}
