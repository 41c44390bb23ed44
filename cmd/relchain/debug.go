package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	sqlite3 "github.com/ncruces/go-sqlite3"
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/node"
)

func debugCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "debug",
		Short: "Tools for fault injection in tests; never use them on a network you care about",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(debugTamperCmd())
	return cmd
}

func debugTamperCmd() *cobra.Command {
	var home string
	var stmts []string
	cmd := &cobra.Command{
		Use:   "tamper",
		Short: "Run SQL directly on a node's database, outside the chain",
		Long: `Tamper runs the given statements on the database a node home is configured
with, directly, as an intruder or a careless operator would: no transaction of
the chain, no gate. The node may be stopped or running (SQLite waits up to 30 s
for the node's lock). The node is then expected to notice: it stops at its next
block on a change its capture recorded, and ` + "`relchain verify`" + ` fails. For fault
injection tests (test/e2e's tamper perturbation) only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(stmts) == 0 {
				return errors.New("no --sql statement given")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			if err := tamper(ctx, home, stmts); err != nil {
				return err
			}
			fmt.Printf("ran %d statement(s) on %s's database outside the chain\n", len(stmts), home)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringArrayVar(&stmts, "sql", nil, "a statement to run (repeatable, run in order)")
	return cmd
}

// serverTamperers run statements on a database server outside the chain,
// by backend name. Deliberately not through package backend: the point
// is to bypass it, with each database's own client driver.
var serverTamperers = map[string]func(ctx context.Context, dsn string, stmts []string) error{
	"postgres": tamperPostgres,
	"mysql":    tamperMySQL,
}

// tamper runs stmts on home's database with that database's own driver.
func tamper(ctx context.Context, home string, stmts []string) error {
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		return err
	}
	d, err := registry.Lookup(cmp.Or(rc.Backend.Kind, registry.Default))
	if err != nil {
		return err
	}
	if !d.Server {
		return tamperSQLite(rc.SQLitePath(home), stmts)
	}
	run, ok := serverTamperers[d.Name]
	if !ok {
		return fmt.Errorf("tamper: backend %q is not supported", d.Name)
	}
	return run(ctx, rc.Backend.DSN, stmts)
}

func tamperSQLite(path string, stmts []string) error {
	db, err := sqlite3.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	if err := db.BusyTimeout(30 * time.Second); err != nil {
		return fmt.Errorf("busy timeout: %w", err)
	}
	for _, s := range stmts {
		if err := db.Exec(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func tamperPostgres(ctx context.Context, dsn string, stmts []string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func tamperMySQL(ctx context.Context, dsn string, stmts []string) error {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("parse DSN: %w", err)
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}
