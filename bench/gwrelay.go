package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/internal/tcprelay"
)

// relayReaders opens n pgx connections to dsn's server through a relay:
// a process of its own started with command (see
// GatewayOptions.RelayCommand), or one in this process if command is
// empty. stop ends the relay; the caller calls it after closing the
// readers.
func relayReaders(ctx context.Context, dsn string, n int, command []string) (readers []pointReader, stop func(), err error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Hostname() == "" {
		return nil, nil, errors.New("relay readers: the reader DSN names no TCP host (a Unix socket cannot be relayed here)")
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	var addr string
	if len(command) > 0 {
		addr, stop, err = startRelayProcess(ctx, command, target)
	} else {
		var r *tcprelay.Relay
		if r, err = tcprelay.Start("127.0.0.1:0", target); err == nil {
			addr, stop = r.Addr(), func() { _ = r.Close() }
		}
	}
	if err != nil {
		return nil, nil, err
	}
	u.Host = addr
	out := make([]pointReader, 0, n)
	for range n {
		c, err := pgx.Connect(ctx, u.String())
		if err != nil {
			closeReaders(out)
			stop()
			return nil, nil, fmt.Errorf("relay readers: connect through the relay: %w", err)
		}
		out = append(out, pgReader{c})
	}
	return out, stop, nil
}

// relayStartWait bounds how long a relay process may take to print its
// address.
const relayStartWait = 10 * time.Second

// startRelayProcess runs command --target target and returns the address
// it prints; stop closes its standard input and waits for it to end.
func startRelayProcess(ctx context.Context, command []string, target string) (addr string, stop func(), err error) {
	cmd := exec.CommandContext(ctx, command[0], append(command[1:], "--target", target)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, fmt.Errorf("relay process: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, fmt.Errorf("relay process: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("relay process %s: %w", command[0], err)
	}
	stop = func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case addr = <-line:
	case <-time.After(relayStartWait):
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		_ = cmd.Process.Kill()
		stop()
		return "", nil, fmt.Errorf("relay process %s printed no address within %s (got %q)", strings.Join(command, " "), relayStartWait, addr)
	}
	return addr, stop, nil
}
