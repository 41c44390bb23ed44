package pggate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// readRefusals are reads that would show the roles of a shared server,
// their settings, other databases, the server's settings, statistics,
// activity, files or build (issue 32): each is refused by the read
// allowlist, with a message naming what it refuses.
var readRefusals = []struct{ sql, names string }{
	// Roles and their settings.
	{`SELECT rolname, rolsuper, rolconfig FROM pg_authid`, "pg_catalog.pg_authid"},
	{`SELECT * FROM pg_catalog.pg_shadow`, "pg_catalog.pg_shadow"},
	{`SELECT * FROM pg_group`, "pg_catalog.pg_group"},
	{`SELECT setconfig FROM pg_db_role_setting`, "pg_catalog.pg_db_role_setting"},
	{`SELECT * FROM pg_catalog.pg_policies`, "pg_catalog.pg_policies"},
	{`SELECT * FROM pg_default_acl`, "pg_catalog.pg_default_acl"},
	{`SELECT * FROM pg_shdepend`, "pg_catalog.pg_shdepend"},
	{`SELECT * FROM pg_shdescription`, "pg_catalog.pg_shdescription"},
	{`SELECT * FROM information_schema.enabled_roles`, "information_schema.enabled_roles"},
	{`SELECT * FROM information_schema.applicable_roles`, "information_schema.applicable_roles"},
	{`SELECT * FROM information_schema.administrable_role_authorizations`, "information_schema.administrable_role_authorizations"},
	{`SELECT * FROM information_schema.role_table_grants`, "information_schema.role_table_grants"},
	{`SELECT * FROM information_schema.user_mappings`, "information_schema.user_mappings"},
	{`SELECT * FROM information_schema._pg_user_mappings`, "information_schema._pg_user_mappings"},
	{`SELECT character_value FROM information_schema.sql_implementation_info`, "information_schema.sql_implementation_info"},
	{`SELECT to_regrole('postgres')`, "to_regrole"},
	{`SELECT 10::regrole`, "regrole"},
	{`SELECT CAST(10 AS pg_catalog.regrole)`, "regrole"},
	{`SELECT 'postgres=r/postgres'::aclitem`, "aclitem"},
	{`SELECT has_table_privilege('postgres', 'pg_class', 'select')`, "has_table_privilege"},
	{`SELECT has_column_privilege('postgres', 'pg_class', 'relname', 'select')`, "has_column_privilege"},
	{`SELECT has_schema_privilege('postgres', 'public', 'usage')`, "has_schema_privilege"},
	// Other databases, extensions the server offers.
	{`SELECT * FROM pg_available_extension_versions`, "pg_catalog.pg_available_extension_versions"},
	{`SELECT * FROM pg_stat_all_indexes`, "pg_catalog.pg_stat_all_indexes"},
	{`SELECT pg_tablespace_location(1663)`, "pg_tablespace_location"},
	{`SELECT pg_has_role('postgres', 'pg_monitor', 'member')`, "pg_has_role"},
	{`SELECT has_database_privilege('postgres', 'postgres', 'connect')`, "has_database_privilege"},
	// Settings, files, the server's build and addresses.
	{`SELECT * FROM pg_file_settings`, "pg_catalog.pg_file_settings"},
	{`SELECT * FROM pg_hba_file_rules`, "pg_catalog.pg_hba_file_rules"},
	{`SELECT * FROM pg_ident_file_mappings`, "pg_catalog.pg_ident_file_mappings"},
	{`SELECT * FROM pg_config`, "pg_catalog.pg_config"},
	{`SELECT * FROM pg_timezone_names`, "pg_catalog.pg_timezone_names"},
	{`SELECT current_setting('data_directory')`, "current_setting"},
	{`SELECT pg_ls_dir('.')`, "pg_ls_dir"},
	{`SELECT pg_read_file('postgresql.conf')`, "pg_read_file"},
	{`SELECT pg_postmaster_start_time()`, "pg_postmaster_start_time"},
	{`SELECT pg_conf_load_time()`, "pg_conf_load_time"},
	{`SELECT pg_show_all_settings()`, "pg_show_all_settings"},
	// Statistics and activity.
	{`SELECT * FROM pg_stat_activity`, "pg_catalog.pg_stat_activity"},
	{`SELECT * FROM pg_stat_database`, "pg_catalog.pg_stat_database"},
	{`SELECT * FROM pg_stats`, "pg_catalog.pg_stats"},
	{`SELECT * FROM pg_statistic`, "pg_catalog.pg_statistic"},
	{`SELECT * FROM pg_statistic_ext_data`, "pg_catalog.pg_statistic_ext_data"},
	{`SELECT * FROM pg_locks`, "pg_catalog.pg_locks"},
	{`SELECT * FROM pg_prepared_statements`, "pg_catalog.pg_prepared_statements"},
	{`SELECT * FROM pg_cursors`, "pg_catalog.pg_cursors"},
	{`SELECT * FROM pg_replication_slots`, "pg_catalog.pg_replication_slots"},
	{`SELECT * FROM pg_largeobject`, "pg_catalog.pg_largeobject"},
	{`SELECT pg_stat_get_numscans(1259)`, "pg_stat_get_numscans"},
	// In a subquery, a join, a CTE, qualified or not.
	{`SELECT (SELECT count(*) FROM pg_authid)`, "pg_catalog.pg_authid"},
	{`SELECT c.relname FROM pg_class c JOIN pg_catalog.pg_stat_database s ON s.datid = c.oid`, "pg_catalog.pg_stat_database"},
	{`WITH r AS (SELECT * FROM pg_catalog.pg_shadow) SELECT * FROM r`, "pg_catalog.pg_shadow"},
	{`SELECT c.relname, (SELECT usename FROM pg_shadow WHERE usesysid = c.relowner) FROM pg_class c`, "pg_catalog.pg_shadow"},
	{`SELECT relname FROM pg_class WHERE EXISTS (SELECT 1 FROM pg_db_role_setting)`, "pg_catalog.pg_db_role_setting"},
}

func TestReadAllowlistRefusesRolesSettingsAndServerState(t *testing.T) {
	for _, c := range readRefusals {
		_, err := CheckRead(c.sql)
		if err == nil {
			t.Errorf("CheckRead(%q) accepts it", c.sql)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "not on relchain's read allowlist") || !strings.Contains(msg, c.names) {
			t.Errorf("CheckRead(%q) = %v; want a refusal naming %s and relchain's read allowlist", c.sql, err, c.names)
		}
	}
}

// readAllowed are reads of the allowlist: introspection as psql, pgjdbc,
// SQLAlchemy, Django and GORM send it.
var readAllowed = []string{
	`SELECT c.relname, n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`,
	`SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'acct'::regclass`,
	`SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d`,
	`SELECT i.indisprimary, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true) FROM pg_catalog.pg_index i`,
	`SELECT conname, pg_catalog.pg_get_constraintdef(oid, true) FROM pg_catalog.pg_constraint`,
	`SELECT amname FROM pg_am`, `SELECT collname FROM pg_collation`, `SELECT * FROM pg_inherits`,
	`SELECT objoid, description FROM pg_description`, `SELECT obj_description('acct'::regclass, 'pg_class')`,
	`SELECT col_description('acct'::regclass, 1)`, `SELECT tgname FROM pg_trigger`, `SELECT * FROM pg_depend`,
	`SELECT * FROM pg_sequence`, `SELECT proname, pg_get_function_arguments(oid) FROM pg_proc`,
	`SELECT typname FROM pg_type WHERE pg_type_is_visible(oid)`, `SELECT pg_table_is_visible('acct'::regclass)`,
	`SELECT current_schema(), current_schemas(false), current_database(), current_user, session_user`,
	`SELECT has_table_privilege('acct', 'SELECT')`, `SELECT has_schema_privilege('public', 'USAGE')`,
	`SELECT has_column_privilege('acct', 'id', 'SELECT')`,
	`SELECT pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c`,
	`SELECT pg_size_pretty(pg_total_relation_size('acct'))`,
	`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`,
	`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'acct'`,
	`SELECT * FROM information_schema.key_column_usage`, `SELECT * FROM information_schema.referential_constraints`,
	`SELECT * FROM information_schema.view_table_usage`, `SELECT * FROM information_schema.sql_features`,
	`SELECT (information_schema._pg_expandarray(i.indkey)).n FROM pg_catalog.pg_index i`,
	`SELECT word FROM pg_catalog.pg_get_keywords()`,
	`SELECT pol.polname, array(SELECT rolname FROM pg_catalog.pg_roles WHERE oid = ANY (pol.polroles) ORDER BY 1) FROM pg_catalog.pg_policy pol`,
}

func TestReadAllowlistAllowsIntrospection(t *testing.T) {
	for _, q := range readAllowed {
		if _, err := CheckRead(q); err != nil {
			t.Errorf("CheckRead(%q) = %v", q, err)
		}
	}
}

// pg_roles (and the other shared catalogs of catalogReplacements) are
// answered by the read path's own rows: this network's roles, settings
// hidden; pg_get_userbyid only for the owners of this database's objects.
func TestReadPolicyHidesTheServersRoles(t *testing.T) {
	r, err := CheckRead(`SELECT rolname, rolsuper, rolconfig FROM pg_roles JOIN pg_policy ON pg_roles.oid = ANY (polroles)`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "FROM pg_catalog.pg_roles x CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(x, '{\"rolname\": \"relchain\", \"rolconfig\": null") || !strings.Contains(r.Text, ") pg_roles") {
		t.Errorf("pg_roles is read unredacted: %q", r.Text)
	}
	r, err = CheckRead(`SELECT pg_get_userbyid(10) AS who`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Text, "SELECT CASE WHEN 10::pg_catalog.oid IN (") || !strings.Contains(r.Text, "THEN pg_get_userbyid(10) END AS who") {
		t.Errorf("pg_get_userbyid is not guarded: %q", r.Text)
	}
	for _, q := range []string{`SELECT pg_get_userbyid(10, 11)`, `SELECT pg_get_userbyid(VARIADIC ARRAY[10])`, `SELECT pg_relation_size('acct', 'main')`,
		`SELECT * FROM pg_get_userbyid(10)`, `SELECT * FROM ROWS FROM (pg_catalog.pg_get_userbyid(10))`,
		`SELECT x FROM generate_series(1, 3) g, LATERAL pg_get_userbyid(g::oid) x`, `SELECT * FROM pg_table_size('pg_authid') s`} {
		if _, err := CheckRead(q); err == nil {
			t.Errorf("CheckRead(%q) accepts a form the guard does not cover", q)
		}
	}
}

// Every relation of pg_catalog and information_schema on a real server is
// either on the read allowlist, and its filtered text runs, or refused as
// not on it: a catalog a later PostgreSQL release adds is refused until
// someone decides it is safe. Every relation of pg_catalog starts with
// pg_, so an unqualified name without that prefix can never resolve there
// (the read policy takes such names for the user's own tables).
func TestReadAllowlistCoversEveryCatalogOfTheServer(t *testing.T) {
	conn := connect(t) // the writer role: allowed texts must run as a non-superuser
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	rows, err := admin.Query(ctx, `SELECT n.nspname, c.relname FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
		ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	type rel struct{ schema, name string }
	var rels []rel
	for rows.Next() {
		var r rel
		if err := rows.Scan(&r.schema, &r.name); err != nil {
			t.Fatal(err)
		}
		rels = append(rels, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rels) < 150 {
		t.Fatalf("the server lists %d system relations; expected PostgreSQL's (over 150)", len(rels))
	}
	seen := map[string]bool{}
	allowed := 0
	for _, r := range rels {
		full := r.schema + "." + r.name
		seen[full] = true
		onList := false
		if r.schema == "pg_catalog" {
			_, onList = catalogRelations[r.name]
			if _, replaced := catalogReplacements[r.name]; replaced {
				onList = true
			}
			if !strings.HasPrefix(r.name, "pg_") {
				t.Errorf("%s does not start with pg_: an unqualified %s would be taken for a user's table", full, r.name)
			}
		} else {
			_, onList = infoSchemaViews[r.name]
			if _, replaced := infoSchemaReplacements[r.name]; replaced {
				onList = true
			}
		}
		texts := []string{fmt.Sprintf("SELECT * FROM %s", pgx.Identifier{r.schema, r.name}.Sanitize())}
		if r.schema == "pg_catalog" {
			texts = append(texts, "SELECT * FROM "+pgx.Identifier{r.name}.Sanitize())
		}
		for _, q := range texts {
			read, err := CheckRead(q)
			switch {
			case onList && err != nil:
				t.Errorf("%s is on the read allowlist but CheckRead(%q) = %v", full, q, err)
			case onList:
				if _, err := conn.Exec(ctx, read.Text); err != nil {
					t.Errorf("%s: the read text %q fails on the server: %v", full, read.Text, err)
				}
			case err == nil:
				t.Errorf("%s is not on the read allowlist but CheckRead(%q) accepts it", full, q)
			case !strings.Contains(err.Error(), "not on relchain's read allowlist") || !strings.Contains(err.Error(), full):
				t.Errorf("CheckRead(%q) = %v; want a refusal naming %s and relchain's read allowlist", q, err, full)
			}
		}
		if onList {
			allowed++
		}
	}
	for name := range catalogRelations {
		if !seen["pg_catalog."+name] {
			t.Errorf("pg_catalog.%s is on the read allowlist but not on the server", name)
		}
	}
	for name := range catalogReplacements {
		if !seen["pg_catalog."+name] {
			t.Errorf("pg_catalog.%s is replaced on the read path but not on the server", name)
		}
	}
	for name := range infoSchemaReplacements {
		if !seen["information_schema."+name] {
			t.Errorf("information_schema.%s is replaced on the read path but not on the server", name)
		}
	}
	for name := range infoSchemaViews {
		if !seen["information_schema."+name] {
			t.Errorf("information_schema.%s is on the read allowlist but not on the server", name)
		}
	}
	t.Logf("%d system relations on the server, %d on the read allowlist, %d refused", len(rels), allowed, len(rels)-allowed)
}
