package gateway

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/api"
)

// fakeVerifier answers "SELECT 'ok'" verified, any other read with a
// failed verification. A unit test's stand-in for relchain proxy's
// verifier (the real one is tested on networks in ./test).
type fakeVerifier struct{ reads int }

func (f *fakeVerifier) VerifiedRead(_ context.Context, minHeight int64, r Read) (*api.QueryResponse, string, error) {
	f.reads++
	if r.ClientSQL == "SELECT 'ok'" {
		return &api.QueryResponse{Columns: []string{"v"}, Types: []string{"text"}, Rows: [][]any{{"ok"}}, Height: 7}, "verified by proof at height 7", nil
	}
	return nil, "", fmt.Errorf("node http://n1: row tampered: %w", ErrVerification)
}

// TestVerifiedReadsCarryTheirGuarantee: under a verifying gateway a read
// outside a transaction is the verifier's answer with a NOTICE naming its
// guarantee (also SHOW relchain.read_guarantee), and a read that failed
// verification is an error of SQLSTATE XX001 with no rows: never an
// unverified answer.
func TestVerifiedReadsCarryTheirGuarantee(t *testing.T) {
	users := filepath.Join(t.TempDir(), "users.toml")
	if _, err := AddUser(users, "alice", "secret-a", ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v := &fakeVerifier{}
	g, err := Start(ctx, Config{Listen: "127.0.0.1:0", Nodes: []string{"http://127.0.0.1:1"}, Dialect: "sqlite", UsersFile: users, Classifier: Conservative{}, Verifier: v})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://alice:secret-a@%s/relchain?sslmode=disable", g.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var got string
	if err := conn.QueryRow(ctx, "SELECT 'ok'", pgx.QueryExecModeSimpleProtocol).Scan(&got); err != nil || got != "ok" {
		t.Fatalf("verified read: %q, %v", got, err)
	}
	if want := []string{"relchain: verified by proof at height 7"}; !slices.Equal(notices, want) {
		t.Fatalf("notices %q, want %q", notices, want)
	}
	if err := conn.QueryRow(ctx, "SHOW "+SettingReadGuarantee, pgx.QueryExecModeSimpleProtocol).Scan(&got); err != nil || got != "verified by proof at height 7" {
		t.Fatalf("SHOW %s: %q, %v", SettingReadGuarantee, got, err)
	}
	rows, err := conn.Query(ctx, "SELECT 'lie'", pgx.QueryExecModeSimpleProtocol)
	if err == nil {
		for rows.Next() {
			t.Errorf("a row of a read that failed verification: %v", rows.RawValues())
		}
		rows.Close()
		err = rows.Err()
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != stateDataCorrupted {
		t.Fatalf("failed verification: %v, want SQLSTATE %s", err, stateDataCorrupted)
	}
	if v.reads != 2 {
		t.Fatalf("the verifier answered %d reads, want 2", v.reads)
	}
}
