package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	data := flag.String("data", "benchmarks/current.json", "the current figures")
	out := flag.String("out", "BENCHMARKS.md", "the page to write")
	root := flag.String("root", ".", "the repository's root (journal paths are relative to it)")
	flag.Parse()
	if err := run(*data, *out, *root); err != nil {
		fmt.Fprintln(os.Stderr, "benchsummary:", err)
		os.Exit(1)
	}
}

func run(data, out, root string) error {
	d, err := load(data, root)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(render(d)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
