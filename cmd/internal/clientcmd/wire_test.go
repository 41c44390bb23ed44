package clientcmd

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/netctl"
)

// The client commands decode the node side's formats without linking its
// packages (they link the databases' drivers): the copies must match.
func TestProtocolStatusDecodesAppsJSON(t *testing.T) {
	if protocolPath != app.ProtocolPath {
		t.Errorf("protocolPath %q, app.ProtocolPath %q", protocolPath, app.ProtocolPath)
	}
	if Release != app.Version {
		t.Errorf("Release %q, app.Version %q: relchain-client version would name another release", Release, app.Version)
	}
	if nodesFile != netctl.NodesFile {
		t.Errorf("nodesFile %q, netctl.NodesFile %q", nodesFile, netctl.NodesFile)
	}
	want, err := json.Marshal(app.ProtocolStatus{Height: 9, Version: 2, Since: 7, Next: 3,
		Pending: &app.Upgrade{Version: 3, Height: 12}, Supported: []uint64{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.DisallowUnknownFields()
	var ps protocolStatus
	if err := dec.Decode(&ps); err != nil {
		t.Fatalf("decode app.ProtocolStatus %s: %v", want, err)
	}
	got, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("protocolStatus encodes %s, app.ProtocolStatus %s: status --output json would change", got, want)
	}
}
