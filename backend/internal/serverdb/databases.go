package serverdb

import (
	"context"
	"testing"
	"time"
)

// statementTimeout bounds one statement a test helper runs on the server.
const statementTimeout = 30 * time.Second

// UncreatedDSN returns a DSN naming a database that does not exist yet on
// the shared server, and its name; whatever creates it, the database is
// dropped when the test ends (best effort).
func (s *TestServer) UncreatedDSN(t testing.TB) (dsn, name string) {
	t.Helper()
	base := s.DSN(t)
	name = UniqueName(t)
	dsn, err := s.WithDatabase(base, name)
	if err != nil {
		t.Fatalf("%s: %s: %v", s.Pkg, s.EnvDSN, err)
	}
	t.Cleanup(func() { s.BestEffort(base, s.DropDatabase(name)) })
	return dsn, name
}

// Exec runs sql on the shared server as its administrator (the base DSN),
// failing t if it fails.
func (s *TestServer) Exec(t testing.TB, sql string) {
	t.Helper()
	s.ExecIn(t, s.DSN(t), sql)
}

// ExecIn runs sql on the database of dsn, failing t if it fails.
func (s *TestServer) ExecIn(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), statementTimeout)
	defer cancel()
	if err := s.Run(ctx, dsn, sql); err != nil {
		t.Fatalf("%s: %s: %v", s.Pkg, sql, err)
	}
}

// BestEffort runs sql on the server of dsn and ignores its failure: a
// cleanup's, which must not fail a test that has passed.
func (s *TestServer) BestEffort(dsn, sql string) {
	ctx, cancel := context.WithTimeout(context.Background(), statementTimeout)
	defer cancel()
	_ = s.Run(ctx, dsn, sql)
}
