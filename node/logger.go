package node

import (
	"fmt"
	"os"
	"strings"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmtflags "github.com/cometbft/cometbft/libs/cli/flags"
	"github.com/cometbft/cometbft/libs/log"
)

// newLogger is the logger config.toml asks for: log_format ("plain" or
// "json": one JSON object a line, CometBFT's TMJSONLogger) and log_level,
// on standard output.
func newLogger(cc *cmtcfg.Config) (log.Logger, error) {
	w := log.NewSyncWriter(os.Stdout)
	var logger log.Logger
	switch cc.LogFormat {
	case cmtcfg.LogFormatJSON:
		logger = log.NewTMJSONLogger(w)
	case cmtcfg.LogFormatPlain, "":
		logger = log.NewTMLogger(w)
	default:
		return nil, fmt.Errorf("log_format in config.toml: %q is neither %q nor %q", cc.LogFormat, cmtcfg.LogFormatPlain, cmtcfg.LogFormatJSON)
	}
	logger, err := cmtflags.ParseLogLevel(cc.LogLevel, logger, cmtcfg.DefaultLogLevel)
	if err != nil {
		return nil, fmt.Errorf("log_level in config.toml: %w", err)
	}
	return logger, nil
}

// quietLogger logs at info level the errors CometBFT v0.38 reports for
// events that are normal for a node: a peer or a websocket client going
// away, and its own services stopping twice or closing their listeners
// when the node stops. Everything else passes unchanged. An error line in
// a relchain node's log is then something an operator must look at.
//
// It also notes the panic CometBFT's consensus ended with (panics), which
// the node reaches nowhere else: a full disk then stops the node at once
// (diskfull.go).
type quietLogger struct {
	next   log.Logger
	panics *panicNote // shared by every logger With derives
}

func quiet(l log.Logger) log.Logger {
	if _, ok := l.(*quietLogger); ok {
		return l
	}
	return &quietLogger{next: l, panics: &panicNote{}}
}

func (q *quietLogger) Debug(msg string, kv ...any) { q.next.Debug(msg, kv...) }
func (q *quietLogger) Info(msg string, kv ...any)  { q.next.Info(msg, kv...) }
func (q *quietLogger) With(kv ...any) log.Logger {
	return &quietLogger{next: q.next.With(kv...), panics: q.panics}
}

func (q *quietLogger) Error(msg string, kv ...any) {
	if msg == consensusFailureMsg {
		q.panics.note(errText(kv))
	}
	if benignError(msg, errText(kv)) {
		q.next.Info(msg, kv...)
		return
	}
	q.next.Error(msg, kv...)
}

// errText is the text of the "err" or "error" value among keyvals.
func errText(kv []any) string {
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok && (k == "err" || k == "error") {
			return fmt.Sprint(kv[i+1])
		}
	}
	return ""
}

// goneErrors are how a connection whose other end left (or that this node
// closed while stopping) ends.
var goneErrors = []string{"EOF", "use of closed network connection", "connection reset by peer",
	"broken pipe", "websocket: close 1000", "websocket: close 1001", "websocket: close 1005", "websocket: close 1006"}

func gone(err string) bool {
	for _, g := range goneErrors {
		if strings.Contains(err, g) {
			return true
		}
	}
	return false
}

// benignError reports whether one of CometBFT's error lines is a normal
// event (see quietLogger). The messages are CometBFT v0.38's own.
func benignError(msg, err string) bool {
	switch msg {
	case "error while stopping connection", // websocket: its read routine stopped it already
		"error while stopping peer", // p2p: stopped by the other side's error already
		"Error stopping pool":       // blocksync: stopped when switching to consensus
		return strings.Contains(err, "already stopped")
	case "Failed to read request", // websocket client left
		"Stopping peer for error",    // peer left
		"Error serving server",       // RPC listener closed on stop
		"Failed to close connection": // websocket: closed by the client or the stopping read routine already
		return gone(err)
	case "Failed to add block": // blocksync: a block asked twice (to two peers) that the node already applied
		return strings.Contains(err, "got an already committed block")
	case "Error stopping consensus state": // stopped while block- or state-syncing
		return strings.Contains(err, "not started")
	case "Error dialing peer": // a peer not (yet, or no longer) listening; CometBFT retries
		// or already connected the other way round (both dialled at once)
		return strings.Contains(err, "connection refused") || strings.Contains(err, "duplicate ID") || gone(err)
	case "Stopped accept routine, as transport is closed", // p2p listener closed on stop
		"Won't start a peer - switch is not running": // a peer dialled in while the node stopped
		return true
	}
	// BaseService.Stop of a service stopped already or never started
	// (consensus while the node still synced).
	return strings.HasPrefix(msg, "Not stopping ") &&
		(strings.HasSuffix(msg, "has not been started yet") || strings.HasSuffix(msg, "already stopped"))
}
