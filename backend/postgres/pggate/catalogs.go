package pggate

import (
	"fmt"
	"strings"
)

// NetworkDatabase is the name the read path gives this network's database
// in pg_database (psql's \l, pgcli's database completion, pgjdbc's
// getCatalogs): one name on every node, whatever each validator's own
// database is called on its server (relchain_node0, …), so a GUI tool
// shows the same network whichever node it asks.
const NetworkDatabase = "relchain"

// catalogReplacements are the shared catalogs and the statistics views
// that the read path answers with rows of its own: each maps to the text
// of a query with the relation's columns (same names, types and order on
// every PostgreSQL version, since each is built from the relation's own
// row type) that replaces it under the same alias. Each shows this
// network's database and roles only, with what would tell of the server
// beyond them removed; backend/postgres/DESIGN.md ("What GUI tools ask")
// has the table of what each shows and why. They are on the read
// allowlist like catalogRelations, and the substituted text, written
// here, is not itself gated.
var catalogReplacements = map[string]string{
	// This database alone, named NetworkDatabase; its ACL (which may name
	// roles of the server granted CONNECT) and its transaction-ID horizons
	// (the server's transaction counter) left out.
	"pg_database": redacted("pg_database", `{"datname": "`+NetworkDatabase+`", "datacl": null, "datfrozenxid": "0", "datminmxid": "0"}`,
		"x.datname = pg_catalog.current_database()"),
	// The network's role: the role that owns this network's objects (the
	// owner of schema relchain, which owns every table), under the one name
	// NetworkUser on every node (each validator's own role name, and the
	// server's other roles, superuser included, are not the network's);
	// its settings and password hidden.
	"pg_roles": redacted("pg_roles", `{"rolname": "`+NetworkUser+`", "rolconfig": null, "rolpassword": null}`, "x.oid = ("+networkOwner+")"),
	"pg_user":  redacted("pg_user", `{"usename": "`+NetworkUser+`", "useconfig": null, "passwd": null}`, "x.usesysid = ("+networkOwner+")"),
	// Memberships among those roles only (relchain's roles are members of
	// none: Open refuses them).
	"pg_auth_members": redacted("pg_auth_members", `{}`,
		"ARRAY[x.roleid, x.member, x.grantor] <@ ARRAY("+networkRoles+")"),
	// The tablespaces this database and its relations are in; their ACLs
	// and options left out.
	"pg_tablespace": redacted("pg_tablespace", `{"spcacl": null, "spcoptions": null}`,
		"x.oid IN (SELECT dattablespace FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()"+
			" UNION SELECT reltablespace FROM pg_catalog.pg_class)"),
	// The extensions installed in this database (not every extension the
	// server's files offer).
	"pg_available_extensions": redacted("pg_available_extensions", `{}`, "x.name IN (SELECT extname FROM pg_catalog.pg_extension)"),
	// The settings that are facts of PostgreSQL's build or of every
	// relchain session, not of a server's configuration (pgjdbc's
	// getImportedKeys reads max_index_keys); where they came from left
	// out, and their values in the configuration files (reset_val, source).
	// Every other setting (paths, addresses, memory, the version)
	// is absent: pgcli's unix_socket_directories lookup finds no row.
	"pg_settings": redacted("pg_settings", `{"sourcefile": null, "sourceline": null, "source": null, "reset_val": null}`, "x.name IN ("+networkSettings+")"),
	// Statistics views of tables: this database's tables (relchain's
	// hidden), every counter and time NULL. The numbers are node-local
	// and tell of the server's activity; the tools read them for the
	// names (Sequelize's describeTable joins pg_statio_all_tables for
	// column comments).
	"pg_statio_all_tables":  tableStats("pg_statio_all_tables", statioKinds, ""),
	"pg_statio_user_tables": tableStats("pg_statio_user_tables", statioKinds, userSchema),
	"pg_statio_sys_tables":  tableStats("pg_statio_sys_tables", statioKinds, "NOT ("+userSchema+")"),
	"pg_stat_all_tables":    tableStats("pg_stat_all_tables", statKinds, ""),
	"pg_stat_user_tables":   tableStats("pg_stat_user_tables", statKinds, userSchema),
	"pg_stat_sys_tables":    tableStats("pg_stat_sys_tables", statKinds, "NOT ("+userSchema+")"),
}

// networkRoles selects the roles the read path shows: those that own an
// object of this database or the database itself (ownersOfThisDatabase:
// the network's writer role and the bootstrap superuser that owns
// pg_catalog), and the session's own role (the network's reader).
const networkRoles = ownersOfThisDatabase + " UNION SELECT oid FROM pg_catalog.pg_roles WHERE rolname = CURRENT_USER"

// networkOwner selects the role that owns the network's objects: the owner
// of relchain's schema, which the backend's owner role created.
const networkOwner = "SELECT nspowner FROM pg_catalog.pg_namespace WHERE nspname = 'relchain'"

// redacted is the text of a replacement: the rows of pg_catalog.rel that
// satisfy filter (its columns written x.col), with the columns of
// overrides (a JSON object; null for NULL) replaced, through
// jsonb_populate_record so that the columns stay the relation's own on
// every version.
func redacted(rel, overrides, filter string) string {
	return fmt.Sprintf("SELECT r.* FROM pg_catalog.%s x CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(x, '%s'::pg_catalog.jsonb) r WHERE %s",
		rel, strings.ReplaceAll(overrides, "'", "''"), filter)
}

// networkSettings are the settings pg_settings shows: compile-time limits
// and formats, and the session settings relchain pins on every reader
// connection.
const networkSettings = "'max_index_keys', 'max_identifier_length', 'max_function_args', 'block_size', 'integer_datetimes', " +
	"'server_encoding', 'client_encoding', 'standard_conforming_strings', 'DateStyle', 'IntervalStyle', 'TimeZone', 'search_path', " +
	"'extra_float_digits', 'bytea_output', 'default_transaction_read_only', 'transaction_isolation', 'transaction_read_only'"

const (
	statioKinds = "'r', 't', 'm'"      // pg_statio_*_tables
	statKinds   = "'r', 't', 'm', 'p'" // pg_stat_*_tables
	// userSchema is the _user_ views' condition (the _sys_ ones take its
	// negation), as PostgreSQL's own definitions write it.
	userSchema = "n.nspname <> ALL (ARRAY['pg_catalog', 'information_schema']::pg_catalog.name[]) AND n.nspname !~ '^pg_toast'"
)

// tableStats is the text of a replacement of a table statistics view:
// relid, schemaname and relname of this database's relations of the
// view's kinds (relchain's hidden), every other column NULL.
func tableStats(rel, kinds, cond string) string {
	where := "c.relkind IN (" + kinds + ") AND n.nspname <> 'relchain'"
	if cond != "" {
		where += " AND " + cond
	}
	return fmt.Sprintf("SELECT r.* FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"+
		" CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::pg_catalog.%s,"+
		" pg_catalog.jsonb_build_object('relid', c.oid, 'schemaname', n.nspname, 'relname', c.relname)) r WHERE %s", rel, where)
}

// infoSchemaReplacements are the views of information_schema the read
// path answers with a query of its own: PostgreSQL's definitions (the
// same from 9.x to 17) with their ownership filter (pg_has_role(owner,
// 'USAGE')) replaced by relchain's: the reader owns no table, so these
// views listed nothing, though the constraints they describe are this
// network's schema, readable in pg_constraint (Sequelize's and knex's
// foreign-key lookups join constraint_column_usage).
var infoSchemaReplacements = map[string]string{
	"constraint_column_usage": `SELECT pg_catalog.current_database()::information_schema.sql_identifier AS table_catalog,
    x.tblschema::information_schema.sql_identifier AS table_schema,
    x.tblname::information_schema.sql_identifier AS table_name,
    x.colname::information_schema.sql_identifier AS column_name,
    pg_catalog.current_database()::information_schema.sql_identifier AS constraint_catalog,
    x.cstrschema::information_schema.sql_identifier AS constraint_schema,
    x.cstrname::information_schema.sql_identifier AS constraint_name
  FROM (SELECT DISTINCT nr.nspname, r.relname, r.relowner, a.attname, nc.nspname, c.conname
      FROM pg_catalog.pg_namespace nr, pg_catalog.pg_class r, pg_catalog.pg_attribute a, pg_catalog.pg_depend d,
        pg_catalog.pg_namespace nc, pg_catalog.pg_constraint c
      WHERE nr.oid = r.relnamespace AND r.oid = a.attrelid AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
        AND d.refobjid = r.oid AND d.refobjsubid = a.attnum AND d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
        AND d.objid = c.oid AND c.connamespace = nc.oid AND c.contype = 'c' AND r.relkind IN ('r', 'p') AND NOT a.attisdropped
    UNION ALL
    SELECT nr.nspname, r.relname, r.relowner, a.attname, nc.nspname, c.conname
      FROM pg_catalog.pg_namespace nr, pg_catalog.pg_class r, pg_catalog.pg_attribute a, pg_catalog.pg_namespace nc,
        pg_catalog.pg_constraint c
      WHERE nr.oid = r.relnamespace AND r.oid = a.attrelid AND nc.oid = c.connamespace
        AND r.oid = CASE c.contype WHEN 'f' THEN c.confrelid ELSE c.conrelid END
        AND a.attnum = ANY (CASE c.contype WHEN 'f' THEN c.confkey ELSE c.conkey END)
        AND NOT a.attisdropped AND c.contype IN ('p', 'u', 'f') AND r.relkind IN ('r', 'p')
  ) x (tblschema, tblname, tblowner, colname, cstrschema, cstrname)
  WHERE x.tblschema <> 'relchain' AND x.cstrschema <> 'relchain'`,
	"constraint_table_usage": `SELECT pg_catalog.current_database()::information_schema.sql_identifier AS table_catalog,
    nr.nspname::information_schema.sql_identifier AS table_schema,
    r.relname::information_schema.sql_identifier AS table_name,
    pg_catalog.current_database()::information_schema.sql_identifier AS constraint_catalog,
    nc.nspname::information_schema.sql_identifier AS constraint_schema,
    c.conname::information_schema.sql_identifier AS constraint_name
  FROM pg_catalog.pg_constraint c, pg_catalog.pg_namespace nc, pg_catalog.pg_class r, pg_catalog.pg_namespace nr
  WHERE c.connamespace = nc.oid AND r.relnamespace = nr.oid
    AND (c.contype = 'f' AND c.confrelid = r.oid OR c.contype IN ('p', 'u') AND c.conrelid = r.oid)
    AND r.relkind IN ('r', 'p') AND nr.nspname <> 'relchain' AND nc.nspname <> 'relchain'`,
}
