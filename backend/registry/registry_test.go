package registry_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/dialect"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// spec locates a fresh database of the backend d, as a node's
// configuration would.
func spec(t *testing.T, d registry.Driver) registry.Spec {
	switch {
	case !d.Server:
		return registry.Spec{DSN: filepath.Join(t.TempDir(), "relchain.db")}
	case strings.HasPrefix(d.DSNTemplate, "postgres://"):
		return registry.Spec{DSN: pgtest.DSN(t)}
	default:
		w, r := mysqltest.Accounts(t)
		return registry.Spec{DSN: w, ReaderDSN: r}
	}
}

// Every name the registry lists opens a backend of that dialect (the name
// the genesis records), with checkpoints scheduled.
func TestEveryNameOpens(t *testing.T) {
	for _, name := range registry.Names() {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			d, err := registry.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			s := spec(t, d)
			s.Checkpoints = registry.Checkpoints{Dir: t.TempDir(), Every: 10, Keep: 1, OnError: func(err error) { t.Error(err) }}
			be, err := d.Open(ctx, s)
			if err != nil {
				t.Fatalf("open %s: %v", name, err)
			}
			defer be.Close()
			if be.Dialect() != name {
				t.Errorf("backend %s says its dialect is %q", name, be.Dialect())
			}
			cps, err := d.Checkpoints(s.Checkpoints.Dir)
			if err != nil || len(cps) != 0 {
				t.Errorf("checkpoints of a new backend: %v %v", cps, err)
			}
		})
	}
}

// A server backend gives what a network of them needs; a file backend
// needs none of it.
func TestDriversDescribeTheirKind(t *testing.T) {
	for _, name := range registry.Names() {
		d, _ := registry.Lookup(name)
		if d.Name != name || d.Open == nil || d.Checkpoints == nil {
			t.Errorf("%s: incomplete driver %+v", name, d)
		}
		if d.Server != strings.Contains(d.DSNTemplate, "{node}") || d.Server != (d.Restore != nil) {
			t.Errorf("%s: Server %v, DSN template %q, restore ops %v", name, d.Server, d.DSNTemplate, d.Restore != nil)
		}
	}
	if _, err := registry.Lookup(registry.Default); err != nil {
		t.Errorf("the default backend: %v", err)
	}
}

func TestUnknownNameListsTheSupported(t *testing.T) {
	_, err := registry.Lookup("oracle")
	if err == nil {
		t.Fatal("oracle opened")
	}
	for _, want := range append(registry.Names(), `"oracle"`) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// Only a test-hooks build turns the gate off; a default one says how to
// get one. Both builds run this test (make test the default, make race the
// test-hooks one).
func TestNoGateNeedsATestHooksBuild(t *testing.T) {
	for _, name := range registry.Names() {
		d, _ := registry.Lookup(name)
		b, err := d.Open(context.Background(), registry.Spec{DSN: filepath.Join(t.TempDir(), "x"), NoGate: true})
		if err == nil {
			b.Close()
		}
		if registry.TestHooks() {
			if errors.Is(err, registry.ErrNoGate) {
				t.Errorf("%s without the gate in a test-hooks build: %v, want the gate off", name, err)
			}
			continue
		}
		if !errors.Is(err, registry.ErrNoGate) || !strings.Contains(err.Error(), "-tags testhooks") {
			t.Errorf("%s without the gate: %v, want ErrNoGate", name, err)
		}
	}
}

// The SQL an administrator runs for a PostgreSQL node names its roles and
// ends with the init command that uses them.
func TestSetupSQL(t *testing.T) {
	for _, name := range registry.Names() {
		d, _ := registry.Lookup(name)
		if d.SetupSQL == nil {
			continue
		}
		sql, err := d.SetupSQL("postgres://127.0.0.1:5432/relchain_node0")
		if err != nil || !strings.Contains(sql, "relchain_node0_writer") || !strings.Contains(sql, "-- Then: relchain init") {
			t.Errorf("%s setup SQL: %v\n%s", name, err, sql)
		}
		if _, err := d.SetupSQL("postgres://127.0.0.1:5432/"); err == nil {
			t.Errorf("%s: setup SQL for a DSN without a database", name)
		}
	}
}

// The registry opens exactly the databases package dialect describes, in
// its order, each Driver with its dialect's description: the gateway and
// the client commands, which ask package dialect, see the same list.
func TestDriversMatchDialects(t *testing.T) {
	if got, want := registry.Names(), dialect.Names(); !slices.Equal(got, want) {
		t.Fatalf("registry.Names() = %v, dialect.Names() = %v", got, want)
	}
	for _, name := range registry.Names() {
		d, _ := registry.Lookup(name)
		want, _ := dialect.Lookup(name)
		if d.Dialect != want {
			t.Errorf("%s: driver's dialect %+v, package dialect's %+v", name, d.Dialect, want)
		}
	}
}
