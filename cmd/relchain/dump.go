package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/ops"
)

func dumpCmd() *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:   "dump",
		Short: "Print the replicated tables of a node's database as SQL text",
		Long: `Dump prints the replicated tables of the node's database as SQL text:
for each table its CREATE TABLE, its rows as INSERTs in primary-key order,
and its indexes, all in one transaction, without relchain's own tables and
triggers. It reads one snapshot (the node may be running); the height it
reflects goes to stderr. The same state gives the same text on every node.
The SQL is the network's SQL dialect (SQLite, PostgreSQL, MySQL/MariaDB) and
runs into a fresh database of that kind: on SQLite and MariaDB, a network of
the postgres dialect (its genesis's sql_dialect) gets PostgreSQL's SQL, which
psql -v ON_ERROR_STOP=1 -f tables.sql loads into an empty PostgreSQL database.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := ops.Dump(context.Background(), home, os.Stdout)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "dumped height %d\n", h)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory (the node may be running)")
	return cmd
}
