//go:build testhooks

package main

import (
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/node"
)

// registerHookFlags adds the test-hook flags of `relchain node` (a
// test-hooks build only: make build-testhooks) and returns the node
// options they ask for.
func registerHookFlags(cmd *cobra.Command) func() []node.Option {
	var injectDir string
	var corruptSnapshots bool
	cmd.Flags().StringVar(&injectDir, "unsafe-inject-dir", "", "TESTS ONLY: propose the raw txs in DIR/*.tx unchecked (a byzantine proposer)")
	_ = cmd.Flags().MarkHidden("unsafe-inject-dir")
	cmd.Flags().BoolVar(&corruptSnapshots, "unsafe-corrupt-snapshots", false, "TESTS ONLY: serve every state-sync chunk with a byte flipped (a byzantine snapshot server)")
	_ = cmd.Flags().MarkHidden("unsafe-corrupt-snapshots")
	return func() []node.Option {
		var opts []node.Option
		if corruptSnapshots {
			opts = append(opts, node.WithUnsafeCorruptSnapshots())
		}
		if injectDir != "" {
			opts = append(opts, node.WithUnsafeInjectDir(injectDir))
		}
		return opts
	}
}

// hookCommands are the commands of a test-hooks build only: relchain debug
// (fault injection: debug tamper).
func hookCommands() []*cobra.Command { return []*cobra.Command{debugCmd()} }
