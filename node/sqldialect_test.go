package node

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// A node whose genesis fixes another version of the postgres dialect's
// translation than its binary implements refuses to start, naming both;
// init writes the binary's version.
func TestWrongSQLDialectVersionRefusesTheStart(t *testing.T) {
	home := t.TempDir()
	p := app.DefaultParams()
	p.SQLDialect = "postgres"
	if _, err := Init(home, InitOptions{Params: p, Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	cc, rc, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rc.SQL, SQLDialect{Name: "postgres", Version: pgdialect.Version}) {
		t.Fatalf("init wrote SQL dialect %+v, want postgres version %d", rc.SQL, pgdialect.Version)
	}
	gen, err := types.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		t.Fatal(err)
	}
	wrong := pgdialect.Version + 41
	err = startWithAppState(t, home, gen, "sql_dialect_version", wrong)
	if err == nil {
		t.Fatal("a node whose genesis fixes another translator version started")
	}
	for _, want := range []string{fmt.Sprintf("version %d", wrong), fmt.Sprintf("implements version %d", pgdialect.Version)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("start error %q does not name %q", err, want)
		}
	}
}
