// Command relchain runs and uses relchain networks: validators that
// replicate SQL databases through CometBFT. See `relchain --help`.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitStatus(err))
	}
}
