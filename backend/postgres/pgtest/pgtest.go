package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/internal/serverdb"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
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

// server is the PostgreSQL server the tests of this process share.
var server = &serverdb.TestServer{
	Pkg: "pgtest", What: "PostgreSQL", EnvDSN: EnvDSN, EnvSkip: EnvSkip,
	Hint: "a superuser DSN (postgres://...)",
	Find: func() error { _, err := FindBinDir(); return err },
	Start: func(ctx context.Context, dir string) (serverdb.Running, error) {
		return Start(ctx, dir, Options{})
	},
	Run:          run,
	WithDatabase: withDatabase,
	DropDatabase: dropDatabase,
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
	base := ServerDSN(t)
	t.Cleanup(func() { dropOwned(base, name, writer, reader) })
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

// dropOwned drops database db and then roles on the server of base (the
// owner of db among them): it runs before UncreatedDSN's cleanup, which
// would drop db.
func dropOwned(base, db string, roles ...string) {
	server.BestEffort(base, server.DropDatabase(db))
	for _, r := range roles {
		server.BestEffort(base, "DROP ROLE IF EXISTS "+pgx.Identifier{r}.Sanitize())
	}
}

// dropDatabase drops database name, if it exists, even while sessions are
// connected to it.
func dropDatabase(name string) string {
	return fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize())
}

// withDatabase is base naming database name instead.
func withDatabase(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("must be a postgres:// URL: %q", base)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// run runs sql (one or more statements) on the database of dsn, on a
// connection of its own.
func run(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.PgConn().Exec(ctx, sql).ReadAll()
	return err
}
