package clientcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
)

type changesFlags struct {
	from    int64
	follow  bool
	poll    time.Duration
	timeout time.Duration
	target  *target
}

func (e *Env) changesCmd() *cobra.Command {
	var f changesFlags
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "Print every row version of the blocks from a height on (change data capture)",
		Long: "Print the row versions of every block from --from-height on, in commit order (height,\n" +
			"table, key), one JSON line each; a block's versions are always printed together, so a\n" +
			"consumer that stops resumes from the height after the last one it processed whole.\n" +
			"--follow keeps polling for new blocks. A height below the start of the node's history\n" +
			"(pruned, or before the node began recording) is an error naming the start.\n\n" + historyHelp + "\n\n" + nodeHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runChanges(cmd.Context(), &f, cmd.OutOrStdout()) },
	}
	f.target = e.withTarget(cmd, false)
	cmd.Flags().Int64Var(&f.from, "from-height", 0, "the first height (0: from the history's start)")
	cmd.Flags().BoolVar(&f.follow, "follow", false, "keep printing new blocks' versions as they commit")
	cmd.Flags().DurationVar(&f.poll, "poll", time.Second, "with --follow, how often to ask for new blocks")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 30*time.Second, "without --follow, give up after this long")
	return cmd
}

func runChanges(ctx context.Context, f *changesFlags, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !f.follow {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	if f.poll <= 0 {
		return fmt.Errorf("--poll %s: give a positive duration", f.poll)
	}
	c, err := f.target.client(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	emit := func(ev api.ChangeEvent) error { return enc.Encode(ev) }
	if f.follow {
		_, err := c.FollowChanges(ctx, f.from, f.poll, emit)
		return err
	}
	from := f.from
	for {
		resp, err := c.Changes(ctx, api.ChangesRequest{FromHeight: from})
		if err != nil {
			return err
		}
		for _, ev := range resp.Events {
			if err := emit(ev); err != nil {
				return err
			}
		}
		if len(resp.Events) == 0 {
			return nil
		}
		from = resp.Next
	}
}
