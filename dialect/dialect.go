package dialect

import (
	"fmt"
	"strings"
)

// Default is the database a node uses when its configuration names none.
const Default = "sqlite"

// Portable is the database a network over several engines carries its
// state in from one engine to another (state sync's portable snapshots,
// dbrestore's exports): the embedded one, which every node opens in
// process.
const Portable = Default

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
	// Translates names the SQL dialect other than its own that a network
	// on this database may speak ("" none; docs/dialects.md): PostgreSQL's
	// SQL on SQLite and on MariaDB, each through a versioned translator. TranslatedWire is the
	// Wire of such a network.
	Translates     string
	TranslatedWire Wire
	// DDLCommitsImplicitly: the database commits a DDL statement at once,
	// whatever becomes of the transaction around it (MySQL/MariaDB). On
	// every validator of a network where one runs it, a bc-transaction
	// with DDL is one statement alone in its block (app's ddlAlone rule).
	DDLCommitsImplicitly bool
	// PostgresByDefault: a new network on this database alone speaks
	// PostgreSQL's SQL unless told otherwise (relchain init, testnet,
	// localnet). Not on MySQL: its postgres dialect runs on MariaDB only
	// and translates a smaller subset (--sql-dialect postgres asks for it).
	PostgresByDefault bool
	// SchemaJudged: on a network over several engines every validator
	// reproduces this engine's verdict on a statement without the engine,
	// on a schema kept from the network's DDL (backend.SchemaJudge:
	// MariaDB's translation). SQLite's verdict comes from a schema-only
	// SQLite database instead (app's shadow gate).
	SchemaJudged bool
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

// SQL dialects a network may fix in its genesis (app.Params.SQLDialect).
// A storage's native dialect is named as the storage ("sqlite",
// "postgres", "mysql"); Speaks says which others it can be asked to speak.
const (
	// SQLPostgres is PostgreSQL's SQL: native on PostgreSQL, translated on
	// SQLite (backend/sqlite/pgdialect) and on MariaDB
	// (backend/mysql/pgdialect).
	SQLPostgres = "postgres"
)

// Speaks reports whether the storage d can run a network whose SQL
// dialect is sql ("" is d's native dialect, today's behaviour).
func (d Dialect) Speaks(sql string) bool {
	return sql == "" || sql == d.Name || sql == d.Translates
}

// SQLDialect is the SQL dialect a network of storage d runs when its
// genesis names sql: sql itself, or d's native one when sql is "".
func (d Dialect) SQLDialect(sql string) string {
	if sql == "" {
		return d.Name
	}
	return sql
}

// PostgresSQL reports whether a network of storage d whose genesis names
// SQL dialect sql speaks PostgreSQL's SQL (natively or translated).
func (d Dialect) PostgresSQL(sql string) bool { return d.SQLDialect(sql) == "postgres" }

// Translated reports whether a network of storage d whose genesis names
// sql speaks a dialect d does not speak natively (PostgreSQL's SQL on
// SQLite): the translator's version is then part of the genesis.
func (d Dialect) Translated(sql string) bool { return d.SQLDialect(sql) != d.Name }

// NetworkWire is what the PostgreSQL wire-protocol gateway needs to know
// of a network of storage d whose genesis names SQL dialect sql: d's own
// Wire for its native dialect, or the translated dialect's.
func (d Dialect) NetworkWire(sql string) (Wire, error) {
	if !d.Speaks(sql) {
		return Wire{}, fmt.Errorf("backend %s cannot run the %q SQL dialect (it speaks %s)", d.Name, sql, d.spoken())
	}
	if !d.Translated(sql) {
		return d.Wire, nil
	}
	return d.TranslatedWire, nil
}

// NetworkName names a network of storage d whose genesis names SQL dialect
// sql in messages: "sqlite", or "postgres dialect on sqlite".
func (d Dialect) NetworkName(sql string) string {
	if !d.Translated(sql) {
		return d.Name
	}
	return d.SQLDialect(sql) + " dialect on " + d.Name
}

// spoken lists the SQL dialects a network on d may speak.
func (d Dialect) spoken() string {
	if d.Translates == "" {
		return d.Name
	}
	return d.Name + ", " + d.Translates
}

// Spoken lists the SQL dialects a network on d may speak, its own first.
func (d Dialect) Spoken() string { return d.spoken() }
