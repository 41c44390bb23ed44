package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/ops"
)

func recoverCmd() *cobra.Command {
	var home, output string
	cmd := &cobra.Command{
		Use:   "recover",
		Short: "Restore a stopped node's database from its newest checkpoint that verifies",
		Long: `Recover restores a stopped node from its newest checkpoint whose rows
match the state digest it recorded and whose AppHash the chain confirmed (older
ones are tried when a newer one is damaged or was taken after the node
deviated), and rolls CometBFT's state back one height, since the last block
this node applied may have been applied to a deviating database. The replaced
database is kept beside the new one. Start the node afterwards: it replays
every block after the checkpoint from its own block store, checking each
AppHash against the chain, and rejoins the network.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clientcmd.CheckOutput(output, "text", "json"); err != nil {
				return err
			}
			stop := spin("recover")
			rep, err := ops.Recover(context.Background(), home)
			stop()
			for _, r := range rep.Rejected {
				fmt.Printf("skipped checkpoint at %s\n", r)
			}
			if err != nil {
				return err
			}
			if output == "json" {
				b, _ := json.MarshalIndent(rep, "", "  ")
				fmt.Println(string(b))
				return nil
			}
			fmt.Printf("restored the checkpoint at height %d (the old database is %s);\nCometBFT's state is at height %d: start the node to replay the blocks after %d and rejoin\n",
				rep.Checkpoint, rep.Replaced, rep.StateHeight, rep.Checkpoint)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory (the node must be stopped)")
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}
