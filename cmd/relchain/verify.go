package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/ops"
	"github.com/relchain/relchain/statedigest"
)

func verifyCmd() *cobra.Command {
	var home, output string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Re-check a node's whole database against the state digest its chain committed",
		Long: `Verify scans every row of every replicated table of the node's database,
recomputes the state digest and compares it, table by table, with the sums
the last committed block recorded (its AppHash commits to them), then
recomputes the AppHash itself (tables, system state, the block's recorded
inputs). Where the node's block store holds the next block, it also
compares the AppHash with the one the chain signed (the next header): a node
that applied a block differently is consistent in itself but not the
chain's. And it reports whether the node stopped on a divergence or on a
change made outside the chain (recorded in the node home until ` + "`relchain recover`" + `
succeeds); a stop at a protocol upgrade its binary cannot run is shown but is
no mismatch. It prints OK, or what differs, and exits non-zero on a mismatch.
The node may be running (each side is read in one snapshot; the comparison
with the chain then waits for the node to stop) or stopped. Its cost is
proportional to the database's size.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clientcmd.CheckOutput(output, "text", "json"); err != nil {
				return err
			}
			stop := spin("verify")
			r, err := ops.Verify(context.Background(), home)
			stop()
			if err != nil {
				return err
			}
			// One AppHash case everywhere: upper-case hex, as CometBFT and
			// relchain status print it.
			r.AppHash, r.ChainAppHash = strings.ToUpper(r.AppHash), strings.ToUpper(r.ChainAppHash)
			if output == "json" {
				b, _ := json.MarshalIndent(struct {
					ops.VerifyReport
					OK bool `json:"ok"`
				}{r, r.OK()}, "", "  ")
				fmt.Println(string(b))
			} else {
				printVerify(r)
			}
			return verifyError(r)
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}

// printVerify prints a verify report as text: OK on stdout, each problem
// on stderr.
func printVerify(r ops.VerifyReport) {
	if r.OK() {
		fmt.Printf("OK: height %d, %d tables, state digest %s, app hash %s\n", r.Height, len(r.Tables), r.StateDigest, r.AppHash)
		if r.ChainAppHash != "" {
			fmt.Printf("the chain's AppHash for height %d (header of block %d) matches\n", r.Height, r.Height+1)
		} else if r.ChainNote != "" {
			fmt.Printf("not compared with the chain's AppHash: %s\n", r.ChainNote)
		}
		printUpgradeStop(r.Halt)
		return
	}
	if len(r.Differ) > 0 {
		fmt.Fprintf(os.Stderr, "MISMATCH at height %d: the rows of %s differ from the committed state digest %s\n",
			r.Height, strings.Join(r.Differ, ", "), r.StateDigest)
	} else if r.AppHashDiffers {
		fmt.Fprintf(os.Stderr, "MISMATCH at height %d: every table matches, but relchain's system state (replay windows, grants) does not reproduce the committed AppHash %s\n",
			r.Height, r.AppHash)
	}
	if r.ChainDiffers {
		fmt.Fprintf(os.Stderr, "MISMATCH at height %d: this database's AppHash %s is not the chain's %s (header of block %d): this node applied a block differently from the network\n",
			r.Height, r.AppHash, r.ChainAppHash, r.Height+1)
	}
	printUpgradeStop(r.Halt)
	if h := r.Halt; h.Fault() {
		what := "its AppHash diverged from the network's"
		if h.Kind == node.HaltOutOfBand {
			what = "its database was changed outside the chain"
		}
		fmt.Fprintf(os.Stderr, "STOPPED: this node stopped after height %d because %s: %s\n", h.Height, what, h.Reason)
	}
}

// printUpgradeStop prints a record that the node stopped at a protocol
// upgrade its binary cannot run: no fault of the database, so not a
// mismatch.
func printUpgradeStop(h *node.HaltRecord) {
	if h != nil && h.Kind == node.HaltUpgrade {
		fmt.Printf("stopped at a protocol upgrade (not a fault of this database) after height %d: %s\n", h.Height, h.Reason)
	}
}

// verifyError is verify's exit status as an error (nil when OK).
func verifyError(r ops.VerifyReport) error {
	switch {
	case len(r.Differ) > 0:
		return fmt.Errorf("%w in %d table(s): this database no longer holds what its chain committed (docs/operate.md#verifying-a-node)", statedigest.ErrMismatch, len(r.Differ))
	case r.AppHashDiffers:
		return fmt.Errorf("%w in relchain's system state: this database no longer holds what its chain committed (docs/operate.md#verifying-a-node)", statedigest.ErrMismatch)
	case r.ChainDiffers:
		return fmt.Errorf("%w with the chain at height %d: restore a checkpoint with `relchain recover` (docs/operate.md#verifying-a-node)", statedigest.ErrMismatch, r.Height)
	case r.Halt.Fault():
		return fmt.Errorf("the node stopped after height %d on a recorded %s: restore a checkpoint with `relchain recover` (docs/operate.md#verifying-a-node)", r.Halt.Height, strings.ReplaceAll(r.Halt.Kind, "_", "-"))
	}
	return nil
}
