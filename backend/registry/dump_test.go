package registry_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	mypgdialect "github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/sqlcheck"
)

// The SQLite driver dumps in the network's SQL dialect, as the genesis
// (Spec.SQLDialect) names it: SQLite's SQL for a network of SQLite's own
// dialect, PostgreSQL's for a postgres-dialect one, and nothing for a
// translation version this binary does not implement.
func TestSQLiteDumpFollowsTheSQLDialect(t *testing.T) {
	ctx := context.Background()
	d, err := registry.Lookup("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sql     string
		opts    []sqlite.Option
		version int
		want    func(context.Context, string, *bytes.Buffer) (int64, error)
		mark    string
	}{
		{"", nil, 0, func(ctx context.Context, p string, w *bytes.Buffer) (int64, error) { return sqlite.Dump(ctx, p, w) }, "CREATE TABLE t (id INTEGER PRIMARY KEY)"},
		{"postgres", []sqlite.Option{sqlite.WithPostgresDialect()}, pgdialect.Version,
			func(ctx context.Context, p string, w *bytes.Buffer) (int64, error) {
				return sqlite.DumpPostgres(ctx, p, w)
			}, "id integer NOT NULL"},
	} {
		path := filepath.Join(t.TempDir(), "relchain.db")
		createTable(t, path, c.opts, map[string]string{"": "CREATE TABLE t (id INTEGER PRIMARY KEY)", "postgres": "CREATE TABLE t (id int4 PRIMARY KEY)"}[c.sql])
		var got, want bytes.Buffer
		if _, err := d.Dump(ctx, registry.Spec{DSN: path, SQLDialect: c.sql, SQLDialectVersion: c.version}, &got); err != nil {
			t.Fatalf("dialect %q: Dump: %v", c.sql, err)
		}
		if _, err := c.want(ctx, path, &want); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || !strings.Contains(got.String(), c.mark) {
			t.Errorf("dialect %q: the driver's dump is\n%s\nwant\n%s(holding %q)", c.sql, got.String(), want.String(), c.mark)
		}
		if c.sql != "" {
			_, err := d.Dump(ctx, registry.Spec{DSN: path, SQLDialect: c.sql, SQLDialectVersion: c.version + 1}, &got)
			if err == nil || !strings.Contains(err.Error(), "sql_dialect_version") {
				t.Errorf("dialect %q of another version: Dump = %v, want the version refused", c.sql, err)
			}
		}
	}
}

// The MySQL/MariaDB driver dumps in the network's SQL dialect too:
// MariaDB's SQL for a network of its own dialect, PostgreSQL's (the text
// a PostgreSQL or SQLite validator's dump is) for a postgres-dialect one,
// and nothing for a translation version this binary does not implement.
func TestMySQLDumpFollowsTheSQLDialect(t *testing.T) {
	ctx := context.Background()
	d, err := registry.Lookup("mysql")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sql, ddl string
		version  int
		want     func(context.Context, string, io.Writer) (int64, error)
		mark     string
	}{
		{"", "CREATE TABLE t (id INT PRIMARY KEY)", 0, mysql.Dump, "CREATE TABLE `t`"},
		{"postgres", "CREATE TABLE t (id int4 PRIMARY KEY)", mypgdialect.Version, mysql.DumpPostgres, "    id integer NOT NULL,"},
	} {
		s := spec(t, d)
		s.SQLDialect, s.SQLDialectVersion = c.sql, c.version
		be, err := d.Open(ctx, s)
		if err != nil {
			t.Fatalf("dialect %q: %v", c.sql, err)
		}
		commitDDL(t, be, c.ddl)
		be.Close()
		var got, want bytes.Buffer
		if _, err := d.Dump(ctx, s, &got); err != nil {
			t.Fatalf("dialect %q: Dump: %v", c.sql, err)
		}
		if _, err := c.want(ctx, s.DSN, &want); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || !strings.Contains(got.String(), c.mark) {
			t.Errorf("dialect %q: the driver's dump is\n%s\nwant\n%s(holding %q)", c.sql, got.String(), want.String(), c.mark)
		}
		if c.sql != "" {
			s.SQLDialectVersion++
			if _, err := d.Dump(ctx, s, &got); err == nil || !strings.Contains(err.Error(), "sql_dialect_version") {
				t.Errorf("dialect %q of another version: Dump = %v, want the version refused", c.sql, err)
			}
		}
	}
}

// createTable creates a database at path holding the table ddl creates,
// committed at height 1.
func createTable(t *testing.T, path string, opts []sqlite.Option, ddl string) {
	t.Helper()
	b, err := sqlite.Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	commitDDL(t, b, ddl)
}

// commitDDL runs ddl, through b's gate, in the block of height 1.
func commitDDL(t *testing.T, b backend.Backend, ddl string) {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx, sqlcheck.Env{Time: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Gate().AnalyzeInBlock(ctx, blk, ddl); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx, ddl, nil); err != nil {
		t.Fatal(err)
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
}
