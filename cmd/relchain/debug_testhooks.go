//go:build testhooks

package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/node"
)

// debugCmd is relchain debug: fault injection for tests, in a test-hooks
// build only (make build-testhooks); the release binary has no debug
// command (nohooks.go).
func debugCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "debug",
		Short: "Tools for fault injection in tests; never use them on a network you care about",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(debugTamperCmd())
	return cmd
}

func debugTamperCmd() *cobra.Command {
	var home string
	var stmts []string
	cmd := &cobra.Command{
		Use:   "tamper",
		Short: "Run SQL directly on a node's database, outside the chain",
		Long: `Tamper runs the given statements on the database a node home is configured
with, directly, as an intruder or a careless operator would: no transaction of
the chain, no gate. The node may be stopped or running (SQLite waits up to 30 s
for the node's lock). The node is then expected to notice: it stops at its next
block on a change its capture recorded, and ` + "`relchain verify`" + ` fails. For fault
injection tests (test/e2e's tamper perturbation) only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(stmts) == 0 {
				return errors.New("no --sql statement given")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			if err := tamper(ctx, home, stmts); err != nil {
				return err
			}
			fmt.Printf("ran %d statement(s) on %s's database outside the chain\n", len(stmts), home)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringArrayVar(&stmts, "sql", nil, "a statement to run (repeatable, run in order)")
	return cmd
}

// tamper runs stmts on home's database outside the chain: the registry's
// driver of the home's configured backend runs them with the database's
// own client (registry.Driver.ExecOutOfBand, fault injection only), not
// through package backend: the point is to bypass it.
func tamper(ctx context.Context, home string, stmts []string) error {
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		return err
	}
	d, s, err := rc.BackendSpec(home)
	if err != nil {
		return err
	}
	if err := d.ExecOutOfBand(ctx, s, stmts); err != nil {
		return fmt.Errorf("tamper with %s's %s database: %w", home, d.Name, err)
	}
	return nil
}
