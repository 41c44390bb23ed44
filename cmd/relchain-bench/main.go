package main

import (
	"fmt"
	"os"
)

func main() {
	if err := benchCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
