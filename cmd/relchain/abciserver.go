package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/node"
)

func abciServerCmd() *cobra.Command {
	var home, addr string
	cmd := &cobra.Command{
		Use:   "abci-server",
		Short: "Serve a node home's application over ABCI's socket protocol, for a separate CometBFT process",
		Long: `Serve relchain's application of a node home over ABCI's socket protocol
until SIGINT/SIGTERM, without CometBFT: the paper's "server variant". A
CometBFT node of the pinned version drives it from another process, on the
same home:

  relchain abci-server --home H --addr tcp://127.0.0.1:26658 &
  cometbft node --home H --proxy_app tcp://127.0.0.1:26658

Reads (abci_query), CheckTx and blocks behave exactly as in 'relchain node'.
What only 'relchain node' does: watch for divergence against the network's
AppHash and recover by itself ([recover] on_mismatch = "recover"); with a
stock CometBFT, CometBFT itself stops on an AppHash mismatch. 'relchain node
--abci socket' runs both sides in one process, over loopback TCP.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := node.NewAppServer(ctx, home, addr, nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "relchain: serving %s over ABCI at %s\n", home, s.Addr())
			select {
			case <-ctx.Done():
				return s.Close()
			case herr := <-s.Halted():
				_ = s.Close()
				return fmt.Errorf("%w\nthe application stopped without recording that block; fix the cause and restart it (and CometBFT): CometBFT re-applies the block from its block store", herr)
			}
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory (the one CometBFT runs on)")
	cmd.Flags().StringVar(&addr, "addr", "tcp://127.0.0.1:26658", "listen address: tcp://HOST:PORT or unix:///PATH")
	return cmd
}
