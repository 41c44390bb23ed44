package e2e

import (
	"fmt"
	"net"
	"regexp"

	"github.com/relchain/relchain/internal/tcprelay"
)

var loopbackAddr = regexp.MustCompile(`(127\.0\.0\.1|localhost):([0-9]+)`)

// relayDSN starts a relay on host for the loopback server a DSN template
// names and returns the template pointing at the relay.
func relayDSN(host, tmpl string) (string, *tcprelay.Relay, error) {
	target := loopbackAddr.FindString(tmpl)
	if target == "" {
		return "", nil, fmt.Errorf("DSN template %q names no loopback server (127.0.0.1:port) to relay to", tmpl)
	}
	r, err := tcprelay.Start(net.JoinHostPort(host, "0"), target) // nodes in namespaces reach host, the server listens on loopback
	if err != nil {
		return "", nil, err
	}
	return loopbackAddr.ReplaceAllLiteralString(tmpl, r.Addr()), r, nil
}
