package keyring

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestAddLoadListKeys(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "keys"))
	a, err := d.Add("alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Add("alice"); err == nil {
		t.Fatal("adding an existing key succeeded; it must refuse to overwrite")
	}
	got, err := d.Load("alice")
	if err != nil || got.PublicHex() != a.PublicHex() {
		t.Fatalf("load: %v, public %s want %s", err, got.PublicHex(), a.PublicHex())
	}
	fi, err := os.Stat(filepath.Join(string(d), "alice.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	def, err := d.LoadOrCreateDefault()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := d.LoadOrCreateDefault()
	if again.PublicHex() != def.PublicHex() {
		t.Fatal("the default key changed between calls")
	}
	keys, err := d.List()
	if err != nil || len(keys) != 2 || keys[0].Name != "alice" || keys[1].Name != DefaultName {
		t.Fatalf("list = %v (%v), want alice and default", keys, err)
	}
	if _, err := d.Load("bob"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("load missing key: %v, want ErrNotFound", err)
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := d.Add(bad); err == nil {
			t.Errorf("key name %q accepted", bad)
		}
	}
}
