package clientcmd

import (
	"testing"

	"github.com/relchain/relchain/txn"
)

func TestParseArgTypes(t *testing.T) {
	cases := map[string]txn.Arg{
		"42":          txn.Int(42),
		"-7":          txn.Int(-7),
		"2.5":         txn.Float(2.5),
		"NULL":        txn.Null(),
		"true":        txn.Bool(true),
		"alice":       txn.Text("alice"),
		"text:42":     txn.Text("42"),
		"int:9":       txn.Int(9),
		"float:1":     txn.Float(1),
		"bytes:00ff":  txn.Bytes([]byte{0, 0xff}),
		"bool:false":  txn.Bool(false),
		"Infinity":    txn.Text("Infinity"),
		"nan":         txn.Text("nan"),
		"0x10":        txn.Text("0x10"),
		"other:thing": txn.Text("other:thing"),
	}
	for in, want := range cases {
		got, err := parseArg(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got.String() != want.String() {
			t.Errorf("%q parsed as %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"int:x", "float:y", "bytes:zz", "bool:maybe"} {
		if _, err := parseArg(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
