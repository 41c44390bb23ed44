package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgnames"
)

// Tables is an optional interface of a Catalog: the names of every table
// of the schema, a serial column's sequence's included (relchain's and
// SQLite's own left out), sorted.
type Tables interface {
	TableNames() []string
}

// relationTaken reports whether name is a relation of PostgreSQL's
// namespace in the catalog's schema (package pgnames): a table or
// sequence, an index, or the index of a table's PRIMARY KEY or UNIQUE
// constraint (its CONSTRAINT name, or PostgreSQL's default t_pkey,
// t_a_key). A catalog without Tables and Schema answers for tables and
// indexes only.
func (t *translator) relationTaken(name string) bool {
	if _, ok := t.cat.Columns(name); ok {
		return true
	}
	if k, ok := t.cat.(Indexes); ok && k.HasIndex(name) {
		return true
	}
	if t.keyNames == nil {
		t.keyNames = t.readKeyNames()
	}
	return t.keyNames[name]
}

// readKeyNames are the catalog's tables (sequences' included) and the
// names of their PRIMARY KEY's and UNIQUE constraints' indexes: read once
// per statement, since a CREATE TABLE asks for each of its names.
func (t *translator) readKeyNames() map[string]bool {
	out := map[string]bool{}
	tables, ok := t.cat.(Tables)
	schema, ok2 := t.cat.(Schema)
	if !ok || !ok2 {
		return out
	}
	for _, tb := range tables.TableNames() {
		out[tb] = true
		if create, _, ok := schema.TableSQL(tb); ok {
			for _, n := range keyIndexNames(tb, create) {
				out[n] = true
			}
		}
	}
	return out
}

// keyIndexNames are the names PostgreSQL gives the indexes of table's
// PRIMARY KEY and UNIQUE constraints, read from its SQLite CREATE TABLE
// text (which keeps each CONSTRAINT name).
func keyIndexNames(table, create string) []string {
	elems, ok := parseCreate(create)
	if !ok {
		return nil
	}
	var out []string
	for _, c := range (&alteration{table: table, elems: elems}).keyConstraints() {
		out = append(out, c.name)
	}
	return out
}

// keyConstraints are the table's PRIMARY KEY and UNIQUE constraints.
func (al *alteration) keyConstraints() []namedConstraint {
	var out []namedConstraint
	for _, e := range al.elems {
		for _, c := range al.constraintsOf(e) {
			if c.kind == "pkey" || c.kind == "key" {
				out = append(out, c)
			}
		}
	}
	return out
}

// alteredKeysFree checks the indexes ALTER TABLE a adds (PRIMARY KEY and
// UNIQUE constraints the table did not have, before: its constraints
// then) against PostgreSQL's namespace as newRelationNames does; the
// names a's subcommands give are the named ones (the rebuilt table names
// every constraint).
func (t *translator) alteredKeysFree(a *pg_query.AlterTableStmt, al *alteration, before []namedConstraint) error {
	given := map[string]bool{}
	for _, n := range a.GetCmds() {
		def := n.GetAlterTableCmd().GetDef()
		given[def.GetConstraint().GetConname()] = true
		for _, c := range def.GetColumnDef().GetConstraints() {
			given[c.GetConstraint().GetConname()] = true
		}
	}
	had := map[string]bool{}
	for _, c := range before {
		had[c.name] = true
	}
	seen := map[string]bool{al.table: true}
	for _, c := range al.keyConstraints() {
		if had[c.name] {
			continue
		}
		if seen[c.name] || t.relationTaken(c.name) {
			if given[c.name] {
				return pgError("42P07", "relation %q already exists", c.name)
			}
			return refuse("a constraint whose index would be named %q, a name another relation holds (PostgreSQL would choose another name): name the constraint", c.name)
		}
		seen[c.name] = true
	}
	return nil
}

// newRelationNames checks the names CREATE TABLE name adds to PostgreSQL's
// namespace: the table's (another kind of relation may hold it), its
// PRIMARY KEY's and UNIQUE constraints' indexes' and its serial columns'
// sequences'. A name the statement gives that is taken fails as on
// PostgreSQL (42P07); a default name that is taken is refused, since
// PostgreSQL would pick another (t_pkey1) that this translation does not
// follow (package pgnames).
func (t *translator) newRelationNames(c *pg_query.CreateStmt, name string, seqs []string) error {
	if t.relationTaken(name) {
		if c.GetIfNotExists() {
			return refuse("CREATE TABLE IF NOT EXISTS %q where an index of that name exists (PostgreSQL skips it)", name)
		}
		return pgError("42P07", "relation %q already exists", name)
	}
	keys := pgnames.KeyIndexes(name, c.GetTableElts())
	for _, s := range seqs {
		keys = append(keys, pgnames.KeyIndex{Name: s})
	}
	k, clash := pgnames.Clash(name, keys, t.relationTaken)
	switch {
	case !clash:
		return nil
	case k.Named:
		return pgError("42P07", "relation %q already exists", k.Name)
	}
	return refuse("a table whose constraint's index or serial column's sequence would be named %q, a name another relation holds (PostgreSQL would choose another name): name the constraint", k.Name)
}

// indexNameFree checks CREATE INDEX's name against PostgreSQL's
// namespace: taken, it fails (42P07), or with IF NOT EXISTS does nothing
// where an index of that name exists (SQLite's IF NOT EXISTS) and is
// refused where another relation holds it (PostgreSQL skips it, SQLite
// would create the index).
func (t *translator) indexNameFree(ix *pg_query.IndexStmt) error {
	name := ix.GetIdxname()
	if !t.relationTaken(name) {
		return nil
	}
	if !ix.GetIfNotExists() {
		return pgError("42P07", "relation %q already exists", name)
	}
	if k, ok := t.cat.(Indexes); ok && k.HasIndex(name) {
		return nil
	}
	return refuse("CREATE INDEX IF NOT EXISTS %q where a table or a constraint's index of that name exists (PostgreSQL skips it)", name)
}
