package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/netctl"
)

// exec -f splits a script with the gateway's splitter: semicolons inside
// quotes, comments and (PostgreSQL) dollar quotes do not split, and a
// SQLite trigger's BEGIN ... END stays one statement.
func TestSplitScript(t *testing.T) {
	script := `-- a comment; not a statement
CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT);
INSERT INTO t VALUES (1, 'a;b');  /* ; */
CREATE TRIGGER tr AFTER INSERT ON t BEGIN
  UPDATE t SET s = s || ';' WHERE id = new.id;
  UPDATE t SET s = CASE WHEN s = '' THEN 'x' ELSE s END WHERE id = new.id;
END;
INSERT INTO "we;ird" VALUES (2, 'c');`
	got, err := splitScript(script, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !strings.Contains(got[2], "CREATE TRIGGER") || !strings.HasSuffix(got[2], "END") || !strings.Contains(got[1], "'a;b'") || !strings.Contains(got[3], `"we;ird"`) {
		t.Fatalf("split into %d statements: %q", len(got), got)
	}
	pg, err := splitScript("CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$; SELECT f()", true)
	if err != nil || len(pg) != 2 {
		t.Fatalf("dollar quotes: %q, %v", pg, err)
	}
	for _, bad := range []string{"SELECT 'open", "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1;"} {
		if _, err := splitScript(bad, false); err == nil {
			t.Errorf("splitScript(%q) accepted it", bad)
		}
	}
	if got, _ := splitScript(" ;\n-- nothing\n; ", false); len(got) != 0 {
		t.Errorf("an empty script split into %q", got)
	}
}

// --key takes a key name or a key file; an unknown one says which key
// directory it looked in.
func TestLoadKeyByNameOrFile(t *testing.T) {
	home := t.TempDir()
	dir := keyring.Dir(filepath.Join(home, "keys"))
	alice, err := dir.Add("alice")
	if err != nil {
		t.Fatal(err)
	}
	byName, err := loadKey(home, "alice")
	if err != nil || !byName.Private.Equal(alice.Private) {
		t.Fatalf("--key alice: %v", err)
	}
	byFile, err := loadKey(t.TempDir(), dir.Path("alice"))
	if err != nil || !byFile.Private.Equal(alice.Private) {
		t.Fatalf("--key FILE: %v", err)
	}
	if _, err := loadKey(home, "bob"); err == nil || !strings.Contains(err.Error(), `neither a key named "bob"`) || !strings.Contains(err.Error(), string(dir)) {
		t.Fatalf("--key bob: %v", err)
	}
}

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
