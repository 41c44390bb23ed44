package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/cmd/internal/clientcmd"
)

func main() {
	err := rootCmd().Execute()
	// Close the websockets the commands used properly before exiting.
	client.CloseSubscriptions()
	if err != nil {
		var lab *labExit
		if errors.As(err, &lab) { // the benchmark lab reported its error itself
			os.Exit(lab.code)
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(clientcmd.ExitStatus(err))
	}
}
