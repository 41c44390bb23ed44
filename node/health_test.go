package node

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// A running node serves /livez, /readyz (200) and relchain's metrics with
// CometBFT's on its Prometheus listener; once it stopped executing (here an
// out-of-band write on a one-validator network), /readyz answers 503 with
// the reason on one line of JSON and relchain_halted says why. (CometBFT
// registers its metrics in Prometheus's global registry, where a name may
// be registered once per process: a run after the first, with -count > 1,
// gives them a namespace of its own.)
func TestReadyzAndMetricsFollowTheNode(t *testing.T) {
	ns := "cometbft"
	if run := promTestRuns.Add(1); run > 1 {
		ns = fmt.Sprintf("cometbft_run%d", run)
	}
	home, url := oneValidator(t)
	cc, rc, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	cc.Instrumentation.Prometheus, cc.Instrumentation.PrometheusListenAddr = true, "127.0.0.1:0"
	cc.Instrumentation.Namespace = ns
	if err := SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
	n := mustStartNode(t, home)
	defer func() { _ = n.Stop() }()
	base := "http://" + n.PrometheusAddr()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, p := range []string{"/livez", "/readyz"} {
		if code, body := get(t, base+p); code != http.StatusOK {
			t.Fatalf("%s of a running node: %d %s", p, code, body)
		}
	}
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := client.New(url, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)", "INSERT INTO acct VALUES (1, 100)"} {
		if res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: sql}); err != nil || !res.OK() {
			t.Fatalf("%s: %v %+v", sql, err, res)
		}
	}
	_, metrics := get(t, base+"/metrics")
	for _, want := range []string{`relchain_txs_total{code="ok"} 2`, "relchain_block_execute_seconds_count", "relchain_ready 1",
		"relchain_checkpoint_height", `relchain_halted{reason=""} 0`, ns + "_consensus_height"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	outOfBandUpdate(t, rc.SQLitePath(home), "UPDATE acct SET bal = 7 WHERE id = 1")
	if _, err := c.Exec(ctx, client.ModeSync, txn.Statement{SQL: "INSERT INTO acct VALUES (2, 1)"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Halted():
	case <-ctx.Done():
		t.Fatal("the node did not stop after an out-of-band write")
	}
	code, body := get(t, base+"/readyz")
	var r struct {
		Ready  bool   `json:"ready"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || code != http.StatusServiceUnavailable || r.Ready ||
		!strings.Contains(r.Reason, "out_of_band") || strings.Count(body, "\n") != 1 {
		t.Fatalf("/readyz of a halted node: %d %q (%v), want 503 and one JSON line naming out_of_band", code, body, err)
	}
	if _, metrics := get(t, base+"/metrics"); !strings.Contains(metrics, `relchain_halted{reason="out_of_band"} 1`) || !strings.Contains(metrics, "relchain_ready 0") {
		t.Errorf("/metrics of a halted node lacks relchain_halted{reason=\"out_of_band\"} 1 or relchain_ready 0")
	}
	if code, _ := get(t, base+"/livez"); code != http.StatusOK {
		t.Errorf("/livez of a halted node that still serves: %d", code)
	}
}

var promTestRuns atomic.Int64

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	cl := http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
