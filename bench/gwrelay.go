package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/internal/tcprelay"
)

// relayReaders opens n pgx connections to dsn's server through a relay
// started here; stopping the relay is the caller's, after closing the
// readers.
func relayReaders(ctx context.Context, dsn string, n int) ([]pointReader, *tcprelay.Relay, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Hostname() == "" {
		return nil, nil, errors.New("relay readers: the reader DSN names no TCP host (a Unix socket cannot be relayed here)")
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	r, err := tcprelay.Start("127.0.0.1:0", target)
	if err != nil {
		return nil, nil, err
	}
	u.Host = r.Addr()
	out := make([]pointReader, 0, n)
	for range n {
		c, err := pgx.Connect(ctx, u.String())
		if err != nil {
			closeReaders(out)
			_ = r.Close()
			return nil, nil, fmt.Errorf("relay readers: connect through the relay: %w", err)
		}
		out = append(out, pgReader{c})
	}
	return out, r, nil
}
