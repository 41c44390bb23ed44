package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// probeRequest is a signed rehearsal request of f's key with a probe.
func probeRequest(f *fixture, stmts []txn.Statement, probe txn.Statement) *abci.RequestQuery {
	return &abci.RequestQuery{Path: api.RehearsePath, Data: txn.SignRehearsalProbe(f.key, chainID, f.ex.State().Height, stmts, &probe)}
}

// rehearseProbe sends a probe request through the query path and decodes
// the answer, which must be CodeOK.
func rehearseProbe(t *testing.T, a *app.App, req *abci.RequestQuery) api.RehearseResponse {
	t.Helper()
	resp, err := a.Query(context.Background(), req)
	if err != nil || resp.Code != api.CodeOK {
		t.Fatalf("rehearse with a probe: %v code %d %q", err, resp.Code, resp.Log)
	}
	var r api.RehearseResponse
	if err := json.Unmarshal(resp.Value, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRehearsalProbeSeesTheTransactionsDDL is issue 33's item 1 after a
// schema change (Django's and knex's migrations introspect after their own
// CREATE TABLE, inside their transaction): a rehearsal of CREATE TABLE
// with a probe of information_schema and of pg_class runs the probe after
// the DDL, in the same db-transaction, and sees the new table and its
// columns; the read gate judges the probe (relchain's schema, writes and
// session functions it refuses are refused, and its catalog filtering
// applies); a tampered probe is refused before anything runs; nothing
// persists, and the next block runs as if nothing happened. Without a
// probe (format 2, before this change) the same catalog read inside the
// rehearsal is refused by the block gate.
func TestRehearsalProbeSeesTheTransactionsDDL(t *testing.T) {
	f := bigFixture(t, stores(t)[1])
	a := app.New(f.ex, log.NewNopLogger())
	create := []txn.Statement{stmt("CREATE TABLE knex_migrations (id INT PRIMARY KEY, name VARCHAR(255))"), stmt("INSERT INTO big (k, v) VALUES (100, 'probe')")}
	tables := txn.Statement{SQL: "SELECT table_name FROM information_schema.tables WHERE table_name = $1 AND table_schema = 'public'", Args: []txn.Arg{txn.Text("knex_migrations")}}

	// The block gate alone (the statements and the read as one more
	// statement) refuses the catalog read.
	resp, err := a.Query(context.Background(), rehearsalRequest(f, append(create, tables)))
	if err != nil || resp.Code != api.CodeOK {
		t.Fatalf("rehearse: %v code %d %q", err, resp.Code, resp.Log)
	}
	var plain api.RehearseResponse
	if err := json.Unmarshal(resp.Value, &plain); err != nil {
		t.Fatal(err)
	}
	if plain.Code != api.CodeForbidden {
		t.Fatalf("the catalog read as a statement of the rehearsal: code %d %q, want the block gate's refusal %d", plain.Code, plain.Log, api.CodeForbidden)
	}

	r := rehearseProbe(t, a, probeRequest(f, create, tables))
	if r.Code != api.CodeOK || len(r.Statements) != len(create) || r.Probe == nil {
		t.Fatalf("rehearsal: code %d %q, %d statements, probe %+v", r.Code, r.Log, len(r.Statements), r.Probe)
	}
	if r.Probe.Code != api.CodeOK || len(r.Probe.Rows) != 1 || r.Probe.Rows[0][0] != "knex_migrations" {
		t.Fatalf("probe of information_schema.tables after CREATE TABLE: %+v, want the one row knex_migrations", r.Probe)
	}
	if len(r.Probe.Types) != 1 || r.Probe.Columns[0] != "table_name" {
		t.Fatalf("probe columns %v types %v", r.Probe.Columns, r.Probe.Types)
	}

	// Django's introspection: pg_class joined with pg_namespace, and the
	// columns of the new table in their order.
	django := txn.Statement{SQL: `SELECT c.relname, c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'v') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY c.relname`}
	r = rehearseProbe(t, a, probeRequest(f, create, django))
	if r.Probe == nil || r.Probe.Code != api.CodeOK {
		t.Fatalf("probe of pg_class: %+v", r.Probe)
	}
	var names []string
	for _, row := range r.Probe.Rows {
		names = append(names, row[0].(string))
	}
	if strings.Join(names, ",") != "big,knex_migrations" {
		t.Fatalf("pg_class after CREATE TABLE lists %v, want big and knex_migrations only (relchain's own tables hidden)", names)
	}
	cols := txn.Statement{SQL: "SELECT column_name FROM information_schema.columns WHERE table_name = 'knex_migrations' ORDER BY ordinal_position"}
	if r = rehearseProbe(t, a, probeRequest(f, create, cols)); r.Probe == nil || len(r.Probe.Rows) != 2 || r.Probe.Rows[0][0] != "id" || r.Probe.Rows[1][0] != "name" {
		t.Fatalf("probe of the new table's columns: %+v", r.Probe)
	}
	// The probe sees the transaction's writes too.
	own := txn.Statement{SQL: "SELECT v FROM big WHERE k = 100"}
	if r = rehearseProbe(t, a, probeRequest(f, create, own)); r.Probe == nil || len(r.Probe.Rows) != 1 || r.Probe.Rows[0][0] != "probe" {
		t.Fatalf("probe of the transaction's own row: %+v", r.Probe)
	}

	// The read gate judges the probe: what a read may not do, a probe may not.
	for _, refused := range []string{
		"SELECT height FROM relchain.meta",
		"DELETE FROM big RETURNING k",
		"WITH d AS (DELETE FROM big RETURNING k) SELECT * FROM d",
		"SELECT pg_sleep(0.1)",
		"SELECT set_config('lock_timeout', '0', false)",
		"SELECT pg_terminate_backend(1)",
	} {
		r = rehearseProbe(t, a, probeRequest(f, create, txn.Statement{SQL: refused}))
		if r.Code != api.CodeOK || r.Probe == nil || r.Probe.Code != api.CodeQueryFailed || r.Probe.Failure == nil || r.Probe.Failure.SQLState == "" || len(r.Probe.Rows) != 0 {
			t.Fatalf("probe %q: rehearsal %d, probe %+v, want the read policy's refusal", refused, r.Code, r.Probe)
		}
	}
	// A probe that fails on the server leaves the rehearsal's answer whole.
	r = rehearseProbe(t, a, probeRequest(f, create, txn.Statement{SQL: "SELECT 1 / 0"}))
	if r.Code != api.CodeOK || len(r.Statements) != len(create) || r.Probe == nil || r.Probe.Code != api.CodeQueryFailed || r.Probe.Failure.SQLState != "22012" {
		t.Fatalf("probe of 1/0: %d %+v", r.Code, r.Probe)
	}
	// A failing statement: no probe runs.
	bad := []txn.Statement{stmt("CREATE TABLE t2 (k INT PRIMARY KEY)"), stmt("INSERT INTO missing VALUES (1)")}
	if r = rehearseProbe(t, a, probeRequest(f, bad, tables)); r.Code == api.CodeOK || r.Probe != nil {
		t.Fatalf("a rehearsal whose statement fails: code %d, probe %+v, want the failure and no probe", r.Code, r.Probe)
	}

	// A tampered probe: the signature does not cover it.
	req := probeRequest(f, create, tables)
	dec, err := txn.DecodeRehearsal(req.Data)
	if err != nil {
		t.Fatal(err)
	}
	dec.Probe = &txn.Statement{SQL: "SELECT v FROM big"}
	tampered, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.RehearsePath, Data: txn.EncodeRehearsal(dec)})
	if err != nil || tampered.Code != api.CodeBadSignature {
		t.Fatalf("a tampered probe: %v code %d %q, want %d", err, tampered.Code, tampered.Log, api.CodeBadSignature)
	}

	// Nothing persisted: not the table, not the row; a block runs as before.
	rows, _, err := f.be.Query(context.Background(), "SELECT count(*) FROM information_schema.tables WHERE table_name = 'knex_migrations'", nil)
	if err != nil || rows.Rows[0][0] != int64(0) {
		t.Fatalf("after the rehearsals, knex_migrations: %v %v", rows, err)
	}
	rows, _, err = f.be.Query(context.Background(), "SELECT count(*) FROM big WHERE k = 100", nil)
	if err != nil || rows.Rows[0][0] != int64(0) {
		t.Fatalf("after the rehearsals, the rehearsed row: %v %v", rows, err)
	}
	if res, _ := f.block(f.tx(create...)); res[0].Code != api.CodeOK {
		t.Fatalf("the same statements in a block: %d %s", res[0].Code, res[0].Log)
	}
	if res, _ := f.block(f.tx(stmt("DELETE FROM big WHERE k = 1"))); res[0].Code != api.CodeOK {
		t.Fatalf("a write in the next block (the writer's session as before): %d %s", res[0].Code, res[0].Log)
	}
}

// TestRehearsalProbeUnsupported: a backend that cannot read inside the
// block (SQLite, here) answers the probe with CodeUnknownPath and the
// rehearsal's statements as without it.
func TestRehearsalProbeUnsupported(t *testing.T) {
	f := bigFixture(t, stores(t)[0])
	a := app.New(f.ex, log.NewNopLogger())
	r := rehearseProbe(t, a, probeRequest(f, []txn.Statement{stmt("INSERT INTO big (k, v) VALUES (100, 'x')")}, txn.Statement{SQL: "SELECT count(*) FROM big"}))
	if r.Code != api.CodeOK || len(r.Statements) != 1 || r.Probe == nil || r.Probe.Code != api.CodeUnknownPath {
		t.Fatalf("probe on sqlite: %d %+v", r.Code, r.Probe)
	}
}
