package clientcmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/keyring"
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
