package serverdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServer is the one database server the tests of a process share: the
// one an environment variable names, or else a private server started on
// first use in a temporary directory and stopped by Shutdown.
type TestServer struct {
	// Pkg names the helper package in messages ("pgtest").
	Pkg string
	// What names the database in messages ("PostgreSQL").
	What string
	// EnvDSN names the variable holding a base DSN of a running server;
	// EnvSkip the one that, when "1", makes tests skip instead of fail
	// when there is no server.
	EnvDSN, EnvSkip string
	// Hint says what EnvDSN must hold, in the failure message.
	Hint string
	// CheckDSN, if not nil, validates EnvDSN's value.
	CheckDSN func(dsn string) error
	// Find reports whether the server binaries are installed.
	Find func() error
	// Start starts a private server in dir.
	Start func(ctx context.Context, dir string) (Running, error)
	// Run runs one statement on the server of dsn, as dsn's user, on a
	// connection of its own.
	Run func(ctx context.Context, dsn, sql string) error
	// WithDatabase returns base, a DSN of the server, naming database name.
	WithDatabase func(base, name string) (string, error)
	// DropDatabase is the statement that drops database name if it exists.
	DropDatabase func(name string) string

	once   sync.Once
	base   string
	stop   func() error
	tmpDir string
	err    error
}

// Running is a private server Start started.
type Running interface {
	// DSN is the server's base DSN: its administrator, no database of a
	// test's.
	DSN() string
	// Stop stops the server.
	Stop() error
}

// Main runs the tests and then stops the private server, if one was
// started: a package's TestMain.
func (s *TestServer) Main(m *testing.M) {
	code := m.Run()
	s.Shutdown()
	os.Exit(code)
}

// Shutdown stops the private server and removes its directory. It is safe
// to call when none was started.
func (s *TestServer) Shutdown() {
	if s.stop != nil {
		_ = s.stop()
		s.stop = nil
	}
	if s.tmpDir != "" {
		_ = os.RemoveAll(s.tmpDir)
		s.tmpDir = ""
	}
}

func (s *TestServer) setup() {
	if dsn := os.Getenv(s.EnvDSN); dsn != "" {
		if s.CheckDSN != nil {
			if err := s.CheckDSN(dsn); err != nil {
				s.err = fmt.Errorf("%s is not %s: %w", s.EnvDSN, s.Hint, err)
				return
			}
		}
		s.base = dsn
		return
	}
	if s.err = s.Find(); s.err != nil {
		return
	}
	dir, err := os.MkdirTemp("", "relchain-"+strings.TrimSuffix(s.Pkg, "test")+"-")
	if err != nil {
		s.err = err
		return
	}
	s.tmpDir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	running, err := s.Start(ctx, dir)
	if err != nil {
		s.err = err
		return
	}
	s.base, s.stop = running.DSN(), running.Stop
}

// DSN returns the base DSN, starting the private server on first use. When
// no server is available it fails t with instructions, or skips it when
// EnvSkip is "1".
func (s *TestServer) DSN(t testing.TB) string {
	t.Helper()
	s.once.Do(s.setup)
	if s.err != nil {
		msg := fmt.Sprintf("%s: no %s server for tests: %v\n"+
			"Run `make test` (it installs the server), or set %s to %s of a running server "+
			"(not the system server), or set %s=1 to skip tests that need %s.",
			s.Pkg, s.What, s.err, s.EnvDSN, s.Hint, s.EnvSkip, s.What)
		if os.Getenv(s.EnvSkip) == "1" {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	return s.base
}

// UniqueName makes a database name from the test name (for a human looking
// at the server) and random bytes (for uniqueness across processes).
func UniqueName(t testing.TB) string {
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
