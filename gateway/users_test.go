package gateway

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gw", "users.toml")
	pubA, err := AddUser(path, "alice", "secret-a", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddUser(path, "bob", "secret-b", ""); err != nil {
		t.Fatal(err)
	}
	// A new password keeps the key.
	pubA2, err := AddUser(path, "alice", "secret-a2", "")
	if err != nil || string(pubA2) != string(pubA) {
		t.Fatalf("changing alice's password changed her key (%v)", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "secret") {
		t.Fatal("the users file holds a password")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("users file mode %v, want 0600", fi.Mode().Perm())
	}
	u, err := LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(u.Names(), ","); got != "alice,bob" {
		t.Fatalf("users %s", got)
	}
	a, ok := u.Lookup("alice")
	if !ok || string(a.Key.Public().(ed25519.PublicKey)) != string(pubA) {
		t.Fatal("alice's key did not load")
	}
	if _, ok := u.Verifier("mallory"); ok {
		t.Fatal("an unknown user has a verifier")
	}
	for _, bad := range []string{"", "1abc", "a b", "a/b", strings.Repeat("x", 64)} {
		if _, err := AddUser(path, bad, "pw", ""); err == nil {
			t.Errorf("user name %q accepted", bad)
		}
	}
	if _, err := AddUser(path, "carol", "", ""); err == nil {
		t.Error("an empty password accepted")
	}
	if err := os.WriteFile(path, append(b, []byte("[[users]]\nname = \"alice\"\nkey = \"keys/alice.json\"\nscram = \"x\"\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadUsers(path); err == nil {
		t.Error("a users file naming alice twice loaded")
	}
}
