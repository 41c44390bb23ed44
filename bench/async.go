package bench

import (
	"context"
	"fmt"

	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
)

func runAsyncWorkload(ctx context.Context, cfg Config, w workload.Workload, clients []*client.Client, rec *recorder, res *Result, tr *Trace) error {
	return fmt.Errorf("async needs the results stream (not merged yet)")
}
