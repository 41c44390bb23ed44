package main

import (
	"context"
	"encoding/json"
	"fmt"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/ops"
)

func restoreCmd() *cobra.Command {
	var home, file, nodeURL string
	var force, jsonOut bool
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Restore a backup into a stopped node's home, after verifying it",
		Long: `Restore checks a backup file made by relchain backup before anything is
written under the node's database name: the manifest, the checkpoint's size
and SHA-256, then it restores the checkpoint beside the database and verifies
that its rows reproduce the manifest's AppHash, and that the chain signed the
same AppHash for that height (the header of the next block, from the node's
block store or from --node). A damaged or altered backup is refused and
nothing is written.

The home must exist (relchain init, add-node) with the node stopped. A new
home, whose CometBFT state is empty, needs --node: CometBFT's state at the
backup's height is set from it, verified by CometBFT's light client (as
offline state sync; the chain must be two blocks past the backup). The node
then starts and follows the chain from there. A home whose state is at or
past the backup's height keeps its block store and replays the blocks after
the backup when it starts. A database that already holds blocks is replaced
only with --force, and kept aside.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return fmt.Errorf("--backup FILE is required")
			}
			opts := ops.RestoreOptions{Force: force, NodeURL: nodeURL, Progress: progress}
			if ca := clientcmd.CAFile(); ca != "" {
				opts.RPC = func(url string) (*rpchttp.HTTP, error) { return clientcmd.RPCWithCA(url, ca) }
			}
			rep, err := ops.Restore(context.Background(), home, file, opts)
			if err != nil {
				return err
			}
			if jsonOut {
				b, _ := json.MarshalIndent(rep, "", "  ")
				fmt.Println(string(b))
				return nil
			}
			m := rep.Manifest
			fmt.Printf("restored height %d of chain %s (AppHash %X verified", m.Height, m.ChainID, mustHex(m.AppHash))
			if rep.ConfirmedBy != "" {
				fmt.Printf("; the chain's, from %s", rep.ConfirmedBy)
			} else {
				fmt.Printf("; not compared with the chain's: give --node URL")
			}
			fmt.Printf(")\nCometBFT's state is at height %d; start the node to follow the chain\n", rep.StateHeight)
			if rep.Replaced != "" {
				fmt.Printf("the replaced database is %s\n", rep.Replaced)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory (the node must be stopped)")
	cmd.Flags().StringVar(&file, "backup", "", "the backup file")
	cmd.Flags().StringVar(&nodeURL, "node", "", "RPC address of a node of the chain (confirms the AppHash; required for a new home)")
	cmd.Flags().BoolVar(&force, "force", false, "replace a database that already holds blocks (it is kept aside)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the report as JSON")
	return cmd
}
