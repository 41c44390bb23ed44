package bench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relchain/relchain/netctl"
)

// A node that logged a bind failure marks its network for a second try on
// fresh ports; one that failed otherwise does not.
func TestPortTakenReadsTheNodesLogs(t *testing.T) {
	homes := []string{t.TempDir(), t.TempDir()}
	n := netctl.NewNetwork("relchain", []netctl.NodeInfo{{Name: "node0", Home: homes[0]}, {Name: "node1", Home: homes[1]}})
	if err := os.WriteFile(filepath.Join(homes[0], "node.log"), []byte("I[…] starting\nerror: open database: disk full\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if portTaken(n) {
		t.Fatal("a node that failed for another reason was taken for a port collision")
	}
	if err := os.WriteFile(filepath.Join(homes[1], "node.log"), []byte("error: start node: listen tcp 127.0.0.1:21345: bind: address already in use\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !portTaken(n) {
		t.Fatal("a node whose port was taken was not noticed")
	}
}
