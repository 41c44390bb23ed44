package node

import (
	"context"
	"fmt"
	"time"

	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
)

// StartDatabaseWait bounds how long a starting node waits for a database
// that cannot be reached (backend.ErrDatabaseUnavailable: its server is
// down or restarting) before it gives up and exits with the error: long
// enough for a server restart, short enough that a mistyped address is
// reported. A running node waits for its database without bound (see
// app/DESIGN.md).
const StartDatabaseWait = 2 * time.Minute

// openExecutor opens the node home's database and loads the executor on
// it, waiting while the database is unavailable (StartDatabaseWait, with
// the executor's backoff), and logging each wait.
func openExecutor(ctx context.Context, home string, rc Config, chainID string, params app.Params, logger log.Logger) (backend.Backend, *app.Executor, error) {
	start := time.Now()
	wait := app.RetryMinBackoff
	for attempt := 1; ; attempt++ {
		be, ex, err := openExecutorOnce(ctx, home, rc, chainID, params, logger)
		if err == nil {
			if attempt > 1 {
				logger.Info("the database is available; the node starts", "waited", time.Since(start).Round(time.Millisecond))
			}
			return be, ex, nil
		}
		if !backend.IsUnavailable(err) {
			return nil, nil, err
		}
		if time.Since(start) >= StartDatabaseWait {
			return nil, nil, fmt.Errorf("%w (the node waited %s for its database to answer)", err, StartDatabaseWait)
		}
		logger.Error("the database is unavailable at start: the node waits for it", "attempt", attempt, "retry_in", wait, "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		wait = min(2*wait, app.RetryMaxBackoff)
	}
}

func openExecutorOnce(ctx context.Context, home string, rc Config, chainID string, params app.Params, logger log.Logger) (backend.Backend, *app.Executor, error) {
	lanes, err := rc.Lanes()
	if err != nil {
		return nil, nil, err
	}
	be, err := openBackend(ctx, home, rc, logCheckpointError(logger))
	if err != nil {
		return nil, nil, fmt.Errorf("open %s backend: %w", rc.Backend.Kind, err)
	}
	ex, err := app.NewExecutor(ctx, be, chainID, params, shadowOption(home, params),
		app.WithSchemaJudges(registry.SchemaJudges(params.Engines())), app.WithLanes(lanes), app.WithAdaptiveLanes(!rc.Block.LanesAlways))
	if err != nil {
		be.Close()
		return nil, nil, err
	}
	ex.SetHistory(rc.AppHistory())
	if err := ex.StartCheck(); err != nil {
		logger.Error("the database does not reproduce its AppHash", "err", err)
	}
	return be, ex, nil
}
