package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/netctl"
)

// TestHistoryOfANodeJoinedByStateSync adds a full node by state sync: its
// history starts at its join, a read below that start is refused naming
// it (`relchain changes`, the HTTP stream), and from the start on its
// events are a validator's.
func TestHistoryOfANodeJoinedByStateSync(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{dialect: "postgres", checkpointEvery: 10})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO acct SELECT i, 0 FROM generate_series(1, 10) AS s(i)"))
	loaded := c.maxHeight(ctx, 0)
	// Blocks come only with txs: a writer keeps them coming, for the
	// checkpoints, the headers that verify a snapshot and the joiner to
	// catch up with.
	stopWriting := keepWriting(ctx, t, c, "UPDATE acct SET bal = bal + 1 WHERE id = 1")
	if err := waitFor(ctx, "a checkpoint", func() bool { return c.newestCheckpoint(t, 0) >= loaded }); err != nil {
		t.Fatal(err)
	}
	info, err := netctl.AddNode(ctx, netctl.JoinOptions{Dir: c.dir, Name: "node4", StateSync: true})
	if err != nil {
		t.Fatal(err)
	}
	joiner := c.net.Add(info)
	c.nodes = c.net.Nodes
	if err := c.net.Start(joiner); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, "node4 to restore a snapshot", func() bool {
		log, _ := os.ReadFile(c.net.LogFile(joiner))
		return strings.Contains(string(log), "restored and verified the snapshot") || !c.net.Running(joiner)
	}); err != nil {
		log0, _ := os.ReadFile(c.net.LogFile(joiner))
		var lines []string
		for _, l := range strings.Split(string(log0), "\n") {
			if (strings.Contains(strings.ToLower(l), "snapshot") || strings.Contains(l, "checkpoint")) && !strings.Contains(l, "Discovering") {
				lines = append(lines, l)
			}
		}
		t.Fatalf("%v; node4 on snapshots:\n%s", err, strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
	if stopWriting() == 0 {
		t.Fatal("no write went on during the join")
	}
	// Writes after it joined, until it has committed them.
	for i := range 4 {
		c.mustExec(ctx, 0, stmt(fmt.Sprintf("UPDATE acct SET bal = bal * 2 WHERE id <= %d", 2+i)))
	}
	last := c.mustExecEverywhere(ctx, 1, stmt("DELETE FROM acct WHERE id = 10"))
	resp, err := c.client(joiner, nil).Changes(ctx, api.ChangesRequest{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	start := resp.Start
	if start <= 2 || start > last.Height {
		t.Fatalf("node4's history starts at %d (the last write at %d): want its join height", start, last.Height)
	}
	log, _ := os.ReadFile(c.net.LogFile(joiner))
	if !strings.Contains(string(log), "restored and verified the snapshot") {
		t.Fatalf("node4 did not join by state sync:\n%s", tail(log, 3000))
	}
	wantErr := fmt.Sprintf("the history starts at height %d", start)
	run := relchainCLI(t, nil, "", "changes", "--node", info.RPC, "--from-height", "1")
	if run.code == 0 || !strings.Contains(run.stderr, wantErr) || run.stdout != "" {
		t.Fatalf("relchain changes --from-height 1 on node4: exit %d, stdout %q, stderr %q; want an error naming %q", run.code, run.stdout, run.stderr, wantErr)
	}
	code, body := getChanges(ctx, t, info.RPC, "from_height=1&follow=1")
	var refused struct {
		Error string
		Start int64
	}
	if code != http.StatusGone || json.Unmarshal([]byte(body), &refused) != nil || refused.Start != start || !strings.Contains(refused.Error, wantErr) {
		t.Fatalf("GET /changes?from_height=1 on node4: %d %s; want 410 naming start %d", code, body, start)
	}
	want := allChangesOf(ctx, t, c.client(2, nil), start)
	if len(want) == 0 {
		all, err := c.client(2, nil).Changes(ctx, api.ChangesRequest{Limit: api.MaxHistoryLimit})
		var hs []int64
		for _, ev := range all.Events {
			hs = append(hs, ev.Source.Height)
		}
		t.Fatalf("no change from node4's start %d on (node2: start %d end %d next %d heights %v, err %v; last write at %d)", start, all.Start, all.End, all.Next, hs, err, last.Height)
	}
	// The first version of a row the joiner recorded cannot know the row
	// before its start (docs/history-and-changes.md): before is null
	// there, and only there.
	want = withoutFirstBefore(want)
	requireSameEvents(t, "node4's changes from its start", allChangesOf(ctx, t, c.client(joiner, nil), start), want)
	requireSameEvents(t, "node4's HTTP stream from its start", streamChangesHTTP(ctx, t, info.RPC, start), want)
	requireSameEvents(t, "node4's HTTP stream from 0", streamChangesHTTP(ctx, t, info.RPC, 0), want)
	run = relchainCLI(t, nil, "", "changes", "--node", info.RPC, "--from-height", fmt.Sprint(start))
	if run.code != 0 || strings.Count(run.stdout, "\n") != len(want) {
		t.Fatalf("relchain changes --from-height %d on node4: exit %d, %d lines (want %d), stderr %q", start, run.code, strings.Count(run.stdout, "\n"), len(want), run.stderr)
	}
}

// withoutFirstBefore is evs with the first event of each row (table, key)
// stripped of its before image, as a node whose history starts at evs'
// first height reports it.
func withoutFirstBefore(evs []api.ChangeEvent) []api.ChangeEvent {
	seen := map[string]bool{}
	out := make([]api.ChangeEvent, len(evs))
	for i, ev := range evs {
		k := ev.Source.Table + "\x00" + ev.Source.Key
		if !seen[k] {
			seen[k] = true
			ev.Before, ev.Source.BeforeKnown = nil, false
		}
		out[i] = ev
	}
	return out
}
