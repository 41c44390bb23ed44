package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/netctl"
)

// Every node's headers carry the chain's AppHash by construction; a
// node whose own database recorded another one is found by comparing
// its own (height, AppHash) with the header above it. Before,
// apphash-equal compared the headers only, and passed such a node.
func TestNodeStatesAreComparedWithTheChain(t *testing.T) {
	r := newTestRun(t, "insert")
	r.nw = &network{net: netctl.NewNetwork("relchain", make([]netctl.NodeInfo, 3))}
	chain := map[int64][]byte{11: []byte("A10"), 12: []byte("A11")}
	header := func(h int64) ([]byte, error) {
		if b, ok := chain[h]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("no header %d", h)
	}
	compareNodeAppHashes(r, []nodeAppHash{
		{Node: 0, Height: 10, AppHash: []byte("A10")},
		{Node: 1, Height: 11, AppHash: []byte("A11")},
		{Node: 2, Height: 10, AppHash: []byte("B10")}, // its database went its own way
		{Node: 3, Height: 0},                          // committed nothing
		{Node: 4, Height: 12, AppHash: []byte("A12")}, // no header to compare with
	}, header)
	compareVerified(r, map[int]verifyResult{
		0: {OK: true, Height: 13, AppHash: "C13"},
		1: {OK: true, Height: 13, AppHash: "C13"},
		2: {OK: true, Height: 13, AppHash: "D13"},
	})
	if got := invariants(r.rep); !slices.Equal(got, []string{InvAppHash, InvAppHash, InvAppHash, InvAppHash}) || r.rep.Divergence != 2 {
		t.Fatalf("violations %v, divergence %d:\n%s", got, r.rep.Divergence, r.rep.Failed())
	}
	for _, frag := range []string{"node2's database recorded AppHash 423130 at height 10; the chain's header 11 says 413130",
		"node3's application reports height 0", "node4: no header at height 13",
		"at height 13 node0's database reproduces AppHash C13, node2's D13"} {
		if !strings.Contains(r.rep.Failed(), frag) {
			t.Errorf("the report does not say %q:\n%s", frag, r.rep.Failed())
		}
	}
}

func TestParseVerifyReadsTheJSONAnswer(t *testing.T) {
	v, err := parseVerify([]byte("verify ...\n{\n  \"height\": 42,\n  \"app_hash\": \"ABCD\",\n  \"ok\": true\n}\n"))
	if err != nil || v.Height != 42 || v.AppHash != "ABCD" || !v.OK {
		t.Fatalf("%+v, %v", v, err)
	}
	if _, err := parseVerify([]byte("error: no database")); err == nil {
		t.Fatal("no JSON parsed")
	}
}
