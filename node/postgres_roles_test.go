package node_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/node"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// A node configured with a superuser's DSN refuses to start unless told
// unsafe_superuser; init given that DSN creates least-privilege roles and
// configures the node with the writer's.
func TestNodeRefusesSuperuserUnlessUnsafeAndInitCreatesRoles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := pgtest.AdminDSN(t)
	rc := node.DefaultConfig()
	rc.Backend = node.BackendConfig{Kind: "postgres", DSN: admin}
	be, err := node.OpenBackend(ctx, t.TempDir(), rc)
	if err == nil {
		be.Close()
		t.Fatal("a node with a superuser DSN opened its backend without unsafe_superuser")
	}
	for _, want := range []string{"SUPERUSER", "--unsafe-superuser"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not mention %q", err, want)
		}
	}
	rc.Backend.UnsafeSuperuser = true
	be, err = node.OpenBackend(ctx, t.TempDir(), rc)
	if err != nil {
		t.Fatalf("with unsafe_superuser: %v", err)
	}
	be.Close()

	home := filepath.Join(t.TempDir(), "n")
	if _, err := node.Init(home, node.InitOptions{Backend: node.BackendConfig{Kind: "postgres", DSN: admin}}); err != nil {
		t.Fatal(err)
	}
	_, rc, err = node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rc.Backend.DSN, "_writer:") || rc.Backend.UnsafeSuperuser {
		t.Fatalf("init stored DSN %q (unsafe %v), want the writer role's", rc.Backend.DSN, rc.Backend.UnsafeSuperuser)
	}
	if fi, err := os.Stat(filepath.Join(home, node.RelchainConfigFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("relchain.toml holds a password: mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	be, err = node.OpenBackend(ctx, home, rc)
	if err != nil {
		t.Fatalf("the initialized node's backend: %v", err)
	}
	be.Close()
}
