package paper_test

import (
	"context"
	"fmt"
	"os"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/bench/paper"
)

// How a command wires the plan to the runner and writes the report.
func Example() {
	o := paper.Options{Quick: true, Backends: []string{"sqlite"}}
	plan := paper.Plan(o)
	fmt.Fprintf(os.Stderr, "%d measurements, about %v\n", len(paper.Distinct(plan)), paper.Estimate(plan))
	runner := func(ctx context.Context, p paper.Point) (*bench.Result, error) {
		// Start p.Validators nodes on p.Backend with p.TimeoutCommit, run
		// p.Config (and the baseline and ceiling if asked), stop them.
		return nil, fmt.Errorf("no runner in this example")
	}
	s := paper.Run(context.Background(), plan, runner, func(done, total int, p paper.Point) {
		fmt.Fprintf(os.Stderr, "[%d/%d] %s\n", done+1, total, p.Label)
	})
	s.Quick = o.Quick
	if err := paper.Write(os.TempDir()+"/paper-report", s); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}
