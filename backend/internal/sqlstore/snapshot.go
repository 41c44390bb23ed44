package sqlstore

import (
	"context"
	"fmt"

	"github.com/relchain/relchain/statedigest"
)

// Snapshot begins one read-only db-transaction on a consistent snapshot
// and reads the height committed in it; end finishes it (a rollback). Q is
// the backend's own handle for queries in it (a *sql.Conn, a pgx.Tx).
type Snapshot[Q any] func(ctx context.Context) (q Q, height int64, end func(), err error)

// ReadState reads table sums (read: stored or scanned) in one snapshot,
// so it may run while blocks commit, and gives the height they are of.
// dialect names the backend in errors.
func ReadState[Q any](ctx context.Context, dialect string, begin Snapshot[Q], read func(context.Context, Q) (statedigest.Tables, error)) (statedigest.Tables, int64, error) {
	q, height, end, err := begin(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: read state: %w", dialect, err)
	}
	defer end()
	tables, err := read(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: read state at height %d: %w", dialect, height, err)
	}
	return tables, height, nil
}
