package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		var lab *labExit
		if errors.As(err, &lab) { // the benchmark lab reported its error itself
			os.Exit(lab.code)
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitStatus(err))
	}
}
