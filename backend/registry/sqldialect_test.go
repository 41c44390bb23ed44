package registry_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	mysqlpg "github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// A new network's genesis gets the translator version this binary
// implements for a translated dialect, nothing for a native one, and a
// refusal for a dialect the backend cannot speak.
func TestGenesisSQLDialect(t *testing.T) {
	for _, c := range []struct {
		backend, sql, want string
		version            int
		err                string
	}{
		{"sqlite", "", "", 0, ""},
		{"sqlite", "sqlite", "", 0, ""},
		{"sqlite", "postgres", "postgres", pgdialect.Version, ""},
		{"postgres", "postgres", "", 0, ""},
		{"postgres", "sqlite", "", 0, `cannot run the "sqlite" SQL dialect`},
		{"mysql", "postgres", "postgres", mysqlpg.Version, ""},
		{"mysql", "sqlite", "", 0, `cannot run the "sqlite" SQL dialect`},
	} {
		got, v, err := registry.GenesisSQLDialect(c.backend, c.sql)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("GenesisSQLDialect(%s, %q) = %v, want an error containing %q", c.backend, c.sql, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || v != c.version {
			t.Errorf("GenesisSQLDialect(%s, %q) = %q, %d, %v; want %q, %d", c.backend, c.sql, got, v, err, c.want, c.version)
		}
	}
}

// Opening a SQLite database for the postgres dialect checks the
// translator's version (naming both on a mismatch) and opens a backend
// that takes PostgreSQL's SQL.
func TestOpenChecksTheTranslatorVersion(t *testing.T) {
	d, err := registry.Lookup("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	s := registry.Spec{DSN: filepath.Join(t.TempDir(), "relchain.db"), SQLDialect: "postgres", SQLDialectVersion: pgdialect.Version + 1}
	if _, err := d.Open(context.Background(), s); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("version %d", pgdialect.Version+1)) ||
		!strings.Contains(err.Error(), fmt.Sprintf("implements version %d", pgdialect.Version)) {
		t.Errorf("Open with translator version %d = %v, want a refusal naming both versions", pgdialect.Version+1, err)
	}
	s.SQLDialectVersion = pgdialect.Version
	b, err := d.Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := b.Capabilities().SQLDialect; got != "postgres" {
		t.Errorf("the opened backend takes %q SQL, want postgres", got)
	}
}

// A Spec for a database of another engine of the network has that
// engine's translation version where several engines translate the
// dialect, and the network's one version elsewhere; nothing else of the
// live database's Spec.
func TestSpecOnEngine(t *testing.T) {
	three := registry.Spec{DSN: "live", ReaderDSN: "r", SQLDialect: "postgres", SQLDialectVersion: 0,
		SQLDialectVersions: map[string]int{"mysql": 3, "sqlite": 1}}
	two := registry.Spec{DSN: "live", SQLDialect: "postgres", SQLDialectVersion: 1}
	for _, c := range []struct {
		live    registry.Spec
		kind    string
		version int
	}{
		{three, "sqlite", 1}, {three, "mysql", 3}, {three, "postgres", 0}, {two, "sqlite", 1}, {two, "postgres", 1},
	} {
		s := c.live.OnEngine(c.kind)
		if s.SQLDialect != "postgres" || s.SQLDialectVersion != c.version || s.DSN != "" || s.ReaderDSN != "" {
			t.Errorf("%+v on %s = %+v, want version %d and no DSN", c.live, c.kind, s, c.version)
		}
	}
}
