package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/lightverify"
)

// Row history and change data capture on real networks
// (docs/history-and-changes.md): the abci query paths, the node's HTTP
// change stream (GET /changes) and `relchain changes`.

// streamChangesHTTP reads GET /changes on node rpc (http://host:port)
// without follow and returns the events, failing the test on a non-200.
func streamChangesHTTP(ctx context.Context, t *testing.T, rpc string, from int64) []api.ChangeEvent {
	t.Helper()
	code, body := getChanges(ctx, t, rpc, fmt.Sprintf("from_height=%d", from))
	if code != http.StatusOK {
		t.Fatalf("GET %s/changes?from_height=%d: %d %s", rpc, from, code, body)
	}
	var evs []api.ChangeEvent
	dec := json.NewDecoder(strings.NewReader(body))
	for dec.More() {
		var ev api.ChangeEvent
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("change stream of %s: %v\n%s", rpc, err, body)
		}
		evs = append(evs, ev)
	}
	return evs
}

// getChanges answers GET /changes?query on node rpc.
func getChanges(ctx context.Context, t *testing.T, rpc, query string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rpc+"/changes?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s/changes?%s: %v", rpc, query, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s/changes?%s: read: %v", rpc, query, err)
	}
	return resp.StatusCode, string(b)
}

// allChangesOf reads every event from height from on through the abci
// query path of cl.
func allChangesOf(ctx context.Context, t *testing.T, cl *client.Client, from int64) []api.ChangeEvent {
	t.Helper()
	var out []api.ChangeEvent
	for {
		resp, err := cl.Changes(ctx, api.ChangesRequest{FromHeight: from, Limit: 7})
		if err != nil {
			t.Fatalf("changes from %d: %v", from, err)
		}
		if len(resp.Events) == 0 {
			return out
		}
		out = append(out, resp.Events...)
		from = resp.Next
	}
}

// eventLines renders events as JSON lines, for comparison.
func eventLines(t *testing.T, evs []api.ChangeEvent) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, ev := range evs {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// requireSameEvents fails unless got and want are the same events in the
// same order.
func requireSameEvents(t *testing.T, what string, got, want []api.ChangeEvent) {
	t.Helper()
	g, w := eventLines(t, got), eventLines(t, want)
	if strings.Join(g, "\n") == strings.Join(w, "\n") {
		return
	}
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			t.Fatalf("%s: event %d differs (of %d and %d):\n got %s\nwant %s", what, i, len(g), len(w), g[i], w[i])
		}
	}
	t.Fatalf("%s: %d events, want %d", what, len(g), len(w))
}

// TestHistoryAndChangesAcrossValidators writes inserts, updates, a
// delete, DDL and a failed tx on a 4-validator network and reads the
// change stream from two validators, over the abci query path and the
// HTTP stream: the same events, the failed tx's nowhere.
func TestHistoryAndChangesAcrossValidators(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{dialect: "postgres", pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, name TEXT NOT NULL, bal INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO acct VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)"))
	c.mustExec(ctx, 1, stmt("UPDATE acct SET bal = bal + 5 WHERE id = 2"))
	c.mustExec(ctx, 2, stmt("DELETE FROM acct WHERE id = 3"))
	failed, err := c.client(0, c.admin).Exec(ctx, client.ModeCommit,
		stmt("UPDATE acct SET bal = 999 WHERE id = 1"), stmt("INSERT INTO acct VALUES (2, 'dup', 0)"))
	if err != nil {
		t.Fatal(err)
	}
	if failed.OK() {
		t.Fatal("a tx inserting a duplicate key was applied")
	}
	c.mustExec(ctx, 3, stmt("ALTER TABLE acct ADD COLUMN note TEXT NOT NULL DEFAULT 'x'"))
	last := c.mustExecEverywhere(ctx, 0, stmt("UPDATE acct SET note = 'y' WHERE id = 1"))

	v0 := allChangesOf(ctx, t, c.client(0, nil), 0)
	v2 := allChangesOf(ctx, t, c.client(2, nil), 0)
	requireSameEvents(t, "abci /changes of node0 and node2", v2, v0)
	requireSameEvents(t, "HTTP /changes of node1", streamChangesHTTP(ctx, t, c.nodes[1].RPC, 0), v0)
	requireSameEvents(t, "HTTP /changes of node3", streamChangesHTTP(ctx, t, c.nodes[3].RPC, 0), v0)

	var ops []string
	for _, ev := range v0 {
		if fmt.Sprint(ev.After["bal"]) == "999" || ev.After["name"] == "dup" {
			t.Fatalf("the failed tx's write is in the change stream: %+v", ev)
		}
		ops = append(ops, fmt.Sprintf("%s%v@%v", ev.Op, ev.Source.KeyValues, ev.Source.TxIndex >= 0))
		if ev.Source.Height > last.Height {
			t.Fatalf("an event of height %d, above the last write's %d", ev.Source.Height, last.Height)
		}
	}
	// Inserts, the update, the delete, DDL's rescan of the two rows left
	// (no tx named them), the last update.
	want := "c[1]@true c[2]@true c[3]@true u[2]@true d[3]@true u[1]@false u[2]@false u[1]@true"
	if got := strings.Join(ops, " "); got != want {
		t.Fatalf("change stream ops:\n got %s\nwant %s", got, want)
	}
	h0, err := c.client(0, nil).RowHistory(ctx, api.HistoryRequest{Table: "acct", KeyValues: []any{2}})
	if err != nil {
		t.Fatal(err)
	}
	h3, err := c.client(3, nil).RowHistory(ctx, api.HistoryRequest{Table: "acct", KeyValues: []any{2}})
	if err != nil {
		t.Fatal(err)
	}
	requireSameEvents(t, "history of acct 2 on node0 and node3", h3.Events, h0.Events)
	if len(h0.Events) != 3 || fmt.Sprint(h0.Events[1].After["bal"]) != "25" {
		t.Fatalf("history of acct 2: %s", strings.Join(eventLines(t, h0.Events), "\n"))
	}
	// Resuming from a height gives that height's block on.
	mid := v0[3].Source.Height
	var tailWant []api.ChangeEvent
	for _, ev := range v0 {
		if ev.Source.Height >= mid {
			tailWant = append(tailWant, ev)
		}
	}
	requireSameEvents(t, "HTTP /changes from the update's height", streamChangesHTTP(ctx, t, c.nodes[2].RPC, mid), tailWant)
	checkHostileStreamRequests(ctx, t, c.nodes[0].RPC)
	checkHistoryRelation(ctx, t, c, h0.Events)
}

// checkHistoryRelation reads relchain_history('acct') over the wire
// (pgx, extended protocol, a parameter in WHERE) from node 1: the same
// versions of row 2 as the /history path of node 0, and every version
// of the table as /changes has them.
func checkHistoryRelation(ctx context.Context, t *testing.T, c *cluster, row2 []api.ChangeEvent) {
	t.Helper()
	conn, err := pgx.Connect(ctx, c.pgURL(1, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT height, op, tx_hash, after->>'bal' FROM relchain_history('acct')
		WHERE CAST(coalesce(after, before)->>'id' AS int8) = $1 ORDER BY height`, int64(2))
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for rows.Next() {
		var h int64
		var op, hash string
		var bal *string
		if err := rows.Scan(&h, &op, &hash, &bal); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %s %v", h, op, hash, deref(bal)))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("relchain_history over the wire: %v", err)
	}
	for _, ev := range row2 {
		bal := ""
		if ev.After != nil {
			bal = fmt.Sprint(ev.After["bal"])
		}
		want = append(want, fmt.Sprintf("%d %s %s %v", ev.Source.Height, ev.Op, ev.Source.TxHash, bal))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("relchain_history('acct') for id 2 over the wire:\n%s\nwant (/history):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := conn.Exec(ctx, "SELECT * FROM relchain_history('acct', -1)"); err == nil || !strings.Contains(err.Error(), "non-negative integer") {
		t.Fatalf("a bad call over the wire: %v", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkHostileStreamRequests sends malformed stream requests: each a 400
// with a JSON error.
func checkHostileStreamRequests(ctx context.Context, t *testing.T, rpc string) {
	t.Helper()
	for _, q := range []string{
		"from_height=abc", "from_height=-1", "from_height=99999999999999999999", "from_height=1e9",
		"limit=0", "limit=10001", "limit=" + strings.Repeat("9", 400), "follow=2", "from=3",
		"from_height=1&from_height=2", "from_height=" + url.QueryEscape("1;DROP TABLE acct"),
	} {
		code, body := getChanges(ctx, t, rpc, q)
		var e struct{ Error string }
		if code != http.StatusBadRequest || json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
			t.Errorf("GET /changes?%s: %d %s, want 400 with a JSON error", q, code, body)
		}
	}
	// The largest height is valid: nothing there yet.
	if code, body := getChanges(ctx, t, rpc, "from_height=9223372036854775807"); code != http.StatusOK || body != "" {
		t.Errorf("GET /changes?from_height=MaxInt64: %d %q, want 200 and no event", code, body)
	}
}

// streamConsumer follows GET /changes of one node as a consumer should:
// it keeps a block's events until an event of a later height shows the
// block complete, and when the stream breaks it drops the block it was
// receiving and reconnects from that block's height.
type streamConsumer struct {
	rpc string

	mu       sync.Mutex
	done     []api.ChangeEvent // events of complete blocks
	next     int64             // the height to resume from: every block below is in done
	breaks   int               // open streams that ended (node stopped)
	reopened int               // streams opened after a break
}

// run follows the stream until ctx ends.
func (s *streamConsumer) run(ctx context.Context) {
	for ctx.Err() == nil {
		s.mu.Lock()
		from := s.next
		s.mu.Unlock()
		_ = s.follow(ctx, from) // a node down: refused, tried again
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// follow reads one stream from height from; it returns when the stream
// ends.
func (s *streamConsumer) follow(ctx context.Context, from int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/changes?from_height=%d&follow=1&limit=5", s.rpc, from), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	s.mu.Lock()
	if s.breaks > 0 {
		s.reopened++
	}
	s.mu.Unlock()
	defer func() {
		if ctx.Err() == nil {
			s.mu.Lock()
			s.breaks++
			s.mu.Unlock()
		}
	}()
	var block []api.ChangeEvent
	dec := json.NewDecoder(resp.Body)
	for {
		var ev api.ChangeEvent
		if err := dec.Decode(&ev); err != nil {
			return err // block, possibly incomplete, is dropped
		}
		if len(block) > 0 && ev.Source.Height != block[0].Source.Height {
			s.mu.Lock()
			// Every block below ev's is complete.
			s.done = append(s.done, block...)
			s.next = ev.Source.Height
			s.mu.Unlock()
			block = nil
		}
		block = append(block, ev)
	}
}

// completeBelow returns the complete blocks' events once the consumer
// has every block below height h.
func (s *streamConsumer) completeBelow(h int64) ([]api.ChangeEvent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next < h {
		return nil, false
	}
	var out []api.ChangeEvent
	for _, ev := range s.done {
		if ev.Source.Height < h {
			out = append(out, ev)
		}
	}
	return out, true
}

// TestHistoryStreamSurvivesNodeRestart follows node 3's HTTP change
// stream while writes go on through node 0 and node 3 is stopped and
// restarted: the consumer resumes from its last complete block and ends
// with exactly the events the network's history holds, none lost, none
// twice.
func TestHistoryStreamSurvivesNodeRestart(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{dialect: "postgres"})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO acct SELECT i, 0 FROM generate_series(1, 20) AS s(i)"))

	cons := &streamConsumer{rpc: c.nodes[3].RPC}
	cctx, stopConsumer := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); cons.run(cctx) }()
	defer func() { stopConsumer(); wg.Wait() }()

	cl := c.client(0, c.admin)
	write := func(i int) {
		res, err := cl.Exec(ctx, client.ModeCommit, stmt(fmt.Sprintf("UPDATE acct SET bal = bal + 1 WHERE id <= %d", 1+i%20)))
		if err != nil || !res.OK() {
			t.Fatalf("write %d: %v %v", i, err, res)
		}
	}
	for i := range 10 {
		write(i)
	}
	if err := c.net.Stop(3); err != nil {
		t.Fatal(err)
	}
	for i := 10; i < 20; i++ {
		write(i)
	}
	if err := c.net.Start(3); err != nil {
		t.Fatal(err)
	}
	for i := 20; i < 30; i++ {
		write(i)
	}
	// A last block makes every earlier one complete for the consumer.
	sentinel := c.mustExecEverywhere(ctx, 0, stmt("UPDATE acct SET bal = -1 WHERE id = 1"))
	var got []api.ChangeEvent
	if err := waitFor(ctx, "the consumer to read every block below the sentinel", func() bool {
		var ok bool
		got, ok = cons.completeBelow(sentinel.Height)
		return ok
	}); err != nil {
		cons.mu.Lock()
		t.Fatalf("%v (the consumer is at height %d, the sentinel's %d; %d breaks)", err, cons.next, sentinel.Height, cons.breaks)
	}
	stopConsumer()
	wg.Wait()
	var want []api.ChangeEvent
	for _, ev := range allChangesOf(ctx, t, c.client(1, nil), 0) {
		if ev.Source.Height < sentinel.Height {
			want = append(want, ev)
		}
	}
	if cons.breaks == 0 || cons.reopened == 0 {
		t.Fatalf("the stream broke %d times and was reopened %d times: the restart was not seen", cons.breaks, cons.reopened)
	}
	requireSameEvents(t, "events followed across node3's restart", got, want)
	t.Logf("%d events over %d blocks, the stream broke %d times", len(got), sentinel.Height, cons.breaks)
	checkVersionsProvable(ctx, t, c, 3, want)
}

// checkVersionsProvable proves, on node i, row 1's version after each
// block that changed it, against that block's AppHash verified by the
// light client (issue 36, item 5): node i restarted, so the states before
// its restart are rebuilt from its row history.
func checkVersionsProvable(ctx context.Context, t *testing.T, c *cluster, i int, events []api.ChangeEvent) {
	t.Helper()
	root, err := lightverify.FromGenesis(filepath.Join(c.nodes[0].Home, "config", "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := lightverify.New(ctx, root, c.nodes[i].RPC, []string{c.nodes[0].RPC, c.nodes[1].RPC})
	if err != nil {
		t.Fatalf("light client: %v", err)
	}
	proved := 0
	for _, ev := range events {
		if fmt.Sprint(ev.Source.KeyValues) != "[1]" || ev.After == nil {
			continue
		}
		r, err := c.client(i, nil).VerifiedGet(ctx, v, client.VerifyOptions{Height: ev.Source.Height}, "acct", 1)
		if err != nil {
			t.Fatalf("row 1's version of height %d on node %d: %v", ev.Source.Height, i, err)
		}
		if len(r.Rows) != 1 || r.Height != ev.Source.Height || cell(t, r, 0, "bal") != fmt.Sprint(ev.After["bal"]) {
			t.Fatalf("row 1 at height %d: %+v, want bal %v", ev.Source.Height, r, ev.After["bal"])
		}
		proved++
	}
	if proved < 20 {
		t.Fatalf("%d versions of row 1 proved, want every one of the 30 writes' and more", proved)
	}
}
