package app_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// historyStores are the storages that keep row history: PostgreSQL's
// SQL on SQLite and on PostgreSQL (authStores).
func historyStores() []store { return authStores() }

// eventLine is a change event in short form for comparisons:
// "height op table key after-columns txs".
func eventLine(ev api.ChangeEvent) string {
	cols := make([]string, 0, len(ev.After))
	for k, v := range ev.After {
		cols = append(cols, fmt.Sprintf("%s=%v", k, v))
	}
	slices.Sort(cols)
	return fmt.Sprintf("%d %s %s %v %s txs=%d", ev.Source.Height, ev.Op, ev.Source.Table, ev.Source.KeyValues, strings.Join(cols, ","), len(ev.Source.Txs))
}

// truncateLine is eventLine with the txs of TRUNCATE's deletes (height
// 6 in TestHistoryRecordsEveryRowVersion) left open: a storage that
// deletes row by row names the tx, one that rewrites the table none.
func truncateLine(ev api.ChangeEvent) string {
	l := eventLine(ev)
	if ev.Source.Height == 6 && ev.Op == "d" {
		l = l[:strings.LastIndex(l, "txs=")] + "txs=?"
	}
	return l
}

// allChanges reads every change event from height from on, one page of
// limit versions at a time, checking that no page splits a block.
func allChanges(t *testing.T, f *fixture, from int64, limit int) []api.ChangeEvent {
	t.Helper()
	var out []api.ChangeEvent
	for {
		resp, err := f.ex.Changes(context.Background(), api.ChangesRequest{FromHeight: from, Limit: limit})
		if err != nil {
			t.Fatalf("changes from %d: %v", from, err)
		}
		if len(resp.Events) == 0 {
			return out
		}
		last := resp.Events[len(resp.Events)-1].Source.Height
		if resp.Next != last+1 {
			t.Fatalf("changes from %d: next %d after a page ending at height %d", from, resp.Next, last)
		}
		out = append(out, resp.Events...)
		from = resp.Next
	}
}

// Every block that changes rows of an authenticated table leaves one
// version per row: inserts, updates and deletes with the txs that wrote
// them (hash and signer), a failed tx none, TRUNCATE and DDL (rescans)
// versions without txs, a table without a primary key none; the row's
// history reads them back with the row before each change.
func TestHistoryRecordsEveryRowVersion(t *testing.T) {
	for _, s := range historyStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL)"), stmt("CREATE TABLE loose (x int4)")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'a'), (2, 'b')")), f.tx(stmt("INSERT INTO loose VALUES (1)")))
			f.block(f.tx(stmt("UPDATE acct SET name = 'A' WHERE id = 1")), f.tx(stmt("DELETE FROM acct WHERE id = 2"), stmt("INSERT INTO acct VALUES (3, 'c')")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'dup')")))       // fails: no version
			f.block(f.tx(stmt("UPDATE acct SET name = name WHERE id = 3"))) // the row as it was: no version
			f.block(f.tx(stmt("TRUNCATE acct")))
			got := allChanges(t, f, 0, 100)
			var lines []string
			for _, ev := range got {
				lines = append(lines, truncateLine(ev))
			}
			want := []string{
				"2 c acct [1] id=1,name=a txs=1", "2 c acct [2] id=2,name=b txs=1",
				"3 u acct [1] id=1,name=A txs=1", "3 d acct [2]  txs=1", "3 c acct [3] id=3,name=c txs=1",
				"6 d acct [1]  txs=?", "6 d acct [3]  txs=?",
			}
			if !slices.Equal(lines, want) {
				t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
			ev := got[2]
			if ev.Before["name"] != "a" || ev.Source.TxIndex != 0 || len(ev.Source.TxHash) != 64 || len(ev.Source.Signer) != 64 || ev.Source.BlockTime == "" || len(ev.Source.AppHash) != 64 {
				t.Fatalf("update event: %+v", ev)
			}
			if got[3].Source.TxIndex != 1 || got[3].Before["name"] != "b" {
				t.Fatalf("delete event: %+v", got[3])
			}
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'again')")))
			f.block(f.tx(stmt("ALTER TABLE acct ADD COLUMN bal int8 DEFAULT 7")))
			h, err := f.ex.RowHistory(context.Background(), api.HistoryRequest{Table: "acct", KeyValues: []any{1.0}})
			if err != nil {
				t.Fatal(err)
			}
			lines = lines[:0]
			for _, ev := range h.Events {
				lines = append(lines, truncateLine(ev))
			}
			want = []string{"2 c acct [1] id=1,name=a txs=1", "3 u acct [1] id=1,name=A txs=1", "6 d acct [1]  txs=?", "7 c acct [1] id=1,name=again txs=1", "8 u acct [1] bal=7,id=1,name=again txs=0"}
			if !slices.Equal(lines, want) {
				t.Fatalf("history of row 1:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A speculated block that is discarded leaves no version; a restarted
// executor continues the history without recording a block twice.
func TestHistorySurvivesSpeculationAndRestart(t *testing.T) {
	for _, s := range historyStores() {
		t.Run(s.dialect, func(t *testing.T) {
			ctx := context.Background()
			p := authParams(s, protocol.V4)
			f := mustNewFixture(t, s, p)
			f.dialect = "postgres"
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL)")))
			spec := blockInfo(f.ex.State().Height + 1)
			spec.Hash = []byte("another proposal")
			if err := f.ex.Speculate(ctx, spec, [][]byte{f.tx(stmt("INSERT INTO acct VALUES (9, 'never')"))}, time.Minute); err != nil {
				t.Fatalf("speculate: %v", err)
			}
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'a')")))
			f.restart(t, s, p)
			f.block(f.tx(stmt("UPDATE acct SET name = 'b' WHERE id = 1")))
			var lines []string
			for _, ev := range allChanges(t, f, 0, 1) {
				lines = append(lines, eventLine(ev))
			}
			want := []string{"2 c acct [1] id=1,name=a txs=1", "3 u acct [1] id=1,name=b txs=1"}
			if !slices.Equal(lines, want) {
				t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A page of changes never splits a block: a block of five versions comes
// whole in a page of limit 2. Retention prunes older blocks, and a read
// from below the history's start fails naming it.
func TestChangesPagesAndRetention(t *testing.T) {
	for _, s := range historyStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY)")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1), (2), (3), (4), (5)")))
			resp, err := f.ex.Changes(context.Background(), api.ChangesRequest{FromHeight: 1, Limit: 2})
			if err != nil || len(resp.Events) != 5 || resp.Next != 3 {
				t.Fatalf("a page of limit 2: %d events, next %d, %v; want the block's 5, next 3", len(resp.Events), resp.Next, err)
			}
			f.ex.SetHistory(app.HistoryConfig{RetainBlocks: 2})
			for id := int64(10); id < 14; id++ {
				f.block(f.tx(stmt("INSERT INTO acct VALUES ($1)", txn.Int(id))))
			}
			latest := f.ex.State().Height
			resp, err = f.ex.Changes(context.Background(), api.ChangesRequest{})
			if err != nil || resp.Start != latest-1 || len(resp.Events) != 2 {
				t.Fatalf("after retention of 2 blocks at height %d: start %d, %d events, %v", latest, resp.Start, len(resp.Events), err)
			}
			_, err = f.ex.Changes(context.Background(), api.ChangesRequest{FromHeight: 2})
			if !errors.Is(err, app.ErrHistoryStart) || !strings.Contains(err.Error(), fmt.Sprint("starts at height ", latest-1)) {
				t.Fatalf("read from a pruned height: %v", err)
			}
		})
	}
}

// A row is proved at a past height after it changed twice: its image
// then comes from the history, and the proof verifies against that
// height's AppHash; an unchanged row needs no history; a height outside
// the window of kept states and a changed row without history fail
// clearly.
func TestProofAtANamedHeight(t *testing.T) {
	for _, s := range historyStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			f.ex.SetHistory(app.HistoryConfig{ProofHeights: 4})
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL)")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'a'), (2, 'b'), (3, 'c')")))
			h, appHash := f.ex.State().Height, f.ex.State().AppHash
			f.block(f.tx(stmt("UPDATE acct SET name = 'x' WHERE id = 2")))
			f.block(f.tx(stmt("UPDATE acct SET name = 'y' WHERE id = 2")))
			for _, req := range []api.ProofRequest{
				{Table: "acct", Key: intKey(t, 2), Height: h},
				{Table: "acct", Key: intKey(t, 1), Height: h},
				{Table: "acct", Lo: intKey(t, 1), Hi: intKey(t, 3), Height: h},
			} {
				resp, err := f.ex.Prove(context.Background(), req)
				if err != nil {
					t.Fatalf("prove %+v: %v", req, err)
				}
				if err := verifyProof(req, resp, appHash); err != nil || resp.Height != h {
					t.Fatalf("proof at height %d: %v (height %d)", h, err, resp.Height)
				}
			}
			resp, _ := f.ex.Prove(context.Background(), api.ProofRequest{Table: "acct", Key: intKey(t, 2), Height: h})
			if len(resp.Rows) != 1 || !strings.Contains(string(resp.Rows[0].Image), "b") {
				t.Fatalf("row 2 at height %d: %+v", h, resp.Rows)
			}
			f.ex.SetHistory(app.HistoryConfig{Off: true, ProofHeights: 4})
			if _, err := f.ex.Prove(context.Background(), api.ProofRequest{Table: "acct", Key: intKey(t, 2), Height: h}); !errors.Is(err, app.ErrHeightUnavailable) || !strings.Contains(err.Error(), "keeps no row history") {
				t.Fatalf("a changed row at a past height with history off: %v", err)
			}
			if _, err := f.ex.Prove(context.Background(), api.ProofRequest{Table: "acct", Key: intKey(t, 1), Height: h}); err != nil {
				t.Fatalf("an unchanged row at a past height with history off: %v", err)
			}
			f.ex.SetHistory(app.HistoryConfig{ProofHeights: 4})
			for range 4 {
				f.block(f.tx(stmt("UPDATE acct SET name = name || 'z' WHERE id = 3")))
			}
			// Outside the window of states kept in memory: rebuilt from
			// the history.
			resp, err := f.ex.Prove(context.Background(), api.ProofRequest{Table: "acct", Key: intKey(t, 2), Height: h})
			if err != nil || verifyProof(api.ProofRequest{Table: "acct", Key: intKey(t, 2), Height: h}, resp, appHash) != nil || !strings.Contains(string(resp.Rows[0].Image), "b") {
				t.Fatalf("a height outside the window, from the history: %v, %+v", err, resp.Rows)
			}
			f.ex.SetHistory(app.HistoryConfig{Off: true, ProofHeights: 4})
			_, err = f.ex.Prove(context.Background(), api.ProofRequest{Table: "acct", Key: intKey(t, 2), Height: h})
			if !errors.Is(err, app.ErrHeightUnavailable) || !strings.Contains(err.Error(), "this node proves heights") {
				t.Fatalf("a height outside the window with history off: %v", err)
			}
		})
	}
}

// Issue 36, item 5: every version the history holds is provable against
// the AppHash of its block, after a restart too (the window of states
// kept in memory then holds the latest only): each height's point
// proofs, an absent key, a range, a table created later (absent then), a
// table dropped later, and a delete; a height pruned away is refused,
// naming why.
func TestEveryVersionProvableAfterARestart(t *testing.T) {
	for _, s := range historyStores() {
		t.Run(s.dialect, func(t *testing.T) {
			ctx := context.Background()
			p := authParams(s, protocol.V4)
			f := mustNewFixture(t, s, p)
			f.dialect = "postgres"
			f.ex.SetHistory(app.HistoryConfig{ProofHeights: 1})
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL)"), stmt("CREATE TABLE gone (id int8 PRIMARY KEY)")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'a'), (2, 'b'), (3, 'c')"), stmt("INSERT INTO gone VALUES (7)")))
			f.block(f.tx(stmt("UPDATE acct SET name = 'b2' WHERE id = 2")))
			f.block(f.tx(stmt("DELETE FROM acct WHERE id = 1"), stmt("CREATE TABLE later (id int8 PRIMARY KEY)")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (4, 'd')"), stmt("DROP TABLE gone")))
			f.block(f.tx(stmt("UPDATE acct SET name = 'b3' WHERE id = 2")))
			type state struct {
				height  int64
				appHash []byte
			}
			var states []state
			for h := int64(2); h <= f.ex.State().Height; h++ {
				states = append(states, state{h, appHashAt(t, f, h)})
			}
			f.restart(t, s, p)
			f.ex.SetHistory(app.HistoryConfig{ProofHeights: 1})
			f.block(f.tx(stmt("UPDATE acct SET name = 'c2' WHERE id = 3")))
			for _, st := range states {
				for _, req := range []api.ProofRequest{
					{Table: "acct", Key: intKey(t, 1), Height: st.height}, {Table: "acct", Key: intKey(t, 2), Height: st.height},
					{Table: "acct", Key: intKey(t, 9), Height: st.height}, {Table: "acct", Lo: intKey(t, 0), Hi: intKey(t, 9), Height: st.height},
					{Table: "gone", Key: intKey(t, 7), Height: st.height}, {Table: "later", Key: intKey(t, 1), Height: st.height},
				} {
					resp, err := f.ex.Prove(ctx, req)
					if err != nil {
						t.Fatalf("prove %s at %d: %v", req.Table, st.height, err)
					}
					err = verifyProof(req, resp, st.appHash)
					if absent := req.Table == "later" && st.height < 4 || req.Table == "gone" && st.height >= 5; absent && !errors.Is(err, errTableAbsent) || !absent && err != nil {
						t.Fatalf("proof of %s %x at height %d against its AppHash: %v", req.Table, req.Key, st.height, err)
					}
				}
			}
			resp, err := f.ex.Prove(ctx, api.ProofRequest{Table: "acct", Key: intKey(t, 2), Height: 3})
			if err != nil || len(resp.Rows) != 1 || !strings.Contains(string(resp.Rows[0].Image), "b2") {
				t.Fatalf("row 2 at height 3: %v %+v", err, resp.Rows)
			}
			f.ex.SetHistory(app.HistoryConfig{ProofHeights: 1, RetainBlocks: 2})
			f.block(f.tx(stmt("UPDATE acct SET name = 'c3' WHERE id = 3")))
			_, err = f.ex.Prove(ctx, api.ProofRequest{Table: "acct", Key: intKey(t, 2), Height: 3})
			if !errors.Is(err, app.ErrHeightUnavailable) {
				t.Fatalf("a height pruned from the history: %v", err)
			}
			_, err = f.ex.Prove(ctx, api.ProofRequest{Table: "acct", Key: intKey(t, 1), Height: 2})
			if !errors.Is(err, app.ErrHeightUnavailable) || !strings.Contains(err.Error(), "holds no state of that block") {
				t.Fatalf("a height pruned from the history, not rebuilt before: %v", err)
			}
		})
	}
}

// restart closes f's database and opens it again under a new executor,
// as a node restarted.
func (f *fixture) restart(t *testing.T, s store, p app.Params) {
	t.Helper()
	f.be.Close()
	f.be = s.open(t)
	t.Cleanup(func() { f.be.Close() })
	ex, err := app.NewExecutor(context.Background(), f.be, chainID, p)
	if err != nil {
		t.Fatal(err)
	}
	f.ex = ex
}

// appHashAt is the AppHash after block h: the one the history recorded
// with its versions, else (a block that changed no row) the chain's.
func appHashAt(t *testing.T, f *fixture, h int64) []byte {
	t.Helper()
	resp, err := f.ex.Changes(context.Background(), api.ChangesRequest{FromHeight: h, Limit: 1})
	if err != nil || len(resp.Events) == 0 || resp.Events[0].Source.Height != h {
		t.Fatalf("the history of block %d: %v %+v", h, err, resp)
	}
	b, err := hex.DecodeString(resp.Events[0].Source.AppHash)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The query paths refuse hostile input with a clear error, never a
// panic: invalid JSON, no key, a key value that names no key, a limit out
// of range, a height below the history's start; a valid request answers.
func TestHistoryQueryPathsRefuseBadInput(t *testing.T) {
	s := historyStores()[0]
	f := mustNewFixture(t, s, authParams(s, protocol.V4))
	f.dialect = "postgres"
	f.ex.SetHistory(app.HistoryConfig{RetainBlocks: 1})
	f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY)")))
	f.block(f.tx(stmt("INSERT INTO acct VALUES (1)")))
	f.block(f.tx(stmt("INSERT INTO acct VALUES (2)")))
	a := app.New(f.ex, log.NewNopLogger())
	for _, c := range []struct {
		path, data, want string
	}{
		{api.HistoryPath, `{"table":`, "not valid JSON"},
		{api.HistoryPath, `{"table":"acct"}`, "neither a key nor key values"},
		{api.HistoryPath, `{"table":"acct","key_values":[1.5]}`, "not an integer"},
		{api.HistoryPath, `{"table":"acct","key_values":[{"a":1}]}`, "only integers, strings and booleans"},
		{api.HistoryPath, `{"table":"acct","key_values":[1],"limit":100000}`, "limit 100000"},
		{api.ChangesPath, `{"from_height":-1}`, "from_height -1"},
		{api.ChangesPath, `{"from_height":1}`, "the history starts at height 3"},
		{api.ChangesPath, `[]`, "not valid JSON"},
	} {
		r, err := a.Query(context.Background(), &abci.RequestQuery{Path: c.path, Data: []byte(c.data)})
		if err != nil || r.Code != api.CodeQueryBadInput || !strings.Contains(r.Log, c.want) {
			t.Errorf("%s %s: %v, code %d %q; want bad input saying %q", c.path, c.data, err, r.Code, r.Log, c.want)
		}
	}
	r, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.ChangesPath, Data: []byte(`{}`)})
	if err != nil || r.Code != api.CodeOK || !strings.Contains(string(r.Value), `"after":{"id":2}`) {
		t.Fatalf("changes: %v, code %d %s %s", err, r.Code, r.Log, r.Value)
	}
}
