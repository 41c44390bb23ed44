package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/internal/longtest"
	"github.com/relchain/relchain/protocol"
)

// runRoot runs relchain-client's root command in process with args and
// returns what it printed.
func runRoot(t *testing.T, args ...string) string {
	t.Helper()
	root := rootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("relchain-client %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// The client names its release and offers the client commands with
// relchain's flags.
func TestClientOffersTheClientCommands(t *testing.T) {
	out := runRoot(t, "version", "--output", "json")
	var v clientVersion
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Relchain != clientcmd.Release || len(v.Protocol) != len(protocol.Versions()) {
		t.Fatalf("relchain-client version --output json = %s (%v); want release %s", out, err, clientcmd.Release)
	}
	out = runRoot(t, "exec", "--help")
	for _, flag := range []string{"--key", "--node", "--net", "--ca", "-f, --file"} {
		if !strings.Contains(out, flag) {
			t.Errorf("relchain-client exec --help lacks %s:\n%s", flag, out)
		}
	}
}

// The binary builds without cgo (make build-client's CGO_ENABLED=0) and
// runs. internal/lint's TestClientSideLinksNoDriverNorCgo checks the same
// dependency rule from go list in make test; this build compiles every
// dependency anew without cgo (about a minute on 2 cores), so make test-e2e
// runs it.
func TestBinaryBuildsWithoutCgo(t *testing.T) {
	longtest.Require(t, "compiles relchain-client and its dependencies with CGO_ENABLED=0")
	bin := filepath.Join(t.TempDir(), "relchain-client")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build relchain-client with CGO_ENABLED=0: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--output", "json").Output()
	var v clientVersion
	if err != nil || json.Unmarshal(out, &v) != nil || v.Relchain != clientcmd.Release {
		t.Fatalf("the cgo-free relchain-client's version --output json = %s (%v); want release %s", out, err, clientcmd.Release)
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
