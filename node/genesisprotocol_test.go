package node

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometbft/cometbft/libs/log"
	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/protocol"
)

// init records protocol.DefaultGenesis, in app_state
// and as the consensus parameters' app version; a genesis whose version
// the binary cannot run refuses the start, naming it.
func TestGenesisRecordsTheDefaultProtocolVersion(t *testing.T) {
	home := t.TempDir()
	if _, err := Init(home, InitOptions{Params: app.DefaultParams(), Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	cc, _, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := types.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.ParseParams(gen.AppState)
	if err != nil {
		t.Fatal(err)
	}
	if want := protocol.DefaultGenesis; p.GenesisProtocol() != want || gen.ConsensusParams.Version.App != want {
		t.Fatalf("genesis protocol_version %d, app version %d, want both %d", p.GenesisProtocol(), gen.ConsensusParams.Version.App, want)
	}
	// Version 5 is for networks speaking PostgreSQL's SQL: the default
	// network (SQLite's own SQL) refuses it, naming what it needs.
	err = startWithAppState(t, home, gen, "protocol_version", protocol.V5)
	if err == nil || !strings.Contains(err.Error(), "needs a network speaking PostgreSQL's SQL") {
		t.Fatalf("a SQLite-dialect network with genesis protocol_version 5: %v", err)
	}
	err = startWithAppState(t, home, gen, "protocol_version", protocol.Max()+1)
	if err == nil {
		t.Fatal("a node whose genesis names a protocol version its binary cannot run started")
	}
	if !strings.Contains(err.Error(), "protocol version") {
		t.Errorf("start error %q does not name the protocol version", err)
	}
}

// startWithAppState sets key to value in gen's app_state, saves it in
// home and starts a node there: the start's error (a node that started
// is stopped).
func startWithAppState(t *testing.T, home string, gen *types.GenesisDoc, key string, value any) error {
	t.Helper()
	var state map[string]any
	if err := json.Unmarshal(gen.AppState, &state); err != nil {
		t.Fatal(err)
	}
	state[key] = value
	var err error
	if gen.AppState, err = json.Marshal(state); err != nil {
		t.Fatal(err)
	}
	if err := gen.SaveAs(filepath.Join(home, "config", "genesis.json")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := New(ctx, home, log.NewNopLogger())
	if err == nil {
		_ = n.Stop()
	}
	return err
}

// A genesis without protocol_version (every chain made before the field)
// starts at version 1.
func TestGenesisWithoutProtocolVersionStartsAtOne(t *testing.T) {
	p, err := app.ParseParams([]byte(`{"backend": "sqlite"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.GenesisProtocol() != protocol.V1 {
		t.Fatalf("genesis protocol %d, want 1", p.GenesisProtocol())
	}
	if _, err := app.ParseParams([]byte(`{"backend": "sqlite", "protocol_version": 0}`)); err == nil {
		t.Fatal("protocol_version 0 accepted")
	}
}
