package node

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/libs/log"
)

// A state-syncing node logs its progress once per tenth of the snapshot's
// chunks (its log is where an operator watches a join).
func TestStateSyncLogsProgressPerTenth(t *testing.T) {
	var buf bytes.Buffer
	s := &stateSync{logger: log.NewTMLogger(&buf), total: 25}
	for range 25 {
		s.chunkAccepted()
	}
	lines := strings.Count(buf.String(), "state sync: receiving the snapshot")
	if lines != 10 {
		t.Fatalf("%d progress lines for 25 chunks, want 10:\n%s", lines, buf.String())
	}
	for _, want := range []string{"chunks=3/25", "percent=12", "chunks=25/25", "percent=100"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in the progress lines:\n%s", want, buf.String())
		}
	}
}
