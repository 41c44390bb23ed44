package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/sqlite"
)

// A genesis without sql_dialect parses to exactly today's parameters (the
// backend's own dialect, no translator version), Equal to the defaults,
// and marshals without the new fields: existing networks' genesis and
// app_state read as before.
func TestAbsentSQLDialectIsTodaysDefault(t *testing.T) {
	for _, state := range []string{``, `{}`, `{"backend":"sqlite","max_tx_bytes":1048576}`} {
		p, err := app.ParseParams([]byte(state))
		if err != nil {
			t.Fatalf("ParseParams(%q): %v", state, err)
		}
		if !p.Equal(app.DefaultParams()) || p.SQLDialect != "" || p.SQLDialectVersion != 0 {
			t.Errorf("ParseParams(%q) = %+v, want the defaults %+v", state, p, app.DefaultParams())
		}
		out, _ := json.Marshal(p)
		if strings.Contains(string(out), "sql_dialect") {
			t.Errorf("Params %+v marshal with a sql_dialect field: %s", p, out)
		}
	}
	p, err := app.ParseParams([]byte(`{"backend":"sqlite","sql_dialect":"postgres","sql_dialect_version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.SQLDialect != "postgres" || p.SQLDialectVersion != 1 || p.Equal(app.DefaultParams()) {
		t.Errorf("postgres dialect parsed as %+v", p)
	}
}

// The genesis refuses a SQL dialect its backend cannot speak (PostgreSQL's
// SQL on PostgreSQL is native: SQLite's is not there), a translated
// dialect without its translator's version, and a version where nothing
// is translated.
func TestGenesisRefusesSQLDialectsTheBackendCannotSpeak(t *testing.T) {
	for _, c := range []struct{ state, want string }{
		{`{"backend":"mysql","sql_dialect":"postgres"}`, `needs sql_dialect_version`},
		{`{"backend":"mysql","sql_dialect":"postgres","sql_dialect_versions":{"mysql":3}}`, `give its version as sql_dialect_version`},
		{`{"backend":"postgres","sql_dialect":"sqlite"}`, `sql_dialect "sqlite" is not available on backend "postgres"`},
		{`{"sql_dialect":"oracle"}`, `sql_dialect "oracle" is not available on backend "sqlite"`},
		{`{"sql_dialect":"postgres"}`, `needs sql_dialect_version`},
		{`{"backend":"postgres","sql_dialect":"postgres","sql_dialect_version":1}`, `nothing is translated`},
	} {
		_, err := app.ParseParams([]byte(c.state))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseParams(%s) = %v, want an error containing %q", c.state, err, c.want)
		}
	}
	for _, ok := range []string{`{"backend":"postgres","sql_dialect":"postgres"}`, `{"backend":"mysql","sql_dialect":"mysql"}`, `{"sql_dialect":"sqlite"}`} {
		if _, err := app.ParseParams([]byte(ok)); err != nil {
			t.Errorf("ParseParams(%s): %v", ok, err)
		}
	}
}

// An executor refuses a database opened for another SQL dialect than the
// genesis fixes: statements would be read in the wrong language.
func TestExecutorRefusesABackendOpenedForAnotherDialect(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "relchain.db")
	native, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	p := app.DefaultParams()
	p.SQLDialect, p.SQLDialectVersion = "postgres", 1
	if _, err := app.NewExecutor(ctx, native, chainID, p); err == nil || !strings.Contains(err.Error(), "postgres SQL dialect") {
		t.Errorf("NewExecutor(native sqlite, postgres genesis) = %v, want a refusal naming the dialect", err)
	}
	native.Close()
	pg, err := sqlite.Open(ctx, path, sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if _, err := app.NewExecutor(ctx, pg, chainID, app.DefaultParams()); err == nil || !strings.Contains(err.Error(), "sqlite SQL dialect") {
		t.Errorf("NewExecutor(postgres-dialect sqlite, sqlite genesis) = %v, want a refusal", err)
	}
	ex, err := app.NewExecutor(ctx, pg, chainID, p)
	if err != nil {
		t.Fatalf("NewExecutor(postgres-dialect sqlite, postgres genesis): %v", err)
	}
	ex.Close(ctx)
}

// A genesis over several engines (issue 37) names them in backends: every
// one must speak the network's SQL, which must be PostgreSQL's, from
// protocol version 5 on; a node refuses to start on an engine the genesis
// does not name.
func TestGenesisOverSeveralEngines(t *testing.T) {
	const mixed = `"backends":["sqlite","postgres"],"sql_dialect":"postgres","sql_dialect_version":1`
	for _, c := range []struct{ state, want string }{
		{`{` + mixed + `}`, `needs protocol_version 5 or later`},
		{`{` + mixed + `,"protocol_version":4}`, `needs protocol_version 5 or later`},
		{`{"backends":["sqlite","mysql"],"sql_dialect":"postgres","sql_dialect_version":1,"protocol_version":5}`, `give sql_dialect_versions`},
		{`{"backends":["sqlite","mysql"],"sql_dialect":"postgres","sql_dialect_versions":{"sqlite":1},"protocol_version":5}`, `mysql has none`},
		{`{"backends":["sqlite","mysql"],"sql_dialect":"postgres","sql_dialect_versions":{"sqlite":1,"mysql":3,"postgres":1},"protocol_version":5}`, `names an engine that does not translate`},
		{`{"backends":["postgres"],"protocol_version":5}`, `backends lists one engine`},
		{`{"backend":"postgres",` + mixed + `,"protocol_version":5}`, `either backend (one engine) or backends`},
		{`{"backends":["sqlite","postgres"],"sql_dialect":"postgres","protocol_version":5}`, `needs sql_dialect_version`},
		{`{"backends":["sqlite","oracle"],"protocol_version":5}`, `oracle`},
		{`{` + mixed + `,"protocol_version":5,"db_profile":{"max_stack_depth":"2MB"}}`, `cannot set it`},
	} {
		_, err := app.ParseParams([]byte(c.state))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseParams(%s) = %v, want an error containing %q", c.state, err, c.want)
		}
	}
	p, err := app.ParseParams([]byte(`{` + mixed + `,"protocol_version":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Mixed() || fmt.Sprint(p.Engines()) != "[postgres sqlite]" || p.Backend != "" {
		t.Fatalf("parsed %+v, want backends [postgres sqlite] and no backend", p)
	}
	ctx := context.Background()
	native, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	if _, err := app.NewExecutor(ctx, native, chainID, p); err != nil {
		t.Fatalf("a SQLite node of a network over PostgreSQL and SQLite: %v", err)
	}
	p.Backends = []string{"mysql", "postgres"}
	if _, err := app.NewExecutor(ctx, native, chainID, p); err == nil || !strings.Contains(err.Error(), "run the backends [mysql postgres]") {
		t.Fatalf("a SQLite node of a network over MySQL and PostgreSQL: %v", err)
	}
}
