package dialect

import (
	"fmt"
	"strings"
)

// Default is the database a node uses when its configuration names none.
const Default = "sqlite"

// Dialect describes one database relchain runs on.
type Dialect struct {
	// Name is the backend's name in relchain.toml (backend.kind), on the
	// command line (--backend), in the genesis (app.Params.Backend) and in
	// abci_info (api.InfoData.Backend); Backend.Dialect returns it.
	Name string
	// Server is true for a database server reached by a DSN: every node
	// needs its own database (a DSN; networks give a template with
	// {node}). Otherwise the database is a file in the node home.
	Server bool
	// DSNTemplate is an example DSN with {node} for the node's name, for
	// error messages; empty for a file database.
	DSNTemplate string
	// Wire is what the PostgreSQL wire-protocol gateway needs to know of
	// the database's SQL dialect.
	Wire Wire
}

// Wire describes a database's SQL dialect to the PostgreSQL wire-protocol
// gateway (package gateway) and to relchain exec.
type Wire struct {
	// DollarQuotes: $tag$…$tag$ is a string literal (PostgreSQL), so a
	// semicolon inside one does not end a statement.
	DollarQuotes bool
	// PGCatalog: the database answers PostgreSQL's catalog queries
	// (pg_catalog, information_schema as psql's \d and ORMs ask them).
	PGCatalog bool
	// CatalogHint, when PGCatalog is false, tells a user how to list
	// tables in the database's own SQL.
	CatalogHint string
	// Placeholders is how the database numbers parameters; the gateway
	// rewrites the $n that PostgreSQL clients send into it.
	Placeholders string
	// NativeTypes: the database's values are PostgreSQL's own, in
	// PostgreSQL's text forms (time, timetz, interval, arrays), and a
	// parameter's text is read by PostgreSQL's own input functions, so the
	// gateway announces those types as themselves and passes input forms it
	// does not parse on to the database.
	NativeTypes bool
}

// Placeholder styles (Wire.Placeholders).
const (
	PlaceholdersDollar   = ""           // $1, $2 (PostgreSQL): sent as they are
	PlaceholdersNumbered = "numbered"   // ?1, ?2 (SQLite)
	PlaceholdersOrdered  = "positional" // ? bound in order of appearance (MySQL)
)

// DSNExample is an example DSN of a node named node0.
func (d Dialect) DSNExample() string { return strings.ReplaceAll(d.DSNTemplate, "{node}", "node0") }

// Names lists the supported databases, the default first.
func Names() []string {
	out := make([]string, len(dialects))
	for i, d := range dialects {
		out[i] = d.Name
	}
	return out
}

// Lookup returns the dialect of the database called name.
func Lookup(name string) (Dialect, error) {
	for _, d := range dialects {
		if d.Name == name {
			return d, nil
		}
	}
	return Dialect{}, fmt.Errorf("unknown backend %q (supported: %s)", name, strings.Join(Names(), ", "))
}

// Servers lists the databases that are servers reached by a DSN.
func Servers() []string {
	var out []string
	for _, d := range dialects {
		if d.Server {
			out = append(out, d.Name)
		}
	}
	return out
}

// Files lists the databases kept as a file in the node home.
func Files() []string {
	var out []string
	for _, d := range dialects {
		if !d.Server {
			out = append(out, d.Name)
		}
	}
	return out
}
