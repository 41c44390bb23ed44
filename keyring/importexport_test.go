package keyring

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Import reads what Encode writes and hex keys or seeds; hostile input is
// refused with a reason; Delete refuses unknown names.
func TestImportExportDelete(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "keys"))
	a, err := d.Add("alice")
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"file": string(Encode(a)),
		"key":  hex.EncodeToString(a.Private),
		"seed": " " + hex.EncodeToString(a.Private.Seed()) + "\n",
	} {
		priv, err := ParsePrivate([]byte(in))
		if err != nil || !priv.Equal(a.Private) {
			t.Errorf("ParsePrivate(%s): %v", name, err)
		}
	}
	other := Key{Private: ed25519.NewKeyFromSeed(make([]byte, 32))}
	forged := strings.Replace(string(Encode(a)), a.PublicHex(), other.PublicHex(), 1)
	mixed := hex.EncodeToString(append(a.Private.Seed(), other.Public()...))
	for name, in := range map[string]string{
		"garbage": "not a key", "short": "abcd", "forged public key": forged, "mixed halves": mixed,
		"bad json": "{", "json without key": `{"name":"x"}`,
	} {
		if _, err := ParsePrivate([]byte(in)); err == nil {
			t.Errorf("ParsePrivate(%s) accepted %q", name, in)
		}
	}
	if _, err := d.Import("alice", a.Private); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Import over an existing key: %v", err)
	}
	if _, err := d.Import("../escape", a.Private); err == nil {
		t.Error("Import accepted a name with a path")
	}
	b, err := d.Import("bob", a.Private)
	if err != nil || b.PublicHex() != a.PublicHex() || !d.Has("bob") {
		t.Fatalf("Import bob: %v", err)
	}
	if err := d.Delete("carol"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `no key named "carol"`) {
		t.Errorf("Delete of an unknown key: %v", err)
	}
	if err := d.Delete("../alice"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete of a path: %v", err)
	}
	if err := d.Delete("bob"); err != nil || d.Has("bob") {
		t.Errorf("Delete bob: %v", err)
	}
}
