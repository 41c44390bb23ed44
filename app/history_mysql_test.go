package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/protocol"
)

// MySQL's row history follows its authenticated state: inserts, updates
// and deletes with their txs, TRUNCATE and a column added (versions
// without or with txs as the storage names them), and a row's history
// with the row before each change.
func TestHistoryOnMySQL(t *testing.T) {
	var dsn string
	s := store{"mysql", func(t *testing.T) backend.Backend {
		if dsn == "" {
			dsn = mysqltest.DSN(t)
		}
		b, err := mysql.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}}
	f := mustNewFixture(t, s, authParams(s, protocol.V4))
	f.block(f.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, name VARCHAR(20) NOT NULL)")))
	f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'a'), (2, 'b')")))
	f.block(f.tx(stmt("UPDATE acct SET name = 'A' WHERE id = 1")), f.tx(stmt("DELETE FROM acct WHERE id = 2")))
	f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'dup')")))
	f.block(f.tx(stmt("ALTER TABLE acct ADD COLUMN bal BIGINT NULL DEFAULT 7")))
	f.block(f.tx(stmt("TRUNCATE TABLE acct")))
	var lines []string
	for _, ev := range allChanges(t, f, 0, 100) {
		l := eventLine(ev)
		if ev.Source.Height == 6 {
			l = l[:strings.LastIndex(l, "txs=")] + "txs=?"
		}
		lines = append(lines, l)
	}
	want := []string{
		"2 c acct [1] id=1,name=a txs=1", "2 c acct [2] id=2,name=b txs=1",
		"3 u acct [1] id=1,name=A txs=1", "3 d acct [2]  txs=1",
		"5 u acct [1] bal=7,id=1,name=A txs=0",
		"6 d acct [1]  txs=?",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	h, err := f.ex.RowHistory(context.Background(), api.HistoryRequest{Table: "acct", KeyValues: []any{1.0}, FromHeight: 3})
	if err != nil || len(h.Events) != 3 || h.Events[0].Before["name"] != "a" || h.Events[1].Before["name"] != "A" {
		t.Fatalf("history of row 1 from height 3: %v %+v", err, h)
	}
}
