package pgdialect

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgnames"
)

// Relations is an optional interface of a Catalog: whether name is a
// relation of PostgreSQL's namespace in the schema (package pgnames): a
// table, an index, or the index of a table's PRIMARY KEY or UNIQUE
// constraint, by PostgreSQL's name (exact, case included). MariaDB's
// index names are per table, so CREATE INDEX t_pkey ON u succeeded there
// where PostgreSQL fails it; with a Catalog that implements Relations the
// translation fails it as PostgreSQL does.
type Relations interface {
	RelationTaken(name string) bool
}

// pkeyCommentPrefix starts a table's COMMENT holding its PRIMARY KEY's
// name where the statement named it otherwise than PostgreSQL's default
// (MariaDB names every primary key PRIMARY).
const pkeyCommentPrefix = "pg:pkey="

// PrimaryKeyName is the name PostgreSQL has for the PRIMARY KEY of table
// whose MariaDB table COMMENT is comment: the one the comment keeps, else
// PostgreSQL's default t_pkey; false when the comment is another (the
// dialect writes no other).
func PrimaryKeyName(table, comment string) (string, bool) {
	if comment == "" {
		return pgnames.ObjectName(table, "", "pkey"), true
	}
	name, ok := strings.CutPrefix(comment, pkeyCommentPrefix)
	return name, ok && name != ""
}

// relationTaken is the catalog's answer, or false when it has none.
func (t *translator) relationTaken(name string) bool {
	if _, ok := t.cat.Columns(name); ok {
		return true
	}
	r, ok := t.cat.(Relations)
	return ok && r.RelationTaken(name)
}

// newRelationNames checks the names CREATE TABLE name adds to PostgreSQL's
// namespace (keys: its PRIMARY KEY's and UNIQUE constraints' indexes) as
// the SQLite translation does (backend/sqlite/pgdialect namespace.go): a
// name the statement gives that is taken fails (42P07), a default one
// that is taken is refused (PostgreSQL would pick another, t_pkey1).
// Index names with upper-case letters are refused (MariaDB's ignore case).
func (t *translator) newRelationNames(s *pg_query.CreateStmt, name string, keys []pgnames.KeyIndex) error {
	for _, k := range keys {
		if strings.ToLower(k.Name) != k.Name {
			return refuse("constraint names with upper-case letters (%q): MariaDB's index names ignore case", k.Name)
		}
	}
	if t.relationTaken(name) {
		if s.GetIfNotExists() {
			return refuse("CREATE TABLE IF NOT EXISTS %q where an index of that name exists (PostgreSQL skips it)", name)
		}
		return pgError("42P07", "relation %q already exists", name)
	}
	k, clash := pgnames.Clash(name, keys, t.relationTaken)
	switch {
	case !clash:
		return nil
	case k.Named:
		return pgError("42P07", "relation %q already exists", k.Name)
	}
	return refuse("a table whose constraint's index would be named %q, a name another relation holds (PostgreSQL would choose another name): name the constraint", k.Name)
}

// indexNameFree checks CREATE INDEX's name against PostgreSQL's
// namespace (taken: 42P07; with IF NOT EXISTS, refused unless the index
// exists on the same table, where MariaDB's IF NOT EXISTS skips it as
// PostgreSQL does).
func (t *translator) indexNameFree(s *pg_query.IndexStmt, table string) error {
	name := s.GetIdxname()
	if strings.ToLower(name) != name {
		return refuse("index names with upper-case letters (%q): MariaDB's index names ignore case", name)
	}
	if !t.relationTaken(name) {
		return nil
	}
	if !s.GetIfNotExists() {
		return pgError("42P07", "relation %q already exists", name)
	}
	if r, ok := t.cat.(indexOwners); ok && r.IndexOn(name) == table {
		return nil
	}
	return refuse("CREATE INDEX IF NOT EXISTS %q where another relation of that name exists (PostgreSQL skips it)", name)
}

// indexOwners is an optional interface of a Catalog: the table of the
// index name made by CREATE INDEX, "" if none.
type indexOwners interface {
	IndexOn(name string) string
}

// RelationTaken implements Relations on MariaDB's information_schema.
func (c *SchemaCatalog) RelationTaken(name string) bool {
	if _, ok := c.Columns(name); ok {
		return true
	}
	owner, err := c.relation(name)
	if err != nil && c.Err == nil {
		c.Err = err
	}
	return owner != ""
}

// IndexOn implements indexOwners.
func (c *SchemaCatalog) IndexOn(name string) string {
	owner, err := c.relation(name)
	if err != nil && c.Err == nil {
		c.Err = err
	}
	return owner
}

const relationsSQL = `SELECT s.TABLE_NAME, s.INDEX_NAME, t.TABLE_COMMENT FROM information_schema.STATISTICS AS s
JOIN information_schema.TABLES AS t ON t.TABLE_SCHEMA = s.TABLE_SCHEMA AND t.TABLE_NAME = s.TABLE_NAME
WHERE s.TABLE_SCHEMA = DATABASE() AND s.SEQ_IN_INDEX = 1 AND s.TABLE_NAME NOT LIKE 'relchain\_%' ORDER BY s.TABLE_NAME, s.INDEX_NAME`

// relation is the table whose index (a PRIMARY KEY's by PostgreSQL's
// name, kept in the table's COMMENT when not the default) is name, or "".
func (c *SchemaCatalog) relation(name string) (string, error) {
	rows, err := c.Q.QueryContext(c.Ctx, relationsSQL)
	if err != nil {
		return "", fmt.Errorf("pgdialect catalog: indexes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, index, comment string
		if err := rows.Scan(&table, &index, &comment); err != nil {
			return "", fmt.Errorf("pgdialect catalog: indexes: %w", err)
		}
		if index == "PRIMARY" {
			index, _ = PrimaryKeyName(table, comment)
		}
		if index == name {
			return table, nil
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("pgdialect catalog: indexes: %w", err)
	}
	return "", nil
}

// RelationTaken implements Relations.
func (s *Schema) RelationTaken(name string) bool {
	_, table := s.tables[name]
	_, index := s.relations[name]
	return table || index
}

// IndexOn implements indexOwners.
func (s *Schema) IndexOn(name string) string { return s.relations[name] }
