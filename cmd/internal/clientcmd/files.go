package clientcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// FileEnv is an Env that reads the node side's files itself, without
// linking netctl or node (they link the databases' drivers): a network
// directory's nodes.json and a node home's halt record
// (data/relchain-halt.json). relchain-client uses it; cmd/relchain's tests
// check that it reads what netctl.SaveNodes and node.LoadHaltRecord do.
func FileEnv() Env {
	return Env{Nodes: loadNodes, Stopped: haltRecordText}
}

// haltRecordFile is where a node home keeps its halt record
// (node.haltRecordPath).
var haltRecordFile = filepath.Join("data", "relchain-halt.json")

// haltRecord is node.HaltRecord's JSON.
type haltRecord struct {
	Height int64  `json:"height"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// loadNodes reads dir/nodes.json (netctl.LoadNodes).
func loadNodes(dir string) ([]Node, error) {
	path := filepath.Join(dir, nodesFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", nodesFile, err)
	}
	var nodes []struct {
		Name string `json:"name"`
		Home string `json:"home"`
		RPC  string `json:"rpc"`
	}
	if err := json.Unmarshal(b, &nodes); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		out[i] = Node{Name: n.Name, Home: n.Home, RPC: n.RPC}
	}
	return out, nil
}

// haltRecordText is Env.Stopped: home's halt record as StoppedText
// words it, or "" if there is none or it cannot be read.
func haltRecordText(home string) string {
	b, err := os.ReadFile(filepath.Join(home, haltRecordFile))
	if err != nil {
		return ""
	}
	var r haltRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return ""
	}
	return StoppedText(r.Height, r.Kind, r.Reason)
}

// StoppedText is how status --net words a halt record: the last height the
// node applied, the record's kind and the node's reason.
func StoppedText(height int64, kind, reason string) string {
	return fmt.Sprintf("after height %d (%s): %s", height, kind, reason)
}
