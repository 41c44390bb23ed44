package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/app"
)

func defaultHome() string {
	if h := os.Getenv("RELCHAIN_HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".relchain")
	}
	return ".relchain"
}

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
	root.AddCommand(initCmd(), nodeCmd(), gatewayCmd(), abciServerCmd(), verifyCmd(), recoverCmd(), testnetCmd(), localnetCmd(), addNodeCmd(),
		execCmd(), txCmd(), queryCmd(), statusCmd(), keysCmd(), adminCmd(), benchCmd(), versionCmd())
	root.AddCommand(backupCmd(), restoreCmd(), checkpointCmd(), dumpCmd())
	root.AddCommand(hookCommands()...)
	registerCAFlag(root)
	return root
}

func appVersion() string { return app.Version }
