package app_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
)

// outOfBandStore is a database a test runs blocks on and also writes
// directly, as another process (the sqlite3 shell, psql, mysql) would.
type outOfBandStore struct {
	dialect string
	open    func(t *testing.T) backend.Backend
	write   func(t *testing.T, sql string)
}

func outOfBandStores() []outOfBandStore {
	var path, pgDSN, myDSN string
	return []outOfBandStore{
		{"sqlite", func(t *testing.T) backend.Backend {
			path = filepath.Join(t.TempDir(), "relchain.db")
			b, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, func(t *testing.T, stmt string) {
			db, err := sqlite3.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Exec(stmt); err != nil {
				t.Fatalf("out-of-band %s: %v", stmt, err)
			}
		}},
		{"postgres", func(t *testing.T) backend.Backend {
			pgDSN = pgtest.DSN(t)
			b, err := postgres.Open(context.Background(), pgDSN)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, func(t *testing.T, stmt string) {
			conn, err := pgx.Connect(context.Background(), pgDSN)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			if _, err := conn.Exec(context.Background(), stmt); err != nil {
				t.Fatalf("out-of-band %s: %v", stmt, err)
			}
		}},
		{"mysql", func(t *testing.T) backend.Backend {
			myDSN = mysqltest.DSN(t)
			b, err := mysql.Open(context.Background(), myDSN)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, func(t *testing.T, stmt string) {
			cfg, err := gomysql.ParseDSN(myDSN)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := gomysql.NewConnector(cfg)
			if err != nil {
				t.Fatal(err)
			}
			db := sql.OpenDB(conn)
			defer db.Close()
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("out-of-band %s: %v", stmt, err)
			}
		}},
	}
}

// A row written by another connection while the capture triggers are
// active leaves change records no block made: the next block refuses to
// start with an error that says so and names the table, nothing of the
// write is digested (height and AppHash stay), and it keeps refusing.
func TestOutOfBandWriteStopsTheNextBlock(t *testing.T) {
	for _, s := range outOfBandStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, store{s.dialect, s.open}, app.DefaultParams())
			f.createAcct()
			f.block(f.tx(stmt("INSERT INTO acct (id, bal) VALUES (1, 100)")))
			before := f.ex.State()
			s.write(t, "UPDATE acct SET bal = bal + 1 WHERE id = 1")
			for attempt := 0; attempt < 2; attempt++ {
				h := before.Height + 1
				_, _, err := f.ex.FinalizeBlock(context.Background(), blockInfo(h), [][]byte{f.tx(stmt("INSERT INTO acct (id, bal) VALUES (2, 100)"))})
				if !errors.Is(err, backend.ErrOutOfBandChange) {
					t.Fatalf("block %d after an out-of-band write: %v, want ErrOutOfBandChange", h, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, "changed outside the chain") || !strings.Contains(msg, "acct (") || !strings.Contains(msg, "relchain recover") {
					t.Fatalf("the error does not name the change, the table and the remedy: %s", msg)
				}
				if st := f.ex.State(); st.Height != before.Height || string(st.AppHash) != string(before.AppHash) {
					t.Fatalf("state moved to height %d after a refused block", st.Height)
				}
			}
		})
	}
}
