package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/node"
)

// localnet's wire user signs with a key of its own on each node, not the
// machine's default key that the CLI signs with (a listener sharing the
// CLI's key was wedged by the CLI's nonces), and each such key is a
// genesis admin like the default key.
func TestLocalnetWireUserHasAKeyOfItsOwn(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RELCHAIN_HOME", home)
	f := &netFlags{validators: 2, backend: registry.Default, basePort: 0}
	nodes, err := createLocalnet(f, filepath.Join(t.TempDir(), "net"), 5433, true)
	if err != nil {
		t.Fatal(err)
	}
	def, err := keyring.Dir(filepath.Join(home, "keys")).Load(keyring.DefaultName)
	if err != nil {
		t.Fatalf("default key: %v", err)
	}
	seen := map[string]string{}
	for _, n := range nodes {
		_, rc, err := node.LoadConfig(n.Home)
		if err != nil {
			t.Fatal(err)
		}
		users, err := gateway.LoadUsers(rc.PG.UsersFile(n.Home))
		if err != nil {
			t.Fatalf("%s: users file: %v", n.Name, err)
		}
		u, ok := users.Lookup(localnetPGUser)
		if !ok {
			t.Fatalf("%s: no user %q in %v", n.Name, localnetPGUser, users.Names())
		}
		pub := u.Key.Public().(ed25519.PublicKey)
		if bytes.Equal(pub, def.Private.Public().(ed25519.PublicKey)) {
			t.Fatalf("%s: the wire user signs with the machine's default key", n.Name)
		}
		h := hex.EncodeToString(pub)
		if other, dup := seen[h]; dup {
			t.Fatalf("%s and %s: the wire users share key %s", other, n.Name, h)
		}
		seen[h] = n.Name
		genesis, err := os.ReadFile(filepath.Join(n.Home, "config", "genesis.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, admin := range []string{h, def.PublicHex()} {
			if !bytes.Contains(genesis, []byte(admin)) {
				t.Fatalf("%s: key %s is not a genesis admin", n.Name, admin)
			}
		}
	}
}
