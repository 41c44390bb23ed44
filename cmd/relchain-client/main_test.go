package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/protocol"
)

// mustBuild builds relchain-client, without cgo (it links none), into a
// temporary directory.
func mustBuild(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "relchain-client")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build relchain-client with CGO_ENABLED=0: %v\n%s", err, out)
	}
	return bin
}

// The binary builds without cgo, names its release and offers the client
// commands with relchain's flags.
func TestBinaryOffersTheClientCommands(t *testing.T) {
	bin := mustBuild(t)
	out, err := exec.Command(bin, "version", "--output", "json").Output()
	if err != nil {
		t.Fatalf("relchain-client version: %v", err)
	}
	var v clientVersion
	if err := json.Unmarshal(out, &v); err != nil || v.Relchain != clientcmd.Release || len(v.Protocol) != len(protocol.Versions()) {
		t.Fatalf("relchain-client version --output json = %s (%v); want release %s", out, err, clientcmd.Release)
	}
	out, err = exec.Command(bin, "exec", "--help").Output()
	if err != nil {
		t.Fatalf("relchain-client exec --help: %v", err)
	}
	for _, flag := range []string{"--key", "--node", "--net", "--ca", "-f, --file"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("relchain-client exec --help lacks %s:\n%s", flag, out)
		}
	}
}

// The root offers exactly clientcmd's commands and version, nothing of
// the node's.
func TestRootHasOnlyTheClientCommands(t *testing.T) {
	want := map[string]bool{"version": true}
	for _, c := range clientcmd.Commands(clientcmd.FileEnv()) {
		want[c.Name()] = true
	}
	got := map[string]bool{}
	for _, c := range rootCmd().Commands() {
		got[c.Name()] = true
	}
	for name := range want {
		if !got[name] {
			t.Errorf("relchain-client lacks %s", name)
		}
	}
	for name := range got {
		if !want[name] {
			t.Errorf("relchain-client offers %s, not a client command", name)
		}
	}
}
