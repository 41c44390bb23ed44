package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/internal/pgserver"
)

// Environment variables read by this package.
const (
	// EnvDSN names a base DSN to a superuser on an existing server, e.g.
	// postgres://postgres@127.0.0.1:54329/postgres?sslmode=disable. When set,
	// no private cluster is started.
	EnvDSN = "RELCHAIN_TEST_PG"
	// EnvSkip, when "1", makes tests that need PostgreSQL skip instead of
	// fail when no server can be found or started.
	EnvSkip = "RELCHAIN_SKIP_PG"
)

var (
	once    sync.Once
	base    string // base DSN, from EnvDSN or the private cluster
	private *pgserver.Server
	tmpDir  string
	baseErr error
)

// Main runs the tests and then stops the private cluster, if one was
// started. Use it as a package's TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Shutdown()
	os.Exit(code)
}

// Shutdown stops the private cluster and removes its directory. It is safe
// to call when none was started.
func Shutdown() {
	if private != nil {
		_ = private.Stop()
		private = nil
	}
	if tmpDir != "" {
		_ = os.RemoveAll(tmpDir)
		tmpDir = ""
	}
}

func setup() {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		base = dsn
		return
	}
	if _, err := pgserver.FindBinDir(); err != nil {
		baseErr = err
		return
	}
	dir, err := os.MkdirTemp("", "relchain-pg-")
	if err != nil {
		baseErr = err
		return
	}
	tmpDir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := pgserver.Start(ctx, dir, pgserver.Options{})
	if err != nil {
		baseErr = err
		return
	}
	private = s
	base = s.DSN()
}

// ServerDSN returns the base DSN (a superuser on the maintenance database),
// starting the private cluster on first use. It fails or skips t as
// described in the package documentation when no server is available.
func ServerDSN(t testing.TB) string {
	t.Helper()
	once.Do(setup)
	if baseErr != nil {
		msg := fmt.Sprintf("pgtest: no PostgreSQL server for tests: %v\n"+
			"Run `make test` (it installs PostgreSQL), or set %s to a superuser DSN of a running server, "+
			"or set %s=1 to skip tests that need PostgreSQL.", baseErr, EnvDSN, EnvSkip)
		if os.Getenv(EnvSkip) == "1" {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	return base
}

// DSN creates a fresh, empty database (UTF8, collation C) unique to this
// test, with the least-privilege writer and reader roles a node uses
// (pgsetup.Provision, as the superuser), and returns the node's DSN: it
// connects as the writer, a non-superuser. The database and roles are
// dropped when the test ends (best effort).
func DSN(t testing.TB) string {
	t.Helper()
	admin, name := UncreatedDSN(t)
	writer, reader := pgsetup.Roles(name)
	t.Cleanup(func() { dropOwned(name, writer, reader) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn, err := pgsetup.Provision(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dsn
}

// AdminDSN creates a fresh, empty database like DSN and returns the
// superuser's DSN for it, for tests that need the superuser's powers
// (to tamper with a node's database, or to test that a node refuses a
// superuser).
func AdminDSN(t testing.TB) string {
	t.Helper()
	dsn, name := UncreatedDSN(t)
	Exec(t, fmt.Sprintf(`CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
		pgx.Identifier{name}.Sanitize()))
	return dsn
}

// dropOwned drops database db and then roles (the owner of db among
// them): it runs before UncreatedDSN's cleanup, which would drop db.
func dropOwned(db string, roles ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{db}.Sanitize()))
	for _, r := range roles {
		_, _ = conn.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{r}.Sanitize())
	}
}

// UncreatedDSN returns a DSN naming a database that does not exist yet, and
// its name; whatever creates it, the database is dropped when the test ends
// (best effort).
func UncreatedDSN(t testing.TB) (dsn, name string) {
	t.Helper()
	b := ServerDSN(t)
	name = uniqueName(t)
	u, err := url.Parse(b)
	if err != nil || u.Scheme == "" {
		t.Fatalf("pgtest: %s must be a postgres:// URL: %q", EnvDSN, b)
	}
	u.Path = "/" + name
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, b)
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		_, _ = conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize()))
	})
	return u.String(), name
}

// Exec runs sql on the maintenance database as the superuser.
func Exec(t testing.TB, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, ServerDSN(t))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// uniqueName makes a database name from the test name (for a human looking
// at the server) and random bytes (for uniqueness across processes).
func uniqueName(t testing.TB) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(t.Name()) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(rnd[:]))
	return b.String()
}

// ExecIn runs sql (one or more statements) on the database of dsn.
func ExecIn(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.PgConn().Exec(ctx, sql).ReadAll(); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}
