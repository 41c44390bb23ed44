package main

import (
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/dialect"
)

// registerSQLDialect registers --sql-dialect: the SQL dialect of a new
// network, written to its genesis (docs/dialects.md).
func registerSQLDialect(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "sql-dialect", "", "the new network's SQL dialect, fixed in its genesis (default postgres: PostgreSQL's SQL, "+
		"translated on backend sqlite, native on postgres; mysql on mysql, where postgres is translated on MariaDB only when asked for); sqlite keeps SQLite's own SQL on backend sqlite (docs/dialects.md)")
}

// newNetworkSQLDialect is the SQL dialect a new network of backend fixes
// in its genesis when --sql-dialect says flag: flag itself when given,
// otherwise PostgreSQL's SQL where the backend speaks it (issue 35:
// translated on SQLite, native on PostgreSQL) and the backend's own ("")
// where it does not (MySQL). A network created before keeps the dialect
// its genesis names: this default is only for the genesis of a new one.
// netctl.Options' zero value stays "the backend's own" for harnesses that
// build networks in Go.
func newNetworkSQLDialect(backend, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	d, err := registry.Lookup(backend)
	if err != nil {
		return "", err
	}
	if d.PostgresByDefault {
		return dialect.SQLPostgres, nil
	}
	return "", nil
}

// networkName names a new network of backend whose genesis names SQL
// dialect sql for a person: "backend sqlite, SQL dialect postgres
// (translated)" or "backend mysql, SQL dialect mysql".
func networkName(backend, sql string) string {
	d, err := registry.Lookup(backend)
	if err != nil {
		return "backend " + backend
	}
	name := "backend " + backend + ", SQL dialect " + d.SQLDialect(sql)
	if d.Translated(sql) {
		name += " (translated)"
	}
	return name
}
