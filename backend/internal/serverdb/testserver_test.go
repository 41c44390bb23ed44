package serverdb

import (
	"context"
	"errors"
	"testing"
)

func TestTestServerTakesTheEnvironmentsDSN(t *testing.T) {
	t.Setenv("SERVERDB_TEST_DSN", "the-dsn")
	s := &TestServer{Pkg: "x", EnvDSN: "SERVERDB_TEST_DSN", EnvSkip: "SERVERDB_TEST_SKIP",
		Find: func() error { t.Fatal("Find called with a DSN set"); return nil }}
	if got := s.DSN(t); got != "the-dsn" {
		t.Fatalf("DSN = %q", got)
	}
}

func TestTestServerStartsOnePrivateServerAndStopsIt(t *testing.T) {
	t.Setenv("SERVERDB_TEST_DSN", "")
	starts, stops := 0, 0
	s := &TestServer{Pkg: "xtest", EnvDSN: "SERVERDB_TEST_DSN", EnvSkip: "SERVERDB_TEST_SKIP",
		Find: func() error { return nil },
		Start: func(ctx context.Context, dir string) (Running, error) {
			starts++
			return fakeServer{dsn: "private:" + dir, stop: func() error { stops++; return nil }}, nil
		}}
	a, b := s.DSN(t), s.DSN(t)
	if a != b || starts != 1 {
		t.Fatalf("DSN = %q then %q after %d starts; want one server", a, b, starts)
	}
	s.Shutdown()
	s.Shutdown()
	if stops != 1 {
		t.Fatalf("%d stops, want 1", stops)
	}
}

func TestTestServerSkipsWithoutAServerWhenAsked(t *testing.T) {
	t.Setenv("SERVERDB_TEST_DSN", "")
	t.Setenv("SERVERDB_TEST_SKIP", "1")
	s := &TestServer{Pkg: "x", What: "X", Hint: "a DSN", EnvDSN: "SERVERDB_TEST_DSN", EnvSkip: "SERVERDB_TEST_SKIP",
		Find: func() error { return errors.New("no binaries") }}
	skipped := false
	t.Run("needs X", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		s.DSN(t)
	})
	if !skipped {
		t.Fatal("a test without a server was not skipped")
	}
}

// fakeServer is a Running that Start returns without starting anything.
type fakeServer struct {
	dsn  string
	stop func() error
}

func (f fakeServer) DSN() string { return f.dsn }
func (f fakeServer) Stop() error { return f.stop() }
