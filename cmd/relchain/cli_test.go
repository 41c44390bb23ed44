package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/netctl"
)

// localnet's failure names each exited node's last error line from its
// node.log, not only "exited before reaching height 1".
func TestLocalnetFailureNamesTheLogsLastError(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-relchain")
	script := "#!/bin/sh\necho 'I[2026] starting'\necho 'E[2026] some consensus error'\necho 'error: open mysql backend: lower_case_table_names is 1, relchain needs 0' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "node0")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	net := netctl.NewNetwork(fake, []netctl.NodeInfo{{Name: "node0", Home: home, RPC: "http://127.0.0.1:1"}})
	if err := net.StartAll(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-net.Exited(0):
	case <-time.After(10 * time.Second):
		t.Fatal("the fake node did not exit")
	}
	got := exitedNodesCause(net)
	if want := "\nnode0: error: open mysql backend: lower_case_table_names is 1, relchain needs 0"; got != want {
		t.Fatalf("cause %q, want %q", got, want)
	}
	if err := os.WriteFile(net.LogFile(0), []byte("I starting\nE failed to dial: connection error\nI shutting down\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := lastErrorLine(net.LogFile(0)); got != "E failed to dial: connection error" {
		t.Fatalf("without an error: line, the last line mentioning an error: %q", got)
	}
}

// relchain version names the commit and the versions of CometBFT, SQLite
// and both SQL parsers.
func TestVersionNamesComponents(t *testing.T) {
	v := versionInfo()
	if v.CometBFT == "unknown" || !strings.HasPrefix(v.CometBFT, "v0.38.") {
		t.Errorf("CometBFT version %q", v.CometBFT)
	}
	if !strings.HasPrefix(v.SQLite, "3.") {
		t.Errorf("SQLite version %q", v.SQLite)
	}
	if v.Parsers["postgresql (pg_query_go)"] == "" || v.Parsers["mysql (vitess)"] == "" {
		t.Errorf("parser versions %v", v.Parsers)
	}
	if got := sqliteVersion("v6.3.35304"); got != "3.53.4" {
		t.Errorf("sqliteVersion(v6.3.35304) = %q", got)
	}
	s := v.String()
	for _, w := range []string{"relchain ", "commit:", "go:", "cometbft:", "sqlite:", "pg_query_go", "vitess"} {
		if !strings.Contains(s, w) {
			t.Errorf("version text lacks %q:\n%s", w, s)
		}
	}
	saved := gitCommit
	gitCommit = "0123abcd"
	// The linker's commit, unless the toolchain stamped the VCS revision.
	if c := versionInfo().Commit; c != "0123abcd" && len(c) != 40 {
		t.Errorf("commit with -X main.gitCommit=0123abcd: %q", c)
	}
	gitCommit = saved
	root := rootCmd()
	if !reflect.DeepEqual(root.Version, s) {
		t.Errorf("--version prints %q, want the version text", root.Version)
	}
}
