package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmtpubsub "github.com/cometbft/cometbft/libs/pubsub"
	rpcserver "github.com/cometbft/cometbft/rpc/jsonrpc/server"
)

// The node serves CometBFT's RPC itself, with CometBFT's handlers, instead
// of letting CometBFT start it: CometBFT v0.38 closes its RPC listeners on
// stop but never shuts its http.Server down, so requests on connections
// kept alive (a client polling status, a peer's divergence watcher) go on
// being served after it closed its block and state stores, and panic
// there ("panic in RPC HTTP handler … leveldb: closed"). Node.Stop shuts
// this server down, and closes the websockets it handed over, before it
// stops CometBFT. A configuration this does not reproduce (TLS, CORS, the
// gRPC listener) keeps CometBFT's own server.

// rpcServer is the node's RPC listener(s).
type rpcServer struct {
	srvs []*http.Server
	mu   sync.Mutex
	ws   map[net.Conn]struct{} // serving websockets
}

// takeRPC keeps CometBFT from starting its RPC server and returns the
// address(es) the node serves it on ("": CometBFT serves it). Call after
// nm.NewNode, which has put the address into the node's p2p info.
func takeRPC(cc *cmtcfg.Config) string {
	r := cc.RPC
	if r.ListenAddress == "" || r.IsTLSEnabled() || r.IsCorsEnabled() || r.GRPCListenAddress != "" {
		return ""
	}
	addr := r.ListenAddress
	r.ListenAddress = ""
	return addr
}

// startRPC serves CometBFT's routes on addrs (comma-separated), as
// CometBFT's own startRPC does.
func (n *Node) startRPC(addrs string) error {
	env, err := n.cmt.ConfigureRPC()
	if err != nil {
		return fmt.Errorf("configure rpc: %w", err)
	}
	cfg := n.cmt.Config().RPC
	routes := env.GetRoutes()
	if cfg.Unsafe {
		env.AddUnsafeRoutes(routes)
	}
	sc := rpcserver.DefaultConfig()
	sc.MaxRequestBatchSize, sc.MaxBodyBytes, sc.MaxHeaderBytes = cfg.MaxRequestBatchSize, cfg.MaxBodyBytes, cfg.MaxHeaderBytes
	sc.MaxOpenConnections = cfg.MaxOpenConnections
	if sc.WriteTimeout <= cfg.TimeoutBroadcastTxCommit {
		sc.WriteTimeout = cfg.TimeoutBroadcastTxCommit + time.Second
	}
	rs := &rpcServer{ws: make(map[net.Conn]struct{})}
	n.rpc = rs
	rpcLogger := n.logger.With("module", "rpc-server")
	wsLogger := rpcLogger.With("protocol", "websocket")
	for _, addr := range strings.Split(addrs, ",") {
		if addr = strings.TrimSpace(addr); addr == "" {
			continue
		}
		mux := http.NewServeMux()
		wm := rpcserver.NewWebsocketManager(routes,
			rpcserver.OnDisconnect(func(remote string) {
				if err := env.EventBus.UnsubscribeAll(context.Background(), remote); err != nil && !errors.Is(err, cmtpubsub.ErrSubscriptionNotFound) {
					wsLogger.Error("Failed to unsubscribe addr from events", "addr", remote, "err", err)
				}
			}),
			rpcserver.ReadLimit(sc.MaxBodyBytes),
			rpcserver.WriteChanCapacity(cfg.WebSocketWriteBufferSize))
		wm.SetLogger(wsLogger)
		mux.HandleFunc("/websocket", func(w http.ResponseWriter, r *http.Request) {
			// The handler returns when the websocket ends.
			c, _ := r.Context().Value(connKey{}).(net.Conn)
			rs.add(c)
			defer rs.remove(c)
			wm.WebsocketHandler(w, r)
		})
		rpcserver.RegisterRPCFuncs(mux, routes, rpcLogger)
		ln, err := rpcserver.Listen(addr, sc.MaxOpenConnections)
		if err != nil {
			return fmt.Errorf("rpc listener %s: %w", addr, err)
		}
		// The change stream (changestream.go) bypasses CometBFT's
		// wrappers, whose response writer cannot flush.
		top := http.NewServeMux()
		top.HandleFunc("/changes", n.serveChangeStream)
		top.Handle("/", rpcserver.PreChecksHandler(rpcserver.RecoverAndLogHandler(mux, rpcLogger), sc))
		srv := &http.Server{
			Handler:     top,
			ReadTimeout: sc.ReadTimeout, ReadHeaderTimeout: sc.ReadTimeout, WriteTimeout: sc.WriteTimeout,
			MaxHeaderBytes: sc.MaxHeaderBytes,
			ConnContext: func(ctx context.Context, c net.Conn) context.Context {
				return context.WithValue(ctx, connKey{}, c)
			},
		}
		rs.srvs = append(rs.srvs, srv)
		rpcLogger.Info("serving RPC", "addr", ln.Addr().String())
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				rpcLogger.Error("RPC server stopped", "err", err)
			}
		}()
	}
	return nil
}

// connKey is the request context's key of its connection.
type connKey struct{}

// add and remove keep the connections serving websockets, which
// Shutdown does not know of once they were handed over.
func (s *rpcServer) add(c net.Conn) {
	if c == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ws[c] = struct{}{}
}

func (s *rpcServer) remove(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ws, c)
}

// stop stops accepting, lets requests in progress finish (a few seconds
// at most) and closes every connection, websockets included.
func (s *rpcServer) stop() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range s.srvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if srv.Shutdown(ctx) != nil {
				_ = srv.Close()
			}
		}()
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.ws {
		_ = c.Close()
	}
	clear(s.ws)
}
