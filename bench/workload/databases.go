package workload

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/relchain/relchain/dialect"
)

// Database is what the lab knows of one database beyond package dialect:
// the properties its runs and workloads steer on, so that the lab's code
// asks them instead of comparing database names. Every database in
// dialect.Names() has an entry in databases (a test holds it); per-workload
// SQL spellings are kept in each workload's own table, keyed the same way.
type Database struct {
	// DDLAlone: the database commits DDL implicitly
	// (backend.Capabilities.TransactionalDDL is false), so a bc-transaction
	// holding DDL must hold that one statement (see DDLAlone).
	DDLAlone bool
	// Replicas: the lab can give the raw baseline streaming read replicas
	// on this database (cmd/relchain-bench's --baseline-replicas).
	Replicas bool
	// PGWire: the database speaks PostgreSQL's wire protocol itself, so
	// the gateway benchmark reads it directly with pgx and through a relay.
	PGWire bool
}

// databases is the lab's table of Database, keyed by dialect name.
var databases = map[string]Database{
	SQLite:   {},
	Postgres: {Replicas: true, PGWire: true},
	MySQL:    {DDLAlone: true},
}

// DB returns the lab's Database for the dialect called name. It panics on
// a name the lab does not know: the caller skipped validating it, or a
// database was added without its entry (TestEveryDatabaseIsDescribed).
func DB(name string) Database {
	return MustLookup(databases, "workload.databases", name)
}

// LookupDB is DB for a name not yet validated: an error names the
// supported databases.
func LookupDB(name string) (Database, error) {
	return Lookup(databases, "workload.databases", name)
}

// Lookup returns table's entry for the dialect called name, or an error
// naming the table when it has none.
func Lookup[T any](table map[string]T, tableName, name string) (T, error) {
	v, ok := table[name]
	if !ok {
		return v, fmt.Errorf("%s has no entry for dialect %q (supported: %v)", tableName, name, dialect.Names())
	}
	return v, nil
}

// MustLookup is Lookup for a name already validated; it panics when the
// table lacks it.
func MustLookup[T any](table map[string]T, tableName, name string) T {
	v, err := Lookup(table, tableName, name)
	if err != nil {
		panic("workload: " + err.Error())
	}
	return v
}

// Missing lists the databases of dialect.Names() that table has no entry
// for: a per-database table's test reports them, so that adding a database
// fails naming the tables to fill.
func Missing[T any](table map[string]T) []string {
	var out []string
	for _, n := range dialect.Names() {
		if _, ok := table[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

// Extra lists table's keys that name no database of dialect.Names().
func Extra[T any](table map[string]T) []string {
	var out []string
	for k := range table {
		if !slices.Contains(dialect.Names(), k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// wire is package dialect's Wire of the dialect called name; it panics on
// an unknown name, as DB does.
func wire(name string) dialect.Wire {
	d, err := dialect.Lookup(name)
	if err != nil {
		panic("workload: " + err.Error())
	}
	return d.Wire
}

// Server reports whether the dialect called name is a database server
// reached by a DSN (package dialect); otherwise it is a file.
func Server(name string) bool {
	d, err := dialect.Lookup(name)
	if err != nil {
		panic("workload: " + err.Error())
	}
	return d.Server
}

// dollar reports whether the dialect numbers parameters $n.
func dollar(name string) bool { return wire(name).Placeholders == dialect.PlaceholdersDollar }

// ordered reports whether the dialect binds anonymous '?' in order.
func ordered(name string) bool { return wire(name).Placeholders == dialect.PlaceholdersOrdered }

// OnlyPlaceholder is the placeholder of a statement's single parameter in
// the dialect's own style: $1 where parameters are numbered $n, else the
// anonymous '?' (which SQLite numbers ?1).
func OnlyPlaceholder(name string) string {
	if dollar(name) {
		return "$1"
	}
	return "?"
}

// placeholder is Placeholder's body, kept beside the style questions.
func placeholder(name string, n int) string {
	if dollar(name) {
		return "$" + strconv.Itoa(n)
	}
	return "?" + strconv.Itoa(n)
}
