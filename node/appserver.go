package node

import (
	"context"
	"errors"

	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/abciserver"
	"github.com/relchain/relchain/app"
)

// AppServer is relchain's application of a node home served over ABCI's
// socket protocol, without CometBFT: a separate CometBFT process (a stock
// `cometbft node --proxy_app ADDR` of the pinned version, on the same
// home) drives it. The relchain node's own watchers (the divergence
// watcher, automatic recovery) run in the node process, so they are not
// available here: CometBFT itself stops on an AppHash mismatch.
type AppServer struct {
	app *app.App
	ss  *stateSync
	srv *abciserver.Server
}

// NewAppServer opens the home's database and serves the application on
// addr ("tcp://127.0.0.1:26658", "unix:///path/app.sock").
func NewAppServer(ctx context.Context, home, addr string, logger log.Logger) (*AppServer, error) {
	_, rc, gen, logger, err := loadHome(home, logger)
	if err != nil {
		return nil, err
	}
	a, ss, err := buildApp(ctx, home, rc, gen, logger)
	if err != nil {
		return nil, err
	}
	srv, err := abciserver.Listen(addr, a, logger.With("module", "abci-server"))
	if err != nil {
		_ = closeApp(a, ss)
		return nil, err
	}
	logger.Info("serving relchain over ABCI's socket protocol", "addr", srv.Addr())
	return &AppServer{app: a, ss: ss, srv: srv}, nil
}

// Addr is the address CometBFT's proxy_app must name.
func (s *AppServer) Addr() string { return s.srv.Addr() }

// Halted delivers the error of a block the application could not apply or
// commit (see app.App.Halted).
func (s *AppServer) Halted() <-chan error { return s.app.Halted() }

// Close stops serving and closes the database.
func (s *AppServer) Close() error {
	// A request waiting for an unavailable database returns, so that
	// the server's connections can end.
	s.app.Executor().StopRetrying()
	return errors.Join(s.srv.Close(), closeApp(s.app, s.ss))
}
