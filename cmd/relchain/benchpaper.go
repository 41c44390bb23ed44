package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func benchPaperCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "paper",
		Short: "Regenerate the paper's evaluation: charts and a report",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fmt.Errorf("not yet")
		},
	}
}
