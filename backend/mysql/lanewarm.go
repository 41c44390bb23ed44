package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/relchain/relchain/backend"
)

var _ backend.LaneWarmer = (*Backend)(nil)

// WarmLanes implements backend.LaneWarmer: between blocks it makes the
// lane pool hold n-1 open connections, so that a parallel block does not
// connect (and run each connection's session set-up) on its own path. It
// does nothing where lanes cannot run (MySQL, the mysql dialect), while a
// block is open, or when the pool holds enough idle connections already.
// A connection the block path then takes is any idle one: nothing of a
// block's outcome depends on which.
func (b *Backend) WarmLanes(ctx context.Context, n int) error {
	want := min(n-1, laneWarmMax)
	b.mu.Lock()
	skip := b.closed || b.open != nil || !b.opts.pg || !b.flavor.mariadb
	b.mu.Unlock()
	if skip || want < 1 || b.lanePool.Stats().Idle >= want {
		return nil
	}
	conns := make([]*sql.Conn, 0, want)
	defer func() {
		for _, c := range conns {
			c.Close() // back to the pool, idle
		}
	}()
	for len(conns) < want {
		c, err := b.lanePool.Conn(ctx)
		if err == nil {
			err = c.PingContext(ctx)
		}
		if err != nil {
			if c != nil {
				discard(c)
			}
			return fmt.Errorf("mysql: warm lanes: %w", err)
		}
		conns = append(conns, c)
	}
	return nil
}

// laneWarmMax is the most lane connections WarmLanes keeps open: the lane
// pool's idle bound (SetMaxIdleConns in Open), beyond which a connection
// given back is closed.
const laneWarmMax = 8
