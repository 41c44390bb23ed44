package node

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
)

// peerClients reaches the peers' RPC servers for the divergence watcher, over
// plain HTTP or TLS.
//
// A peer's node info gives its RPC listen address ("tcp://…") but not
// whether it serves TLS ([rpc] tls_cert_file in its config.toml), so an
// address is first asked over http; a peer that answers as a TLS server
// ("Client sent an HTTP request to an HTTPS server") is asked again over
// https and remembered.
//
// The peer's certificate is not verified: consortium members' RPC
// certificates come from CAs this node has no list of, and nothing the
// watcher reads needs the transport to vouch for it. A header counts only
// if its commit verifies against this node's validator set, and a peer's
// block results only if they hash to the results hash in that header. The
// RPC serves the same data to anyone who can reach it, so TLS here only
// keeps a passive observer from reading it.
type peerClients struct {
	plain, tls *http.Client
	servesTLS  map[string]bool // http:// address → its peer serves TLS
}

func newPeerClients() *peerClients {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} // see peerClients
	return &peerClients{
		plain:     &http.Client{Timeout: peerTimeout},
		tls:       &http.Client{Timeout: peerTimeout, Transport: tr},
		servesTLS: make(map[string]bool),
	}
}

// call runs f against the RPC of the peer at addr (http://host:port), over
// TLS if that peer serves it. Not safe for concurrent use.
func (p *peerClients) call(ctx context.Context, addr string, f func(context.Context, *rpchttp.HTTP) error) error {
	if p.servesTLS[addr] {
		return p.callOver(ctx, p.tls, httpsAddr(addr), f)
	}
	err := p.callOver(ctx, p.plain, addr, f)
	if err == nil || !answeredAsTLSServer(err) || !strings.HasPrefix(addr, "http://") {
		return err
	}
	if err = p.callOver(ctx, p.tls, httpsAddr(addr), f); err == nil {
		p.servesTLS[addr] = true
	}
	return err
}

func (p *peerClients) callOver(ctx context.Context, hc *http.Client, addr string, f func(context.Context, *rpchttp.HTTP) error) error {
	c, err := rpchttp.NewWithClient(addr, "/websocket", hc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, peerTimeout)
	defer cancel()
	return f(ctx, c)
}

func httpsAddr(addr string) string { return "https://" + strings.TrimPrefix(addr, "http://") }

// answeredAsTLSServer recognizes the answer of Go's TLS server (CometBFT's
// RPC with a certificate) to a plain HTTP request: an HTTP/1.0 400 whose
// body ("Client sent an HTTP request to an HTTPS server.") CometBFT's
// client reports only as not JSON. CometBFT's RPC answers HTTP/1.1.
func answeredAsTLSServer(err error) bool {
	return strings.Contains(err.Error(), "Status: 400 Bad Request, Protocol HTTP/1.0")
}
