package ops

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// A MariaDB validator of a network over MariaDB, PostgreSQL and SQLite
// moves to PostgreSQL (issue 37): its database is dumped as PostgreSQL's
// SQL (types, defaults, keys, UNIQUE and CHECK constraints, indexes, rows
// of every type the dialect stores), which PostgreSQL reproduces at the
// same height with the same AppHash; the rows read back the same and the
// node goes on there with its defaults and constraints.
func TestMigrateAMariaDBValidatorToPostgreSQL(t *testing.T) {
	home, params, judges, want, before := mariaDBValidator(t)
	r, err := Migrate(context.Background(), home, MigrateOptions{ToBackend: "postgres", DSN: pgtest.DSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Height != want.Height || r.From != "mysql" || r.To != "postgres" {
		t.Fatalf("report %+v, want height %d from mysql to postgres", r, want.Height)
	}
	pg, ex := openMoved(t, home, "postgres", params, want, judges)
	checkMovedFromMariaDB(t, pg, ex, before)
}

// A MariaDB validator moves to a new SQLite file the same way.
func TestMigrateAMariaDBValidatorToSQLite(t *testing.T) {
	home, params, judges, want, before := mariaDBValidator(t)
	r, err := Migrate(context.Background(), home, MigrateOptions{ToBackend: "sqlite", DSN: "data/moved.db"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Height != want.Height || r.From != "mysql" || r.To != "sqlite" {
		t.Fatalf("report %+v, want height %d from mysql to sqlite", r, want.Height)
	}
	lite, ex := openMoved(t, home, "sqlite", params, want, judges)
	checkMovedFromMariaDB(t, lite, ex, before)
}

// mariaDBTables are the tables a MariaDB validator holds before it moves:
// every type the postgres dialect stores on MariaDB, NULLs, extremes,
// negative numbers and scales, quotes and backslashes, defaults, a
// primary key of varchar, UNIQUE and CHECK constraints, indexes (one over
// a text column, in descending order, one unique).
var mariaDBTables = []string{
	"CREATE TABLE acct (id int8 PRIMARY KEY, n int4 NOT NULL DEFAULT -1, name varchar(40) NOT NULL UNIQUE, note text, " +
		"bal numeric(12,2) CHECK (bal > -1000), rate numeric(6,4), ok bool DEFAULT true, born date, seen timestamp, " +
		"at timestamptz DEFAULT '2026-01-01 00:00:00+02', raw bytea, small int2, f float8, CHECK (n <> 0 OR ok))",
	"CREATE INDEX acct_note ON acct (note, id DESC)",
	"CREATE UNIQUE INDEX acct_born_small ON acct (born, small)",
	"CREATE TABLE item (k varchar(8) PRIMARY KEY, qty int4 CHECK (qty >= 0), price numeric(10,3) DEFAULT 0.5, tag text DEFAULT 'none')",
	"INSERT INTO acct (id, n, name, note, bal, rate, ok, born, seen, at, raw, small, f) VALUES " +
		`(9007199254740993, 2147483647, 'a''b', 'back\slash and ''quote''', 10.50, -0.0001, true, '2026-01-02', '2026-01-02 03:04:05.123456', '2026-01-02 03:04:05+02', '\x00ff5c27', -32768, 0.1), ` +
		"(-9223372036854775808, -2147483648, 'é ☃', NULL, -999.99, 12.3, false, NULL, NULL, NULL, NULL, NULL, -12345.678e3), " +
		`(3, 5, 'c', '', 0, 0, false, '1999-12-31', '1970-01-01 00:00:00', '1969-12-31 23:59:59.5+00', '\x', 32767, NULL)`,
	"INSERT INTO acct (id, name) VALUES (4, 'defaults')",
	`INSERT INTO item (k, qty, price) VALUES ('x', 0, 1.5), ('y', 7, -2.125), ('z"q\', NULL, NULL)`,
	"UPDATE acct SET bal = bal * 2 WHERE id = 9007199254740993",
	"DELETE FROM item WHERE k = 'y'",
}

// mariaDBQueries read back every row of mariaDBTables.
var mariaDBQueries = []string{"SELECT * FROM acct ORDER BY id", "SELECT * FROM item ORDER BY k"}

// mariaDBValidator is a node home on MariaDB of a network over MariaDB,
// PostgreSQL and SQLite that ran mariaDBTables, stopped: its params, its
// schema judges, its state and its rows (mariaDBQueries).
func mariaDBValidator(t *testing.T) (string, app.Params, app.ExecutorOption, backend.State, []string) {
	t.Helper()
	home, params := mixedHomeOver(t, "mysql", "postgres", "sqlite")
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	w, r := mysqltest.Accounts(t)
	rc.Backend = node.BackendConfig{Kind: "mysql", DSN: w, ReaderDSN: r}
	if err := node.SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
	judges := app.WithSchemaJudges(registry.SchemaJudges(params.Engines()))
	want := runOnHome(t, home, params, []app.ExecutorOption{judges, shadowGate(t)}, mariaDBTables...)
	my := openHome(t, home, "mysql")
	defer my.Close()
	return home, params, judges, want, readRows(t, my, mariaDBQueries)
}

// readRows is each query's columns, types and rows on be, as JSON.
func readRows(t *testing.T, be backend.Backend, queries []string) []string {
	t.Helper()
	var out []string
	for _, q := range queries {
		rows, _, err := be.Query(context.Background(), q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, jsonOf([]any{rows.Columns, rows.Types, rows.Rows}))
	}
	return out
}

// checkMovedFromMariaDB checks a node moved from mariaDBValidator: be
// reads the rows it read (before), and the node goes on with the
// defaults and the constraints MariaDB held.
func checkMovedFromMariaDB(t *testing.T, be backend.Backend, ex *app.Executor, before []string) {
	t.Helper()
	for i, got := range readRows(t, be, mariaDBQueries) {
		if got != before[i] {
			t.Errorf("%s after the move:\n got %s\nwant %s", mariaDBQueries[i], got, before[i])
		}
	}
	runBlocks(t, ex, "c", "INSERT INTO acct (id, name) VALUES (5, 'new')", "INSERT INTO item (k) VALUES ('w')")
	rows, _, err := be.Query(context.Background(), "SELECT a.n, a.ok, a.at, i.price, i.tag FROM acct a, item i WHERE a.id = 5 AND i.k = 'w'", nil)
	if got := jsonOf(rows); err != nil || !strings.Contains(got, `"rows":[[-1,true,"2025-12-31 22:00:00+00","0.500","none"]]`) {
		t.Errorf("the defaults after the move: %s, %v", got, err)
	}
	for _, bad := range []string{"INSERT INTO acct (id, name) VALUES (6, 'new')", "INSERT INTO item (k, qty) VALUES ('v', -1)",
		"INSERT INTO acct (id, name, bal) VALUES (7, 'low', -1000)", "INSERT INTO acct (id, name, born, small) VALUES (8, 'd8', '1999-12-31', 32767)",
		"INSERT INTO acct (id, name, n, ok) VALUES (9, 'zero', 0, false)"} {
		if code := runFailing(t, ex, bad); code == 0 {
			t.Errorf("%s succeeded after the move; its constraint is lost", bad)
		}
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
	ex, err := app.NewExecutor(ctx, be, "c", params, append([]app.ExecutorOption{shadowGate(t)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close(ctx) })
	if st := ex.State(); st.Height != want.Height || string(st.AppHash) != string(want.AppHash) || ex.StartCheck() != nil {
		t.Fatalf("the moved node starts at %d %X (%v), want %d %X", st.Height, st.AppHash, ex.StartCheck(), want.Height, want.AppHash)
	}
	return be, ex
}

// shadowGate is the shadow gate of a validator of a network over
// several engines that does not run SQLite, in a file of its own.
func shadowGate(t *testing.T) app.ExecutorOption {
	return app.WithShadow(func(ctx context.Context) (backend.Backend, error) {
		return sqlite.Open(ctx, filepath.Join(t.TempDir(), "shadow.db"), sqlite.WithPostgresDialect())
	})
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
