//go:build !testhooks

package main

import (
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/node"
)

// registerHookFlags adds nothing in a default build: `relchain node` has
// no test-hook flags (see testhooks.go, built with -tags testhooks).
func registerHookFlags(*cobra.Command) func() []node.Option {
	return func() []node.Option { return nil }
}

// hookCommands adds no command in a default build: the release binary has
// no relchain debug (fault injection; debug_testhooks.go).
func hookCommands() []*cobra.Command { return nil }
