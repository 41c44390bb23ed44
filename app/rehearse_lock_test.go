package app_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/txn"
)

// startSlowRead runs slowRead on a's read path until the test ends and
// waits until it holds its lock on big on the server.
func startSlowRead(t *testing.T, s lockStore, a *app.App) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		_, _ = a.Read(ctx, 0, slowRead, nil, true)
	}()
	waitFor(t, "the read to run on the server", func() bool { return s.probe(t, inFlight[s.dialect]) == 1 })
}

// exclusiveOnBig counts PostgreSQL's ACCESS EXCLUSIVE locks on big,
// granted or awaited.
const exclusiveOnBig = `SELECT count(*) FROM pg_locks l
	WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND l.relation = 'big'::regclass AND l.mode = 'AccessExclusiveLock'`

// TestRehearsalDoesNotQueueBehindReads is the lock half of issue 32's
// reproduction 5 on PostgreSQL: a rehearsal of ALTER TABLE big while a
// read of big holds ACCESS SHARE. Queued for its ACCESS EXCLUSIVE lock,
// the rehearsal made every later read of big wait behind it, up to its
// deadline (10 s per request; a read took 17.3 s). Now it gives up after
// RehearsalLockWait with the retry error, holding and awaiting nothing,
// and a read of big runs meanwhile; without a read in the way the same
// rehearsal runs.
func TestRehearsalDoesNotQueueBehindReads(t *testing.T) {
	s := lockStores()[0]
	f := bigFixture(t, store{s.dialect, s.open})
	a := app.New(f.ex, log.NewNopLogger())
	alter := []txn.Statement{stmt("ALTER TABLE big ADD COLUMN z INT")}
	pub := f.key.Public()
	t.Run("beside a read", func(t *testing.T) {
		startSlowRead(t, s, a)
		// A minute: should the rehearsal queue for the lock, it fails
		// with its deadline instead of the lock wait.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rr, err := f.ex.Rehearse(ctx, f.key.Public().(ed25519.PublicKey), alter)
		if !errors.Is(err, app.ErrRehearsalLockWait) || !errors.Is(err, app.ErrRehearsalBusy) {
			t.Fatalf("a rehearsal of ALTER TABLE beside a read of the table: %v (response code %d, %q; reads in flight holding big: %d), want ErrRehearsalLockWait",
				err, rr.Code, rr.Log, s.probe(t, inFlight[s.dialect]))
		}
		if n := s.probe(t, exclusiveOnBig); n != 0 {
			t.Fatalf("after the rehearsal gave up, %d ACCESS EXCLUSIVE locks on big remain", n)
		}
		if _, err := a.Read(context.Background(), 0, "SELECT count(*) FROM big", nil, true); err != nil {
			t.Fatalf("a read of big beside the slow one: %v", err)
		}
		// Through the query path: the retry code, nothing else.
		resp, err := a.Query(context.Background(), rehearsalRequest(f, alter))
		if err != nil || resp.Code != api.CodeQueryBusy || !strings.Contains(resp.Log, "lock") {
			t.Fatalf("the rehearse path beside a read: %v code %d %q, want %d naming the lock", err, resp.Code, resp.Log, api.CodeQueryBusy)
		}
	})
	t.Run("alone", func(t *testing.T) {
		r, err := f.ex.Rehearse(context.Background(), pub.(ed25519.PublicKey), alter)
		if err != nil || r.Code != api.CodeOK {
			t.Fatalf("a rehearsal of ALTER TABLE with no read in the way: %v %+v", err, r)
		}
		if n := s.probe(t, exclusiveOnBig); n != 0 {
			t.Fatalf("after the rehearsal, %d ACCESS EXCLUSIVE locks on big remain", n)
		}
	})
}

// TestMariaDBRehearsalBesideReads: on MariaDB a rehearsal takes no lock a
// read holds (DDL is refused before it runs; DML takes a shared-write
// metadata lock, compatible with a read's, and InnoDB's consistent reads
// lock no rows), so it runs while a read of the same table is in flight.
func TestMariaDBRehearsalBesideReads(t *testing.T) {
	s := lockStores()[1]
	f := bigFixture(t, store{s.dialect, s.open})
	a := app.New(f.ex, log.NewNopLogger())
	startSlowRead(t, s, a)
	r, err := f.ex.Rehearse(context.Background(), f.key.Public().(ed25519.PublicKey), []txn.Statement{stmt("DELETE FROM big WHERE k < 10")})
	if err != nil || r.Code != api.CodeOK || r.Statements[0].RowsAffected != 9 {
		t.Fatalf("a rehearsal of DELETE beside a read of the table: %v %+v", err, r)
	}
}

// TestSQLiteDDLBlockBesideOpenRead checks the claim app/DESIGN.md makes
// for SQLite: in WAL mode a reader never blocks the writer, so a block
// that changes the schema commits while another connection holds a read
// transaction open on the table.
func TestSQLiteDDLBlockBesideOpenRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relchain.db")
	f := bigFixture(t, store{"sqlite", func(t *testing.T) backend.Backend {
		b, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}})
	db, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	st, _, err := db.Prepare("SELECT k FROM big ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Step() { // the read transaction is open, its snapshot taken
		t.Fatalf("read big: %v", st.Err())
	}
	res, _ := f.block(f.tx(stmt("ALTER TABLE big ADD COLUMN z INT")))
	if res[0].Code != api.CodeOK {
		t.Fatalf("a DDL block beside an open read: code %d %s", res[0].Code, res[0].Log)
	}
	if !st.Step() || st.ColumnInt64(0) != 2 {
		t.Fatalf("the open read after the block: %v", st.Err())
	}
}

// rehearsalRequest is the abci_query request of f's key rehearsing stmts.
func rehearsalRequest(f *fixture, stmts []txn.Statement) *abci.RequestQuery {
	return &abci.RequestQuery{Path: api.RehearsePath, Data: txn.SignRehearsal(f.key, chainID, f.ex.State().Height, stmts)}
}
