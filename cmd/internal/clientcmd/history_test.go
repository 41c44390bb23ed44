package clientcmd

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// readEvents decodes the JSON lines a history command printed.
func readEvents(t *testing.T, out []byte) []api.ChangeEvent {
	t.Helper()
	var evs []api.ChangeEvent
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var ev api.ChangeEvent
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("not a JSON event line: %v\n%s", err, out)
		}
		evs = append(evs, ev)
	}
	return evs
}

// relchain history prints a row's versions, relchain changes every
// version from a height on (and --follow the blocks that come), one JSON
// change event per line, with the tx that wrote each: on a one-node
// network of protocol version 4 in PostgreSQL's SQL on SQLite.
func TestHistoryAndChangesCommands(t *testing.T) {
	p := app.DefaultParams()
	p.ProtocolVersion, p.SQLDialect, p.SQLDialectVersion = protocol.V4, "postgres", pgdialect.Version
	url := startOneNodeWith(t, p)
	t.Setenv(NodeEnv, url)
	writer := signingClient(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var results []*client.Result
	for _, sql := range []string{"CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL)", "INSERT INTO acct VALUES (1, 'a')", "UPDATE acct SET name = 'b' WHERE id = 1", "DELETE FROM acct"} {
		res, err := writer.Exec(ctx, client.ModeCommit, txn.Statement{SQL: sql})
		if err != nil || res.Code != api.CodeOK {
			t.Fatalf("%s: %v %+v", sql, err, res)
		}
		results = append(results, res)
	}
	var out bytes.Buffer
	if err := runHistory(&historyFlags{timeout: time.Minute, target: &target{}}, []string{"acct", "1"}, &out); err != nil {
		t.Fatalf("relchain history acct 1: %v", err)
	}
	evs := readEvents(t, out.Bytes())
	if len(evs) != 3 || evs[0].Op != "c" || evs[1].Op != "u" || evs[2].Op != "d" || evs[1].Before["name"] != "a" || evs[1].After["name"] != "b" || evs[2].After != nil {
		t.Fatalf("relchain history acct 1:\n%s", out.Bytes())
	}
	for i, ev := range evs {
		if res := results[i+1]; ev.Source.Height != res.Height || !strings.EqualFold(ev.Source.TxHash, res.Hash) || ev.Source.Signer == "" {
			t.Fatalf("event %d names height %d tx %s, the tx was %s at height %d", i, ev.Source.Height, ev.Source.TxHash, res.Hash, res.Height)
		}
	}
	out.Reset()
	if err := runChanges(ctx, &changesFlags{from: results[2].Height, poll: time.Second, timeout: time.Minute, target: &target{}}, &out); err != nil {
		t.Fatalf("relchain changes: %v", err)
	}
	if evs := readEvents(t, out.Bytes()); len(evs) != 2 || evs[0].Op != "u" || evs[1].Op != "d" {
		t.Fatalf("relchain changes --from-height %d:\n%s", results[2].Height, out.Bytes())
	}
	out.Reset()
	fctx, fcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	var mu syncBuffer
	go func() {
		done <- runChanges(fctx, &changesFlags{from: results[3].Height + 1, follow: true, poll: 100 * time.Millisecond, target: &target{}}, &mu)
	}()
	res, err := writer.Exec(ctx, client.ModeCommit, txn.Statement{SQL: "INSERT INTO acct VALUES (2, 'c')"})
	if err != nil || res.Code != api.CodeOK {
		t.Fatalf("insert: %v", err)
	}
	for !strings.Contains(mu.String(), `"op":"c"`) {
		select {
		case <-ctx.Done():
			t.Fatalf("--follow printed no event of the new block: %s", mu.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	fcancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("--follow ended with %v", err)
	}
}

// signingClient is a client of url with a new key.
func signingClient(t *testing.T, url string) *client.Client {
	t.Helper()
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := client.New(url, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// syncBuffer is a bytes.Buffer that one goroutine writes while another
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
