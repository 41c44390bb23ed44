package clientcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/txn"
)

type queryFlags struct {
	output    string
	minHeight int64
	timeout   time.Duration
	target    *target
	verify    verifyFlags
}

func (e *Env) queryCmd() *cobra.Command {
	var f queryFlags
	cmd := &cobra.Command{
		Use:   "query SQL [ARG...]",
		Short: "Run a read-only SQL statement on a node's committed state",
		Long:  "Run a read-only SQL statement on a node's committed state (no consensus).\nWrites go through exec.\n\n" + argHelp + "\n\n" + nodeHelp,
		Args:  cobra.MinimumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runQuery(&f, args) },
	}
	f.verify.register(cmd, e.KeyRead)
	f.target = e.withTarget(cmd, false)
	cmd.Flags().Int64Var(&f.minHeight, "min-height", 0, "wait until the node has committed this height (read your writes)")
	cmd.Flags().StringVar(&f.output, "output", "table", "table or json")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
}

func runQuery(f *queryFlags, args []string) error {
	if err := CheckOutput(f.output, "table", "json"); err != nil {
		return err
	}
	targs, err := parseArgs(args[1:])
	if err != nil {
		return err
	}
	vals := make([]any, len(targs))
	for i, a := range targs {
		if a.Kind == txn.KindBytes {
			return fmt.Errorf("argument %d: bytes arguments are not supported by query yet", i+1)
		}
		vals[i] = a.Value()
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	c, err := f.target.client(ctx)
	if err != nil {
		return err
	}
	if f.verify.on {
		return runVerified(ctx, f, c, args[0], vals)
	}
	if f.verify.atHeight != 0 {
		return fmt.Errorf("--at-height %d proves rows at a past height: give --verify and a trust root with it", f.verify.atHeight)
	}
	res, err := c.Query(ctx, f.minHeight, args[0], vals...)
	if err != nil {
		return queryFailure(c, args[0], f, err)
	}
	if f.output == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printTable(res.Columns, res.Rows)
	fmt.Printf("(%d rows at height %d)\n", len(res.Rows), res.Height)
	return nil
}

// errReadOnly is query's answer to a statement that writes.
var errReadOnly = errors.New("query is read-only: use exec")

// queryFailure turns a failed query into the error query prints: a write
// is told to use exec, a --min-height the node did not reach in time says
// so and what to do, anything else is the node's error.
func queryFailure(c *client.Client, sql string, f *queryFlags, err error) error {
	var qe *client.QueryError
	if errors.As(err, &qe) && qe.Code == api.CodeQueryFailed && gateway.IsWrite(sql) {
		return fmt.Errorf("%w (relchain exec %q signs it as a transaction)", errReadOnly, sql)
	}
	timedOut := errors.Is(err, context.DeadlineExceeded) || (qe != nil && qe.Code == api.CodeQueryTimeout)
	if f.minHeight <= 0 || !timedOut {
		return err
	}
	at := "its height is unknown"
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if info, ierr := c.RPC().ABCIInfo(sctx); ierr == nil {
		at = fmt.Sprintf("it is at height %d", info.Response.LastBlockHeight)
	}
	return fmt.Errorf("node %s had not reached height %d within %s (%s): the network may be slow or stalled, or this node behind; check `relchain status`, raise --timeout, or ask another node (--node, --net)",
		c.URL(), f.minHeight, f.timeout, at)
}
