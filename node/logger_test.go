package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/libs/log"
)

// CometBFT's errors for normal events (a peer or client leaving, services
// stopped twice on stop) are logged at info; real errors stay errors.
func TestQuietLoggerDemotesOnlyNormalEvents(t *testing.T) {
	var buf bytes.Buffer
	l := quiet(log.NewTMJSONLogger(&buf)).With("module", "p2p")
	l.Error("error while stopping peer", "error", errors.New("already stopped"))
	l.Error("Stopping peer for error", "peer", "x", "err", "EOF")
	l.Error("Failed to read request", "err", errors.New("websocket: close 1006 (abnormal closure): unexpected EOF"))
	l.Error("Failed to close connection", "protocol", "websocket", "err", "close tcp 127.0.0.1:46279->127.0.0.1:37702: use of closed network connection")
	l.Error("Failed to add block", "peer", "x", "err", "got an already committed block #71 (possibly from the slow peer 4bace2f9)")
	l.Error("Stopping peer for error", "peer", "x", "err", errors.New("invalid block part"))
	l.Error("Failed to add block", "peer", "x", "err", "peer sent us block #90 we didn't expect (current height: 80, start height: 70)")
	l.Error("CONSENSUS FAILURE!!!", "err", "boom")
	var levels []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		if obj["module"] != "p2p" {
			t.Errorf("With lost its keyvals: %s", line)
		}
		levels = append(levels, obj["level"].(string))
	}
	if got, want := strings.Join(levels, " "), "info info info info info error error error"; got != want {
		t.Fatalf("levels %q, want %q", got, want)
	}
}
