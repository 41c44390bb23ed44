package clientcmd

import (
	"context"
	"encoding/hex"
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

// ExitStatus is the process's exit status for a command's error.
func ExitStatus(err error) int {
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
	return submitSaved(ctx, c, m, output, nodeURL, "", stmts...)
}

// submitSaved is submit that first writes the signed envelope to saveTo
// (hex, one line; "" writes nothing), so that an unknown outcome can be
// settled by resending the very same bytes (relchain tx send FILE).
func submitSaved(ctx context.Context, c *client.Client, m client.Mode, output, nodeURL, saveTo string, stmts ...txn.Statement) (*client.Result, error) {
	raw, err := c.Sign(ctx, stmts)
	if err != nil {
		return nil, err
	}
	if saveTo != "" {
		if err := os.WriteFile(saveTo, []byte(hex.EncodeToString(raw)+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("save the signed transaction (--save-tx): %w", err)
		}
	}
	return resend(ctx, c, m, output, nodeURL, saveTo, raw)
}

// resend submits the signed envelope raw in mode m; a tx already
// committed answers its committed result (client.Broadcast). An outcome
// it could not learn is reported by reportUnconfirmed; savedIn names the
// file raw is saved in, for the hint.
func resend(ctx context.Context, c *client.Client, m client.Mode, output, nodeURL, savedIn string, raw []byte) (*client.Result, error) {
	res, err := c.Broadcast(ctx, m, raw)
	if err != nil {
		hash := strings.ToUpper(fmt.Sprintf("%X", txn.Hash(raw)))
		if savedIn != "" {
			err = fmt.Errorf("%w; or resend the same signed bytes, which never execute twice: relchain tx send %s", err, savedIn)
		}
		return nil, reportUnconfirmed(os.Stdout, output, hash, nodeURL, err)
	}
	return res, nil
}

// readSignedTx reads a signed envelope saved by exec --save-tx: hex (the
// saved form; surrounding white space ignored) or the raw bytes.
func readSignedTx(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read the signed transaction: %w", err)
	}
	if h := strings.TrimSpace(string(b)); h != "" {
		if raw, err := hex.DecodeString(h); err == nil {
			return raw, nil
		}
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("read the signed transaction: %s is empty", file)
	}
	return b, nil
}

func (e *Env) txSendCmd() *cobra.Command {
	var mode, output string
	var timeout time.Duration
	var t *target
	cmd := &cobra.Command{
		Use:   "send FILE",
		Short: "Resubmit a signed bc-transaction (saved by exec --save-tx); safe to repeat",
		Long: `Send submits the signed bc-transaction saved in FILE (by exec --save-tx:
hex, or the raw bytes) again, exactly as signed. The chain executes a signed
transaction at most once, so sending it again is always safe: if it is
already committed, send answers its committed result (code, statement
results, height; a transaction that failed in its block, that failure),
before or after the nodes restarted, from any node. It is refused as
replayed (code 8) only when the node's tx index proves these bytes never
committed (another transaction of the key used the nonce); when the node
cannot tell (it does not index transactions, or has the chain only from a
snapshot on), send says so and exits 3. Exit status as exec's.

` + nodeHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := client.ParseMode(mode)
			if err != nil {
				return err
			}
			if err := CheckOutput(output, "text", "json"); err != nil {
				return err
			}
			raw, err := readSignedTx(args[0])
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			c, err := t.client(ctx)
			if err != nil {
				return err
			}
			hintURL := ""
			if t.explicit() || t.net != "" {
				hintURL = c.URL()
			}
			res, err := resend(ctx, c, m, output, hintURL, args[0], raw)
			if err != nil {
				return err
			}
			return printOutcome(res, m, output)
		},
	}
	t = e.withTarget(cmd, false)
	cmd.Flags().StringVar(&mode, "mode", "commit", "commit (wait for the block), sync (wait for CheckTx) or async (return at once)")
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 60*time.Second, "give up waiting after this long")
	return cmd
}

// printOutcome prints a submission's result as exec does and returns the
// command's error for a tx that was refused or failed.
func printOutcome(res *client.Result, m client.Mode, output string) error {
	if output == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		printResult(res, m)
	}
	if !res.OK() {
		if res.Height > 0 {
			return fmt.Errorf("transaction %s (code %d, committed at height %d): %s", api.CodeName(res.Code), res.Code, res.Height, res.Error)
		}
		return fmt.Errorf("transaction %s (code %d): %s", api.CodeName(res.Code), res.Code, res.Error)
	}
	return nil
}

func (e *Env) txCmd() *cobra.Command {
	var output string
	var timeout time.Duration
	var t *target
	cmd := &cobra.Command{
		Use:   "tx HASH | tx send FILE",
		Short: "Show a bc-transaction's committed result, or that it is not committed yet",
		Long: `Tx looks a bc-transaction up by its hash (as exec prints it) in the node's
tx index and prints its committed result: height, code, the statements'
results, and the log. Exit status: 0 committed with code 0; 1 committed
with a failure code, or the lookup failed; 3 not committed (yet): the tx
may still be in a mempool, or was never submitted or was evicted (the node
indexes a block's txs just after committing it: a tx committed a moment
ago may still answer 3; ask again).

` + nodeHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := CheckOutput(output, "text", "json"); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			c, err := t.client(ctx)
			if err != nil {
				return err
			}
			return lookupTx(ctx, c, args[0], output)
		},
	}
	t = e.withTarget(cmd, false)
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "give up after this long")
	cmd.AddCommand(e.txSendCmd())
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
