package ops

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/protocol"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// A SQLite validator of a network over PostgreSQL and SQLite moves to
// PostgreSQL without a new genesis (issue 37): relchain migrate copies its
// canonical state (tables in every type the workload uses, a serial
// column's sequence, the system state with the DDL log) into an empty
// PostgreSQL database, which gives the same AppHash at the same height;
// relchain.toml then names it, and the node goes on from there on
// PostgreSQL with its shadow gate (the sequence continues, the schema is
// known). Moves the genesis does not allow are refused before anything is
// written.
func TestMigrateASQLiteValidatorToPostgreSQL(t *testing.T) {
	ctx := context.Background()
	home, params := mixedHome(t)
	want := runOnHome(t, home, params, nil,
		"CREATE TABLE acct (id integer PRIMARY KEY, name text NOT NULL, bal numeric(12,2), seen timestamptz, ok boolean, raw bytea)",
		"CREATE TABLE item (id serial PRIMARY KEY, v varchar(20) UNIQUE)",
		"INSERT INTO acct VALUES (1, 'a''b', 10.50, '2026-01-02 03:04:05+00', true, '\\x00ff'), (2, 'é', -0.01, NULL, false, NULL)",
		"INSERT INTO item (v) VALUES ('x'), ('y'), ('z')",
		"DELETE FROM item WHERE v = 'y'",
		"UPDATE acct SET bal = bal * 2 WHERE id = 1")

	for _, bad := range []MigrateOptions{{ToBackend: "sqlite"}, {ToBackend: "mysql", DSN: "root@tcp(127.0.0.1:1)/x"}} {
		if _, err := Migrate(ctx, home, bad); err == nil {
			t.Fatalf("migrate to %s was not refused", bad.ToBackend)
		}
	}
	r, err := Migrate(ctx, home, MigrateOptions{ToBackend: "postgres", DSN: pgtest.DSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Height != want.Height || r.From != "sqlite" || r.To != "postgres" {
		t.Fatalf("report %+v, want height %d from sqlite to postgres", r, want.Height)
	}
	pg, ex := openMoved(t, home, "postgres", params, want)
	runBlocks(t, ex, "c", "INSERT INTO item (v) VALUES ('w')", "UPDATE acct SET bal = bal + 1")
	rows, _, err := pg.Query(ctx, "SELECT id FROM item WHERE v = 'w'", nil)
	if err != nil || len(rows.Rows) != 1 || jsonOf(rows.Rows[0][0]) != "4" {
		t.Fatalf("the serial column after the move: %+v, %v; want 4", rows, err)
	}
	// And back: from PostgreSQL to a new SQLite file.
	want = ex.State()
	_ = ex.Close(ctx)
	pg.Close()
	if _, err := Migrate(ctx, home, MigrateOptions{ToBackend: "sqlite", DSN: "data/moved.db"}); err != nil {
		t.Fatal(err)
	}
	back := openHome(t, home, "sqlite")
	defer back.Close()
	ex, err = app.NewExecutor(ctx, back, "c", params)
	if err != nil {
		t.Fatal(err)
	}
	if st := ex.State(); st.Height != want.Height || string(st.AppHash) != string(want.AppHash) || ex.StartCheck() != nil {
		t.Fatalf("the node moved back starts at %d %X (%v), want %d %X", st.Height, st.AppHash, ex.StartCheck(), want.Height, want.AppHash)
	}
	runBlocks(t, ex, "c", "INSERT INTO item (v) VALUES ('v')")
}

// A SQLite validator of a network over MariaDB, PostgreSQL and SQLite
// moves to MariaDB (issue 37): relchain migrate writes its canonical state
// into an empty MariaDB database through MariaDB's translation of
// PostgreSQL's SQL (DDL first: MariaDB commits it at once), which gives
// the same AppHash at the same height, and the node goes on there.
func TestMigrateASQLiteValidatorToMariaDB(t *testing.T) {
	ctx := context.Background()
	home, params := mixedHomeOver(t, "mysql", "postgres", "sqlite")
	judges := app.WithSchemaJudges(registry.SchemaJudges(params.Engines()))
	want := runOnHome(t, home, params, []app.ExecutorOption{judges},
		"CREATE TABLE acct (id integer PRIMARY KEY, name text NOT NULL, bal numeric(12,2), seen timestamptz, ok boolean, raw bytea)",
		"CREATE TABLE item (id int8 PRIMARY KEY, v varchar(20) UNIQUE)",
		"CREATE INDEX acct_name ON acct (name)",
		"INSERT INTO acct VALUES (1, 'a''b', 10.50, '2026-01-02 03:04:05+00', true, '\\x00ff'), (2, 'é', -0.01, NULL, false, NULL)",
		"INSERT INTO item (id, v) VALUES (1, 'x'), (2, 'y'), (3, 'z')",
		"DELETE FROM item WHERE v = 'y'",
		"UPDATE acct SET bal = bal * 2 WHERE id = 1")

	r, err := Migrate(ctx, home, MigrateOptions{ToBackend: "mysql", DSN: mysqltest.DSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Height != want.Height || r.To != "mysql" {
		t.Fatalf("report %+v, want height %d to mysql", r, want.Height)
	}
	my, ex := openMoved(t, home, "mysql", params, want, judges)
	runBlocks(t, ex, "c", "INSERT INTO item (id, v) VALUES (4, 'w')", "UPDATE acct SET bal = bal + 1")
	rows, _, err := my.Query(ctx, "SELECT name, bal FROM acct ORDER BY id", nil)
	if err != nil || jsonOf(rows.Rows) != `[["a'b","22.00"],["é","0.99"]]` {
		t.Fatalf("the moved rows: %s, %v", jsonOf(rows), err)
	}
}

// openHome opens the node home's database as its relchain.toml says;
// kind, if not "", is the engine it must name.
func openHome(t *testing.T, home, kind string) backend.Backend {
	t.Helper()
	_, rc, err := node.LoadConfig(home)
	if err != nil || (kind != "" && rc.Backend.Kind != kind) {
		t.Fatalf("relchain.toml: %+v, %v; want backend %q", rc.Backend, err, kind)
	}
	be, err := node.OpenBackend(context.Background(), home, rc)
	if err != nil {
		t.Fatal(err)
	}
	return be
}

// openMoved opens the node home's database after a move to engine kind
// with a shadow gate (and opts) and fails unless it starts at want; both
// are closed when the test ends.
func openMoved(t *testing.T, home, kind string, params app.Params, want backend.State, opts ...app.ExecutorOption) (backend.Backend, *app.Executor) {
	t.Helper()
	ctx := context.Background()
	be := openHome(t, home, kind)
	t.Cleanup(func() { be.Close() })
	shadow := app.WithShadow(func(ctx context.Context) (backend.Backend, error) {
		return sqlite.Open(ctx, filepath.Join(t.TempDir(), "shadow.db"), sqlite.WithPostgresDialect())
	})
	ex, err := app.NewExecutor(ctx, be, "c", params, append([]app.ExecutorOption{shadow}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close(ctx) })
	if st := ex.State(); st.Height != want.Height || string(st.AppHash) != string(want.AppHash) || ex.StartCheck() != nil {
		t.Fatalf("the moved node starts at %d %X (%v), want %d %X", st.Height, st.AppHash, ex.StartCheck(), want.Height, want.AppHash)
	}
	return be, ex
}

// runOnHome runs each of sqls as one block on the node home's database
// and returns the state after the last; the database is closed again.
func runOnHome(t *testing.T, home string, params app.Params, opts []app.ExecutorOption, sqls ...string) backend.State {
	t.Helper()
	ctx := context.Background()
	be := openHome(t, home, "")
	defer be.Close()
	ex, err := app.NewExecutor(ctx, be, "c", params, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close(ctx)
	runBlocks(t, ex, "c", sqls...)
	return ex.State()
}

// mixedHome is a node home on SQLite speaking PostgreSQL's SQL whose
// genesis lists PostgreSQL and SQLite, at protocol version 5.
func mixedHome(t *testing.T) (string, app.Params) {
	return mixedHomeOver(t, "postgres", "sqlite")
}

// mixedHomeOver is mixedHome whose genesis lists engines (sorted).
func mixedHomeOver(t *testing.T, engines ...string) (string, app.Params) {
	t.Helper()
	home := t.TempDir()
	p := app.DefaultParams()
	p.SQLDialect = "postgres"
	if _, err := node.Init(home, node.InitOptions{ChainID: "c", Backend: node.BackendConfig{Kind: "sqlite"}, Params: p}); err != nil {
		t.Fatal(err)
	}
	cc, _, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := types.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		t.Fatal(err)
	}
	p.Backend, p.Backends = "", engines
	p.ProtocolVersion = protocol.V5
	if p.SQLDialectVersion, p.SQLDialectVersions, err = registry.GenesisSQLDialectVersions(engines, "postgres"); err != nil {
		t.Fatal(err)
	}
	if gen.AppState, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	gen.ConsensusParams.Version.App = protocol.V5
	if err := gen.SaveAs(cc.GenesisFile()); err != nil {
		t.Fatal(err)
	}
	parsed, err := app.ParseParams(gen.AppState)
	if err != nil {
		t.Fatal(err)
	}
	return home, parsed
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
