package app_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// lockStore is a server database with a probe: a session of the test's own
// that counts rows of a catalog query (the locks and statements of the
// node's sessions).
type lockStore struct {
	dialect string
	open    func(t *testing.T) backend.Backend
	probe   func(t *testing.T, query string) int64
	// sessions lists what the node's database sessions run, for a test
	// that gave up waiting.
	sessions func(t *testing.T) string
}

// readLimit is the read limit of lockStores' backends: longer than any
// test waits, so that a block that waited for a read would not commit in
// the test's time.
const readLimit = time.Hour

func lockStores() []lockStore {
	var pgDSN, myDB string
	return []lockStore{
		{"postgres", func(t *testing.T) backend.Backend {
			pgDSN = pgtest.DSN(t)
			b, err := postgres.Open(context.Background(), pgDSN, postgres.WithQueryTimeout(readLimit))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, func(t *testing.T, query string) int64 {
			conn, err := pgx.Connect(context.Background(), pgDSN)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			var n int64
			if err := conn.QueryRow(context.Background(), query).Scan(&n); err != nil {
				t.Fatalf("probe %s: %v", query, err)
			}
			return n
		}, func(t *testing.T) string {
			conn, err := pgx.Connect(context.Background(), pgDSN)
			if err != nil {
				return err.Error()
			}
			defer conn.Close(context.Background())
			var list string
			if err := conn.QueryRow(context.Background(), `SELECT coalesce(string_agg(concat_ws(' | ', pid, application_name, state,
				wait_event_type, wait_event, left(query, 100)), E'\n'), '') FROM pg_stat_activity
				WHERE pid <> pg_backend_pid() AND datname = current_database()`).Scan(&list); err != nil {
				return err.Error()
			}
			return list
		}},
		{"mysql", func(t *testing.T) backend.Backend {
			dsn := mysqltest.DSN(t)
			cfg, err := gomysql.ParseDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			myDB = cfg.DBName
			b, err := mysql.Open(context.Background(), dsn, mysql.WithQueryTimeout(readLimit))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, func(t *testing.T, query string) int64 {
			cfg, err := gomysql.ParseDSN(mysqltest.ServerDSN(t))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DBName = myDB // DATABASE() in the probe is the node's
			db, err := sql.Open("mysql", cfg.FormatDSN())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n int64
			if err := db.QueryRow(query).Scan(&n); err != nil {
				t.Fatalf("probe %s: %v", query, err)
			}
			return n
		}, func(t *testing.T) string {
			db, err := sql.Open("mysql", mysqltest.ServerDSN(t))
			if err != nil {
				return err.Error()
			}
			defer db.Close()
			var list sql.NullString
			if err := db.QueryRow(`SELECT GROUP_CONCAT(CONCAT_WS(' | ', id, db, command, time, IFNULL(state, ''),
				IFNULL(LEFT(info, 100), '')) SEPARATOR '\n') FROM information_schema.processlist
				WHERE id <> CONNECTION_ID()`).Scan(&list); err != nil {
				return err.Error()
			}
			return list.String
		}},
	}
}

// slowRead reads big (20 rows, all with v = 'x') joined with itself seven
// times: 1.28e9 rows, far longer than any test runs, so it is still running
// whenever the test looks, until something ends it.
const slowRead = "SELECT count(*) FROM big a JOIN big b ON a.v = b.v JOIN big c ON b.v = c.v JOIN big d ON c.v = d.v " +
	"JOIN big e ON d.v = e.v JOIN big f ON e.v = f.v JOIN big g ON f.v = g.v"

// inFlight is each dialect's probe for slowRead holding its lock on big:
// PostgreSQL's ACCESS SHARE lock granted to a read-path session, MariaDB's
// statement running on the server (it holds its metadata lock until it
// ends).
var inFlight = map[string]string{
	"postgres": `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid
		WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.relation = 'big'::regclass AND l.mode = 'AccessShareLock' AND l.granted
		AND s.application_name = 'relchain-query'`,
	"mysql": `SELECT count(*) FROM information_schema.processlist
		WHERE id <> CONNECTION_ID() AND db = DATABASE() AND command IN ('Query', 'Execute') AND info LIKE '%JOIN big g ON f.v = g.v%'`,
}

// waitFor polls cond until it holds (at most a minute, then the test fails).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSchemaBlockCancelsReads is issue 32's reproduction 6: a read in
// flight holds a shared lock on big (PostgreSQL ACCESS SHARE, MariaDB's
// shared metadata lock) that an admin's ALTER TABLE in a block needs
// exclusively. The block must not wait for the read (up to the read limit,
// which could push the tx past tx_timeout): the node cancels the read,
// which fails with the retry code, and the block commits. The read runs on
// the in-process path (App.Read) and on abci_query's /sql.
func TestSchemaBlockCancelsReads(t *testing.T) {
	for _, s := range lockStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := bigFixture(t, store{s.dialect, s.open})
			a := app.New(f.ex, log.NewNopLogger())
			// Should the test fail, its reads end before the backend closes.
			readCtx, cancelReads := context.WithCancel(context.Background())
			t.Cleanup(cancelReads)
			for i, col := range []string{"z1", "z2"} {
				readErr := make(chan error, 1)
				go func() {
					if i == 0 {
						_, err := a.Read(readCtx, 0, slowRead, nil, true)
						readErr <- err
						return
					}
					resp, err := a.Query(readCtx, queryRequest(slowRead))
					if err == nil && resp.Code != api.CodeOK {
						err = &app.ReadError{Code: resp.Code, Log: resp.Log}
					}
					readErr <- err
				}()
				waitFor(t, "the read to run on the server", func() bool { return s.probe(t, inFlight[s.dialect]) == 1 })
				before := f.ex.ReadsPreempted()
				committed := make(chan []app.TxResult, 1)
				ddl := f.tx(stmt("ALTER TABLE big ADD COLUMN " + col + " INT"))
				go func() { res, _ := f.block(ddl); committed <- res }()
				var res []app.TxResult
				select {
				case res = <-committed:
				case <-time.After(time.Minute):
					t.Fatalf("the DDL block did not commit within a minute: it waits for the read (read limit %s); the database's sessions:\n%s", readLimit, s.sessions(t))
				}
				if res[0].Code != api.CodeOK {
					t.Fatalf("the DDL block: code %d %s", res[0].Code, res[0].Log)
				}
				err := <-readErr
				var re *app.ReadError
				if !errors.As(err, &re) || re.Code != api.CodeQueryBusy || !strings.Contains(re.Log, "retry") {
					t.Fatalf("read %d during the DDL block: %v, want the retry code %d", i, err, api.CodeQueryBusy)
				}
				if f.ex.ReadsPreempted() <= before {
					t.Fatalf("read %d: the block cancelled no read", i)
				}
				waitFor(t, "the cancelled read to stop on the server", func() bool { return s.probe(t, inFlight[s.dialect]) == 0 })
				// The read path works on the new schema.
				if _, err := a.Read(context.Background(), 0, "SELECT count("+col+") FROM big", nil, true); err != nil {
					t.Fatalf("a read after the block: %v", err)
				}
			}
		})
	}
}

// queryRequest is the abci_query request of sql on the read path.
func queryRequest(sql string) *abci.RequestQuery {
	body, _ := json.Marshal(api.QueryRequest{SQL: sql})
	return &abci.RequestQuery{Path: api.QueryPath, Data: body}
}
