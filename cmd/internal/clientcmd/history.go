package clientcmd

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

const historyHelp = `Each line is one row version as a JSON change event (docs/history-and-changes.md):
{"op":"c|u|d","before":{...},"after":{...},"source":{"table","key","height","tx_index",
"tx_hash","signer","block_time","app_hash",...}}. A version is a row as a block left it.`

type historyFlags struct {
	key     string
	from    int64
	limit   int
	timeout time.Duration
	target  *target
}

func (e *Env) historyCmd() *cobra.Command {
	var f historyFlags
	cmd := &cobra.Command{
		Use:   "history TABLE [KEY...]",
		Short: "Print the versions of one row that the node's history holds",
		Long: "Print the versions of one row of TABLE, oldest first, from the node's row history.\n" +
			"KEY... are the values of its primary key in column order (integers, text, true/false;\n" +
			"a prefix forces a type: int:, text:, bool:), or --key gives its canonical key in hex.\n\n" + historyHelp + "\n\n" + nodeHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runHistory(&f, args, cmd.OutOrStdout()) },
	}
	f.target = e.withTarget(cmd, false)
	cmd.Flags().StringVar(&f.key, "key", "", "the row's canonical key (rowcanon.EncodeKey) in hex, instead of KEY...")
	cmd.Flags().Int64Var(&f.from, "from-height", 0, "versions at this height and later (0: from the history's start)")
	cmd.Flags().IntVar(&f.limit, "limit", 0, fmt.Sprintf("at most this many versions (0: %d)", api.DefaultHistoryLimit))
	cmd.Flags().DurationVar(&f.timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
}

func runHistory(f *historyFlags, args []string, out io.Writer) error {
	req := api.HistoryRequest{Table: args[0], FromHeight: f.from, Limit: f.limit}
	switch {
	case f.key != "" && len(args) > 1:
		return fmt.Errorf("give the row's key either as --key or as KEY values, not both")
	case f.key != "":
		k, err := hex.DecodeString(f.key)
		if err != nil {
			return fmt.Errorf("--key %q: not hex: %w", f.key, err)
		}
		req.Key = k
	case len(args) == 1:
		return fmt.Errorf("name the row: its primary-key values after the table, or --key")
	default:
		vals, err := keyValues(args[1:])
		if err != nil {
			return err
		}
		req.KeyValues = vals
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	c, err := f.target.client(ctx)
	if err != nil {
		return err
	}
	resp, err := c.RowHistory(ctx, req)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	for _, ev := range resp.Events {
		if err := enc.Encode(ev); err != nil {
			return err
		}
	}
	return nil
}

// keyValues parses a row's primary-key values as query arguments are.
func keyValues(args []string) ([]any, error) {
	targs, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(targs))
	for i, a := range targs {
		switch a.Kind {
		case txn.KindInt, txn.KindText, txn.KindBool:
			vals[i] = a.Value()
		default:
			return nil, fmt.Errorf("key value %d (%q): only integers, text and booleans name a row; give --key for others", i+1, args[i])
		}
	}
	return vals, nil
}
