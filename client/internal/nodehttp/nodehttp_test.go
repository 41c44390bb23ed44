package nodehttp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// closingNode is an HTTP server that answers the first request on each
// connection and closes the connection, unanswered, when a second request
// comes on it: what a client sees when a node's idle timeout closes a
// kept connection just as a request goes out on it. It counts the
// connections it accepted.
func closingNode(t *testing.T) (url string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for served := 0; ; served++ {
					req, err := http.ReadRequest(br)
					if err != nil || served == 1 {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					body := `{"jsonrpc":"2.0","id":1,"result":{}}`
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), conns
}

// A read sent on a kept connection that the node closes as it arrives is
// sent again on a new connection; a broadcast is not (sent twice, the node
// would refuse the second as already seen).
func TestAReadOnAConnectionTheNodeClosedIsSentAgain(t *testing.T) {
	url, conns := closingNode(t)
	hc, err := Client(url, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	call := func(method string) error {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"path":"/query","data":"00"}}`
		resp, err := hc.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	for i := range 3 {
		if err := call("abci_query"); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	if n := conns.Load(); n != 3 {
		t.Fatalf("connections: %d, want 3 (each read after the first on a kept connection the node closed, then on a new one)", n)
	}
	if err := call("broadcast_tx_sync"); err == nil {
		t.Fatal("a broadcast on a connection the node closed succeeded: it was sent again")
	}
}

func TestRPCMethodOfARequest(t *testing.T) {
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"abci_query","params":{}}`:                 "abci_query",
		`{"jsonrpc":"2.0","id":7,"method":"broadcast_tx_sync","params":{}}`:          "broadcast_tx_sync",
		`[{"jsonrpc":"2.0","id":7,"method":"abci_query","params":{}}]`:               "",
		`{"jsonrpc":"2.0","id":7,"params":{"x":"` + strings.Repeat("a", 300) + `"}}`: "",
	} {
		req, err := http.NewRequest(http.MethodPost, "http://node", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := rpcMethod(req); got != want {
			t.Errorf("method of %.60s…: %q, want %q", body, got, want)
		}
	}
}
