package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// Exit statuses: 0 the command did what was asked (a tx committed with
// code 0), 1 it failed (or the tx did), exitNotCommitted the tx is not
// committed yet: it may still commit, `relchain tx HASH` tells later.
const exitNotCommitted = 3

// exitError is an error with its own exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitStatus is the process's exit status for a command's error.
func exitStatus(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// unconfirmed is exec's answer when it signed a tx and could not learn
// its outcome (a timeout, quorum lost, the node gone): the tx may still
// commit, so it says so and how to look it up, never a bare timeout.
type unconfirmed struct {
	Hash   string `json:"hash"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// reportUnconfirmed prints the unconfirmed tx hash (JSON on stdout, or a
// line on stderr) and returns the error exec exits with.
func reportUnconfirmed(w io.Writer, output, hash, nodeURL string, cause error) error {
	look := "relchain tx " + hash
	if nodeURL != "" && nodeURL != client.DefaultNode {
		look += " --node " + nodeURL
	}
	if output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(unconfirmed{Hash: hash, Status: "not_confirmed", Error: cause.Error()})
	}
	return &exitError{code: exitNotCommitted, err: fmt.Errorf("tx %s not confirmed yet; it may still commit: %s (%v)", hash, look, cause)}
}

// submit signs stmts and submits them in mode m. A signed tx whose
// outcome exec could not learn is reported by reportUnconfirmed.
func submit(ctx context.Context, c *client.Client, m client.Mode, output, nodeURL string, stmts ...txn.Statement) (*client.Result, error) {
	raw, err := c.Sign(ctx, stmts)
	if err != nil {
		return nil, err
	}
	res, err := c.Broadcast(ctx, m, raw)
	if err != nil {
		hash := strings.ToUpper(fmt.Sprintf("%X", txn.Hash(raw)))
		return nil, reportUnconfirmed(os.Stdout, output, hash, nodeURL, err)
	}
	return res, nil
}

func txCmd() *cobra.Command {
	var nodeURL, output string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "tx HASH",
		Short: "Show a bc-transaction's committed result, or that it is not committed yet",
		Long: `Tx looks a bc-transaction up by its hash (as exec prints it) in the node's
tx index and prints its committed result: height, code, the statements'
results, and the log. Exit status: 0 committed with code 0; 1 committed
with a failure code, or the lookup failed; 3 not committed (yet): the tx
may still be in a mempool, or was never submitted or was evicted (the node
indexes a block's txs just after committing it: a tx committed a moment
ago may still answer 3; ask again).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, "text", "json"); err != nil {
				return err
			}
			c, err := newClient(nodeURL, nil)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			return lookupTx(ctx, c, args[0], output)
		},
	}
	cmd.Flags().StringVar(&nodeURL, "node", client.DefaultNode, "RPC address of a node")
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
}

// lookupTx prints the committed result of tx hash, or that it is not
// committed, and returns the command's error (an exitError for the
// latter).
func lookupTx(ctx context.Context, c *client.Client, hash, output string) error {
	res, err := c.Tx(ctx, hash)
	if errors.Is(err, client.ErrTxNotFound) {
		hash = strings.ToUpper(hash)
		if output == "json" {
			b, _ := json.MarshalIndent(struct {
				Hash   string `json:"hash"`
				Status string `json:"status"`
			}{hash, "not_committed"}, "", "  ")
			fmt.Println(string(b))
		}
		return &exitError{code: exitNotCommitted, err: fmt.Errorf("tx %s: not committed yet on node %s (it may still be in a mempool; or it was never submitted, or was evicted)", hash, c.URL())}
	}
	if err != nil {
		return err
	}
	if output == "json" {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(b))
	} else {
		printResult(res, client.ModeCommit)
	}
	if !res.OK() {
		return fmt.Errorf("transaction %s (committed at height %d): %s", api.CodeName(res.Code), res.Height, res.Error)
	}
	return nil
}
