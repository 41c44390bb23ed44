package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/node"
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
inputs). It prints OK, or the tables whose contents were changed outside the
chain (or that the system state was), and exits
non-zero on a mismatch. The node may be running (each side is read in one
snapshot) or stopped. Its cost is proportional to the database's size.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json"); err != nil {
				return err
			}
			r, err := node.Verify(context.Background(), home)
			if err != nil {
				return err
			}
			if output == "json" {
				b, _ := json.MarshalIndent(struct {
					node.VerifyReport
					OK bool `json:"ok"`
				}{r, r.OK()}, "", "  ")
				fmt.Println(string(b))
			} else if r.OK() {
				fmt.Printf("OK: height %d, %d tables, state digest %s\n", r.Height, len(r.Tables), r.StateDigest)
			} else if len(r.Differ) > 0 {
				fmt.Fprintf(os.Stderr, "MISMATCH at height %d: the rows of %s differ from the committed state digest %s\n",
					r.Height, strings.Join(r.Differ, ", "), r.StateDigest)
			} else {
				fmt.Fprintf(os.Stderr, "MISMATCH at height %d: every table matches, but relchain's system state (replay windows, grants) does not reproduce the committed AppHash %s\n",
					r.Height, r.AppHash)
			}
			if len(r.Differ) > 0 {
				return fmt.Errorf("%w in %d table(s): this database no longer holds what its chain committed (README: Verifying a node)", statedigest.ErrMismatch, len(r.Differ))
			}
			if !r.OK() {
				return fmt.Errorf("%w in relchain's system state: this database no longer holds what its chain committed (README: Verifying a node)", statedigest.ErrMismatch)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}
