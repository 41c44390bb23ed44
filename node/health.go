package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The node serves its metrics and health on the Prometheus listener of
// config.toml ([instrumentation] prometheus = true, prometheus_listen_addr):
//
//	/metrics  CometBFT's metrics (namespace [instrumentation] namespace) and relchain's (relchain_*)
//	/readyz   200 when caught up and executing, else 503; one line of JSON either way
//	/livez    200 while the process serves
//
// CometBFT's own Prometheus server is not started (it answers every path
// with metrics, and the node could not add health to it): relchain takes
// its address and serves CometBFT's registry there too.

// promServer is the node's Prometheus and health listener.
type promServer struct {
	srv *http.Server
	ln  net.Listener
}

// takePrometheus keeps CometBFT from starting its own Prometheus server and
// returns the instrumentation CometBFT's metrics must be built with (still
// Prometheus ones when enabled) and the address relchain serves on ("":
// none).
func takePrometheus(cc *cmtcfg.Config) (*cmtcfg.InstrumentationConfig, string) {
	inst := *cc.Instrumentation
	addr := ""
	if inst.IsPrometheusEnabled() {
		addr = inst.PrometheusListenAddr
	}
	cc.Instrumentation.Prometheus = false
	return &inst, addr
}

// startPrometheus listens on addr and serves /metrics, /readyz and /livez.
func (n *Node) startPrometheus(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("prometheus_listen_addr %s: %w", addr, err)
	}
	gather := prometheus.Gatherers{prometheus.DefaultGatherer, n.metrics.reg}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(gather, promhttp.HandlerOpts{MaxRequestsInFlight: 10}))
	mux.HandleFunc("/readyz", n.serveReady)
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) {
		writeHealth(w, http.StatusOK, map[string]any{"live": true})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	n.prom = &promServer{srv: srv, ln: ln}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.logger.Error("metrics and health listener stopped", "addr", addr, "err", err)
		}
	}()
	n.logger.Info("serving metrics and health", "addr", ln.Addr().String(), "paths", "/metrics /readyz /livez")
	return nil
}

// stopPrometheus shuts the listener down, waiting briefly for scrapes.
func (n *Node) stopPrometheus() {
	if n.prom == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = n.prom.srv.Shutdown(ctx)
}

// PrometheusAddr is where the node serves /metrics, /readyz and /livez
// ("" when [instrumentation] prometheus is off or before Start).
func (n *Node) PrometheusAddr() string {
	if n.prom == nil {
		return ""
	}
	return n.prom.ln.Addr().String()
}

func (n *Node) serveReady(w http.ResponseWriter, _ *http.Request) {
	if reason := n.readiness(); reason != "" {
		writeHealth(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "reason": reason})
		return
	}
	body := map[string]any{"ready": true}
	if n.app != nil {
		body["height"] = n.app.Executor().State().Height
	}
	writeHealth(w, http.StatusOK, body)
}

func writeHealth(w http.ResponseWriter, code int, body map[string]any) {
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// readiness is "" when the node is ready to serve (consensus running and
// caught up, blocks executing), else why not, on one line.
func (n *Node) readiness() string {
	if kind, msg := n.haltState(); kind != "" {
		return fmt.Sprintf("halted (%s): %s", kind, oneLine(msg, 300))
	}
	select {
	case <-n.stopping:
		return "stopping"
	default:
	}
	if n.app != nil {
		if db := n.app.Executor().DatabaseStatus(); db.Unavailable {
			return fmt.Sprintf("database unavailable for %s, retrying the block: %s",
				time.Since(db.Since).Round(time.Second), oneLine(db.Reason, 300))
		}
	}
	if n.consensusEnded.Load() {
		if cause := n.panics.cause(); cause != "" {
			return "consensus stopped: " + oneLine(cause, 300)
		}
		return "consensus stopped"
	}
	if !n.cmt.IsRunning() {
		return "not started"
	}
	if r := n.cmt.ConsensusReactor(); r != nil && r.WaitSync() {
		return "catching up: block sync or state sync in progress"
	}
	return ""
}

// oneLine cuts s at its first line break and at max bytes.
func oneLine(s string, limit int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

// haltKind classifies a reason to halt for metrics and /readyz.
func haltKind(err error) string {
	// An upgrade stop stays apply_failed, as before it had a halt record
	// kind of its own: docs/operate.md lists the reasons.
	if r := haltRecordOf(err, 0); r.Fault() {
		return r.Kind
	}
	if errors.Is(err, ErrDiskFull) {
		return "disk_full"
	}
	if errors.Is(err, ErrConsensusStopped) {
		return "consensus_stopped"
	}
	return "apply_failed"
}

// haltInfo is the first reason the node halted, for metrics and /readyz.
type haltInfo struct{ kind, msg string }

// haltState is the first reason the node halted: kind and message, or "".
func (n *Node) haltState() (kind, msg string) {
	if h := n.haltedWith.Load(); h != nil {
		return h.kind, h.msg
	}
	return "", ""
}
