package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/ops"
)

func migrateCmd() *cobra.Command {
	var home string
	var o ops.MigrateOptions
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Move a stopped validator to another database engine of its network (no new genesis)",
		Long: `Migrate moves a validator of a network over several engines (the genesis
lists them in backends; docs/mixed-networks.md) from its database to a new,
empty one of another listed engine: it checks the node's database against
its AppHash, copies the replicated tables (as PostgreSQL's SQL), the
sequences and relchain's system state into the new database in one block,
and checks that the new database reproduces the same AppHash at the same
height before relchain.toml names it. The old database is left as it was.
Stop the node first; start it again afterwards: it goes on from the same
height on the new engine. The network's AppHash must be canonical
(protocol version 5).`,
		Example: `  relchain migrate --home ~/.relchain --to-backend postgres \
      --dsn 'postgres://admin@db.example:5432/relchain_node3?sslmode=require'
  relchain migrate --home ~/.relchain --to-backend sqlite --dsn data/relchain-sqlite.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.ToBackend == "" {
				return fmt.Errorf("--to-backend is required: the engine to move to, one the genesis lists")
			}
			r, err := ops.Migrate(context.Background(), home, o)
			if err != nil {
				return err
			}
			if jsonOut {
				b, _ := json.MarshalIndent(r, "", "  ")
				fmt.Println(string(b))
				return nil
			}
			fmt.Printf("moved the node from %s to %s at height %d (AppHash %s, %d statements); relchain.toml now names the new database; start the node\n",
				r.From, r.To, r.Height, r.AppHash, r.Statements)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory (the node must be stopped)")
	cmd.Flags().StringVar(&o.ToBackend, "to-backend", "", "the engine to move to: one of the genesis' backends")
	cmd.Flags().StringVar(&o.DSN, "dsn", "", "the new database: a PostgreSQL administrator's DSN (the node's roles are made from it), or a SQLite file relative to the home (default data/relchain.db; it must not exist yet)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the report as JSON")
	return cmd
}
