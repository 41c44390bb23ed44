package app_test

import (
	"context"
	"encoding/json"
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
// SQL on MySQL, for now), a translated dialect without its translator's
// version, and a version where nothing is translated.
func TestGenesisRefusesSQLDialectsTheBackendCannotSpeak(t *testing.T) {
	for _, c := range []struct{ state, want string }{
		{`{"backend":"mysql","sql_dialect":"postgres"}`, `sql_dialect "postgres" is not available on backend "mysql"`},
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
