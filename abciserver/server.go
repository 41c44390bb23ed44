package abciserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	cmtnet "github.com/cometbft/cometbft/libs/net"
)

// Server serves one ABCI application on one listener.
type Server struct {
	app    types.Application
	ln     net.Listener
	logger log.Logger

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Serve starts serving app on ln and returns at once; Close stops it. A
// nil logger logs nothing.
func Serve(ln net.Listener, app types.Application, logger log.Logger) *Server {
	if logger == nil {
		logger = log.NewNopLogger()
	}
	s := &Server{app: app, ln: ln, logger: logger, conns: make(map[net.Conn]struct{})}
	s.wg.Add(1)
	go s.accept()
	return s
}

// Listen listens on addr ("tcp://127.0.0.1:26658", "unix:///path/app.sock",
// or "host:port" for TCP) and serves app there.
func Listen(addr string, app types.Application, logger log.Logger) (*Server, error) {
	proto, address := cmtnet.ProtocolAndAddress(addr)
	ln, err := net.Listen(proto, address)
	if err != nil {
		return nil, fmt.Errorf("abci server: listen on %s: %w", addr, err)
	}
	return Serve(ln, app, logger), nil
}

// Addr is the address the server listens on, as a proxy_app address
// ("tcp://127.0.0.1:PORT" or "unix://PATH").
func (s *Server) Addr() string {
	a := s.ln.Addr()
	return a.Network() + "://" + a.String()
}

// Close stops accepting, closes every connection and waits until no
// request is being handled.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return
			}
			s.logger.Error("abci server: accept", "err", err)
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// serve answers one connection's requests in order. Responses are buffered
// and written out at each Flush request, as CometBFT's client expects.
func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		req := &types.Request{}
		if err := types.ReadMessage(r, req); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.logger.Error("abci server: read request", "err", err)
			}
			return
		}
		res, err := s.handle(context.Background(), req)
		if err != nil {
			// As CometBFT's server: the client stops on an exception.
			s.logger.Error("abci server: the application failed a request; closing the connection", "request", fmt.Sprintf("%T", req.Value), "err", err)
			res = types.ToResponseException(err.Error())
		}
		if err := types.WriteMessage(res, w); err != nil {
			s.logger.Error("abci server: write response", "err", err)
			return
		}
		_, flush := req.Value.(*types.Request_Flush)
		if flush || res.GetException() != nil {
			if err := w.Flush(); err != nil {
				s.logger.Error("abci server: flush responses", "err", err)
				return
			}
		}
		if res.GetException() != nil {
			return
		}
	}
}

// handle calls the application for one request.
func (s *Server) handle(ctx context.Context, req *types.Request) (*types.Response, error) {
	a := s.app
	switch r := req.Value.(type) {
	case *types.Request_Echo:
		return types.ToResponseEcho(r.Echo.Message), nil
	case *types.Request_Flush:
		return types.ToResponseFlush(), nil
	case *types.Request_Info:
		return wrap(a.Info(ctx, r.Info))(types.ToResponseInfo)
	case *types.Request_CheckTx:
		return wrap(a.CheckTx(ctx, r.CheckTx))(types.ToResponseCheckTx)
	case *types.Request_Query:
		return wrap(a.Query(ctx, r.Query))(types.ToResponseQuery)
	case *types.Request_InitChain:
		return wrap(a.InitChain(ctx, r.InitChain))(types.ToResponseInitChain)
	case *types.Request_PrepareProposal:
		return wrap(a.PrepareProposal(ctx, r.PrepareProposal))(types.ToResponsePrepareProposal)
	case *types.Request_ProcessProposal:
		return wrap(a.ProcessProposal(ctx, r.ProcessProposal))(types.ToResponseProcessProposal)
	case *types.Request_FinalizeBlock:
		return wrap(a.FinalizeBlock(ctx, r.FinalizeBlock))(types.ToResponseFinalizeBlock)
	case *types.Request_ExtendVote:
		return wrap(a.ExtendVote(ctx, r.ExtendVote))(types.ToResponseExtendVote)
	case *types.Request_VerifyVoteExtension:
		return wrap(a.VerifyVoteExtension(ctx, r.VerifyVoteExtension))(types.ToResponseVerifyVoteExtension)
	case *types.Request_Commit:
		return wrap(a.Commit(ctx, r.Commit))(types.ToResponseCommit)
	case *types.Request_ListSnapshots:
		return wrap(a.ListSnapshots(ctx, r.ListSnapshots))(types.ToResponseListSnapshots)
	case *types.Request_OfferSnapshot:
		return wrap(a.OfferSnapshot(ctx, r.OfferSnapshot))(types.ToResponseOfferSnapshot)
	case *types.Request_LoadSnapshotChunk:
		return wrap(a.LoadSnapshotChunk(ctx, r.LoadSnapshotChunk))(types.ToResponseLoadSnapshotChunk)
	case *types.Request_ApplySnapshotChunk:
		return wrap(a.ApplySnapshotChunk(ctx, r.ApplySnapshotChunk))(types.ToResponseApplySnapshotChunk)
	}
	return nil, fmt.Errorf("unknown ABCI request %T", req.Value)
}

// wrap turns an application call's (result, error) into the response the
// given constructor builds, or the error.
func wrap[T any](res T, err error) func(func(T) *types.Response) (*types.Response, error) {
	return func(to func(T) *types.Response) (*types.Response, error) {
		if err != nil {
			return nil, err
		}
		return to(res), nil
	}
}
