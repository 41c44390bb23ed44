package main

import (
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "relchain",
		Short: "A Byzantine-fault-tolerant replicated SQL ledger on CometBFT",
		Long: `relchain turns ordinary SQL databases (SQLite, PostgreSQL) into a replicated,
Byzantine-fault-tolerant ledger: validators agree on one ordered log of signed
SQL transactions through CometBFT and execute it deterministically.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionInfo().String(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.AddCommand(initCmd(), nodeCmd(), gatewayCmd(), proxyCmd(), abciServerCmd(), verifyCmd(), recoverCmd(), testnetCmd(), localnetCmd(), addNodeCmd(),
		benchCmd(), versionCmd())
	root.AddCommand(clientcmd.Commands(clientEnv())...)
	root.AddCommand(backupCmd(), restoreCmd(), checkpointCmd(), dumpCmd(), migrateCmd())
	root.AddCommand(hookCommands()...)
	clientcmd.RegisterCAFlag(root)
	return root
}

// clientEnv gives the client commands what they learn from the node side:
// a network directory's nodes and a node home's halt record.
func clientEnv() clientcmd.Env {
	return clientcmd.Env{
		KeyRead: pgclass.Classifier{}.KeyRead,
		Nodes: func(dir string) ([]clientcmd.Node, error) {
			nodes, err := netctl.LoadNodes(dir)
			out := make([]clientcmd.Node, len(nodes))
			for i, n := range nodes {
				out[i] = clientcmd.Node{Name: n.Name, Home: n.Home, RPC: n.RPC}
			}
			return out, err
		},
		Stopped: func(home string) string {
			if h, err := node.LoadHaltRecord(home); err == nil && h != nil {
				return clientcmd.StoppedText(h.Height, h.Kind, h.Reason)
			}
			return ""
		},
	}
}

func appVersion() string { return app.Version }

// defaultHome is relchain's home when --home is not given.
func defaultHome() string { return clientcmd.DefaultHome() }
