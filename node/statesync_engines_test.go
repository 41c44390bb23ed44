package node

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/snapshot"
)

// mixedParams are the parameters of a network over PostgreSQL and SQLite
// at protocol version 5.
func mixedParams(t *testing.T) app.Params {
	t.Helper()
	p := app.DefaultParams()
	p.SQLDialect, p.SQLDialectVersion = "postgres", pgdialect.Version
	p.Backend, p.Backends, p.ProtocolVersion = "", []string{"postgres", "sqlite"}, protocol.V5
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := app.ParseParams(b)
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

// mixedSource is a checkpoint of a SQLite validator of a mixed network
// after a few blocks (a serial column, several types), and the AppHash
// the chain committed for it.
func mixedSource(t *testing.T, params app.Params) (backend.Checkpoint, []byte) {
	return checkpointAfter(t, params, []sqlite.Option{sqlite.WithPostgresDialect()},
		"CREATE TABLE acct (id serial PRIMARY KEY, bal numeric(12,2) NOT NULL, note text)",
		"INSERT INTO acct (bal, note) VALUES (10.50, 'a'), (20, NULL), (30, 'c''d')",
		"UPDATE acct SET bal = bal + 1 WHERE id = 2")
}

// pgJoiner is an empty PostgreSQL node home's state sync in a mixed
// network.
func pgJoiner(t *testing.T, params app.Params) *stateSync {
	return mixedJoiner(t, params, BackendConfig{Kind: "postgres", DSN: pgtest.DSN(t)})
}

// mixedJoiner is an empty node home's state sync on the database bc in a
// network of params over several engines, with the shadow gate a node
// that does not run SQLite needs and the schema judges of the network's
// engines.
func mixedJoiner(t *testing.T, params app.Params, bc BackendConfig) *stateSync {
	t.Helper()
	ctx := context.Background()
	home := t.TempDir()
	rc := DefaultConfig()
	rc.Backend = bc
	rc.SQL = SQLDialect{Name: params.SQLDialect, Version: params.SQLDialectVersion, Versions: params.SQLDialectVersions}
	be, err := OpenBackend(ctx, home, rc)
	if err != nil {
		t.Fatal(err)
	}
	opts := []app.ExecutorOption{app.WithSchemaJudges(registry.SchemaJudges(params.Engines()))}
	if bc.Kind != "sqlite" {
		opts = append(opts, app.WithShadow(func(ctx context.Context) (backend.Backend, error) {
			return sqlite.Open(ctx, filepath.Join(t.TempDir(), "shadow.db"), sqlite.WithPostgresDialect())
		}))
	}
	ex, err := app.NewExecutor(ctx, be, "c", params, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close(context.Background()); ex.Backend().Close() })
	return newStateSync(home, rc, ex, log.NewNopLogger())
}

// A PostgreSQL node of a network over several engines restores a SQLite
// validator's snapshot (issue 37): a snapshot whose rows were changed is
// rejected with its senders before anything is written, and so is the
// honest one against another AppHash; the honest one is installed, and
// the node holds its rows, its sequence and its AppHash. A node whose
// genesis names one engine refuses another engine's snapshot at the
// offer.
func TestStateSyncRestoresASnapshotOfAnotherEngine(t *testing.T) {
	params := mixedParams(t)
	cp, appHash := mixedSource(t, params)
	lying := forged(t, cp, "UPDATE acct SET note = 'forged' WHERE id = 1")

	s := pgJoiner(t, params)
	res := offer(t, s, lying, appHash)
	if res.Result != abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT || len(res.RejectSenders) != 2 {
		t.Fatalf("lying snapshot: %v, want REJECT_SNAPSHOT naming both senders", res)
	}
	if res := offer(t, s, cp, bytes.Repeat([]byte{7}, 32)); res.Result != abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT {
		t.Fatalf("snapshot against another AppHash: %v", res)
	}
	if h := s.ex.State().Height; h != 0 {
		t.Fatalf("the node installed a rejected snapshot (height %d)", h)
	}
	if res := offer(t, s, cp, appHash); res.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
		t.Fatalf("honest snapshot: %v", res)
	}
	if st := s.ex.State(); st.Height != cp.Height || !bytes.Equal(st.AppHash, appHash) {
		t.Fatalf("after state sync the node is at %d/%X, want %d/%X", st.Height, st.AppHash, cp.Height, appHash)
	}
	runBlocks(t, s.ex, "c", "INSERT INTO acct (bal) VALUES (40)")
	rows, _, err := s.ex.Backend().Query(context.Background(), "SELECT id, bal::text, note FROM acct ORDER BY id", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[1 10.50 a] [2 21.00 <nil>] [3 30.00 c'd] [4 40.00 <nil>]]" {
		t.Fatalf("restored rows %v, %v", rows, err)
	}

	single := joiner(t) // SQLite, its genesis names no other engine
	if _, err := single.recv.Offer(nil); err == nil {
		t.Fatal("an empty offer was accepted")
	}
	src := newStateSync(t.TempDir(), Config{Backend: BackendConfig{Kind: "postgres"}}, nil, log.NewNopLogger()).src
	src.List = func() ([]backend.Checkpoint, error) { return []backend.Checkpoint{cp}, nil }
	snaps, err := src.Snapshots(1)
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots: %v %v", snaps, err)
	}
	if res, err := single.OfferSnapshot(context.Background(), &abci.RequestOfferSnapshot{Snapshot: snaps[0], AppHash: appHash}); err != nil || res.Result != abci.ResponseOfferSnapshot_REJECT {
		t.Fatalf("a SQLite node offered a PostgreSQL snapshot: %v %v, want REJECT", res, err)
	}
}

// A PostgreSQL validator of a network over several engines exports its
// checkpoint as a SQLite database speaking PostgreSQL's SQL, served as a
// snapshot of the portable format (2); a SQLite node restores it as a
// snapshot of its own engine and holds the validator's rows, sequence and
// AppHash. A node of a network over one engine refuses the format.
func TestPortableSnapshotOfAPostgreSQLValidator(t *testing.T) {
	ctx := context.Background()
	params := mixedParams(t)
	pg := pgJoiner(t, params) // a PostgreSQL node, used here as the source
	runBlocks(t, pg.ex, "c",
		"CREATE TABLE acct (id serial PRIMARY KEY, bal numeric(12,2) NOT NULL, note text)",
		"INSERT INTO acct (bal, note) VALUES (10.50, 'a'), (20, NULL), (30, 'c''d')",
		"UPDATE acct SET bal = bal + 1 WHERE id = 2")
	want := pg.ex.State()
	d, s, err := pg.rc.BackendSpec(pg.home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.CheckpointNow(ctx, s, CheckpointDir(pg.home)); err != nil {
		t.Fatal(err)
	}
	if pg.portable == nil {
		t.Fatal("a PostgreSQL validator of a mixed network serves no portable snapshots")
	}
	pg.portable.refresh()
	pg.portable.wg.Wait()
	cps, err := pg.portable.src.List()
	if err != nil || len(cps) != 1 || cps[0].Height != want.Height {
		t.Fatalf("portable checkpoints %v, %v; want one at height %d", cps, err, want.Height)
	}

	sqliteNode := sqliteJoiner(t, params)
	snaps, err := pg.portable.src.Snapshots(1)
	if err != nil || len(snaps) != 1 || snaps[0].Format != snapshot.PortableFormat {
		t.Fatalf("portable snapshots %v, %v", snaps, err)
	}
	if res := offerFrom(t, sqliteNode, pg.portable.src, want.AppHash); res.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
		t.Fatalf("portable snapshot: %v", res)
	}
	if st := sqliteNode.ex.State(); st.Height != want.Height || !bytes.Equal(st.AppHash, want.AppHash) {
		t.Fatalf("after state sync the SQLite node is at %d/%X, want %d/%X", st.Height, st.AppHash, want.Height, want.AppHash)
	}
	runBlocks(t, sqliteNode.ex, "c", "INSERT INTO acct (bal) VALUES (40)")
	rows, _, err := sqliteNode.ex.Backend().Query(ctx, "SELECT id, bal::text, note FROM acct ORDER BY id", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[1 10.50 a] [2 21.00 <nil>] [3 30.00 c'd] [4 40.00 <nil>]]" {
		t.Fatalf("restored rows %v, %v", rows, err)
	}
	single := joiner(t)
	if res, err := single.OfferSnapshot(ctx, &abci.RequestOfferSnapshot{Snapshot: snaps[0], AppHash: want.AppHash}); err != nil || res.Result != abci.ResponseOfferSnapshot_REJECT_FORMAT {
		t.Fatalf("a node of a network over one engine offered a portable snapshot: %v %v, want REJECT_FORMAT", res, err)
	}
}

// sqliteJoiner is an empty SQLite node home's state sync in a mixed
// network.
func sqliteJoiner(t *testing.T, params app.Params) *stateSync {
	return mixedJoiner(t, params, DefaultConfig().Backend)
}
