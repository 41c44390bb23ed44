package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/cmd/internal/clientcmd"
)

func main() {
	err := rootCmd().Execute()
	// Close the websockets the commands used properly before exiting.
	client.CloseSubscriptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(clientcmd.ExitStatus(err))
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "relchain-client",
		Short: "relchain's client commands, without the databases",
		Long: `relchain-client talks to a relchain network as a client: exec, query, tx,
status, keys and admin are relchain's commands, with the same flags and output.
It runs no node and links no database driver, SQL parser or cgo.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionInfo().String(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.AddCommand(clientcmd.Commands(clientcmd.FileEnv())...)
	root.AddCommand(versionCmd())
	clientcmd.RegisterCAFlag(root)
	return root
}
