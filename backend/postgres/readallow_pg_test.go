package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// The read path (abci_query, no key) shows nothing of a shared server's
// other roles: not their names, attributes or settings (issue 32,
// reproduction 7: SELECT rolname, rolsuper, rolconfig FROM pg_roles listed
// every role of the server with its settings), nor other databases or the
// server's settings. Each probe is refused (42501) or answers without a
// trace of the role made for the test.
func TestReadPathServesNoRoleOfTheServer(t *testing.T) {
	b := openWithAcct(t)
	secret := fmt.Sprintf("rc_readallow_secret_%d", os.Getpid())
	const setting = "7777kB"
	pgtest.Exec(t, "DROP ROLE IF EXISTS "+secret)
	pgtest.Exec(t, "CREATE ROLE "+secret+" LOGIN CREATEDB")
	t.Cleanup(func() { pgtest.Exec(t, "DROP ROLE IF EXISTS "+secret) })
	pgtest.Exec(t, "ALTER ROLE "+secret+" SET work_mem = '"+setting+"'")
	admin, err := pgx.Connect(ctx(t), pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var oid uint32
	if err := admin.QueryRow(ctx(t), `SELECT oid FROM pg_roles WHERE rolname = $1`, secret).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	probes := []string{
		`SELECT rolname, rolsuper, rolconfig FROM pg_roles`,
		`SELECT * FROM pg_catalog.pg_roles`,
		`SELECT rolname FROM pg_roles WHERE rolname = '` + secret + `'`,
		`SELECT usename, useconfig FROM pg_user`,
		`SELECT rolname, rolpassword FROM pg_authid`,
		`SELECT usename FROM pg_shadow`,
		`SELECT groname FROM pg_group`,
		`SELECT setconfig FROM pg_db_role_setting`,
		`SELECT roleid, member FROM pg_auth_members`,
		fmt.Sprintf(`SELECT pg_get_userbyid(%d)`, oid),
		fmt.Sprintf(`SELECT pg_catalog.pg_get_userbyid(n::oid) FROM generate_series(%d, %d) n`, oid-20, oid+20),
		fmt.Sprintf(`SELECT %d::regrole`, oid),
		fmt.Sprintf(`SELECT %d::oid::pg_catalog.regrole::text`, oid),
		`SELECT to_regrole('` + secret + `')`,
		`SELECT pg_has_role('` + secret + `', 'member')`,
		`SELECT has_table_privilege('` + secret + `', 'acct', 'select')`,
		`SELECT '` + secret + `=r/` + secret + `'::aclitem`,
		fmt.Sprintf(`SELECT shobj_description(%d, 'pg_authid')`, oid),
		`SELECT role_name FROM information_schema.enabled_roles`,
		`SELECT grantee, role_name FROM information_schema.applicable_roles`,
		`SELECT grantor, grantee FROM information_schema.table_privileges`,
		`SELECT schema_owner FROM information_schema.schemata`,
		`SELECT tableowner FROM pg_tables`,
		`SELECT relacl::text FROM pg_class`,
		`SELECT datname, datacl::text FROM pg_database`,
		`SELECT name, setting FROM pg_settings`,
		`SELECT current_setting('work_mem')`,
		`SELECT usename FROM pg_stat_activity`,
	}
	for _, q := range probes {
		rows, _, err := b.Query(ctx(t), q, nil)
		if err != nil {
			if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission || e.SQLState != "42501" {
				t.Errorf("Query(%q) = %v; want a permission refusal (42501) or an answer", q, err)
			}
			continue
		}
		if text := fmt.Sprint(rows.Rows); strings.Contains(text, secret) || strings.Contains(text, setting) {
			t.Errorf("Query(%q) shows the server's role %s or its setting: %s", q, secret, text)
		}
	}
	// The reproduction itself answers no role at all.
	if rows, _, err := b.Query(ctx(t), `SELECT rolname, rolsuper, rolconfig FROM pg_roles`, nil); err == nil && len(rows.Rows) > 0 {
		t.Errorf("SELECT rolname, rolsuper, rolconfig FROM pg_roles lists roles: %v", rows.Rows)
	}
	// The size of a catalog every database shares would count the
	// server's roles: it answers NULL.
	requireColumn(t, "pg_table_size of pg_authid", read(t, b, `SELECT pg_table_size('pg_catalog.pg_authid')`), 0, "<nil>")
	if got := read(t, b, `SELECT pg_table_size('acct') > 0`); got[0][0] != "true" {
		t.Errorf("pg_table_size of the user's table: %q", got)
	}
}

// psql's listings keep showing the owner of the network's objects (the
// owners of this database's objects are the roles pg_get_userbyid names).
func TestPsqlListingsShowOwners(t *testing.T) {
	b := openWithAcct(t)
	for _, c := range []struct {
		name string
		col  int
	}{{"dt", 3}, {"di", 3}, {"dn", 1}} {
		rows := read(t, b, psqlQueries(t, c.name, "")[0])
		if len(rows) == 0 {
			t.Fatalf(`\%s lists nothing`, c.name)
		}
		for _, r := range rows {
			if r[c.col] == "" || r[c.col] == "<nil>" {
				t.Errorf(`\%s shows no owner: %q`, c.name, r)
			}
		}
	}
}

// psql 15's other listings (captured in testdata/psql15) run on the read
// path and list the user's objects only: \dt+ with sizes and owners, \di+,
// \dn+, \df, \df+, \dT, \dT+, \dv, \dx, \dp.
func TestPsqlMoreListingsRunOnTheReadPath(t *testing.T) {
	b := openWithAcct(t)
	block(t, b, 2, `CREATE VIEW rich AS SELECT id, balance FROM acct WHERE balance > 50`,
		`CREATE FUNCTION public.double(x bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT x * 2'`)
	for _, c := range []struct {
		name string
		col  int
		want []string
	}{
		{"dt_plus", 1, []string{"acct"}},
		{"di_plus", 1, []string{"acct_owner", "acct_pkey"}},
		{"dn_plus", 0, []string{"public"}},
		{"dv", 1, []string{"rich"}},
		{"df", 1, []string{"double"}},
		{"df_plus", 1, []string{"double"}},
		{"dp", 1, []string{"acct", "rich"}},
		{"dT", 1, nil},
		{"dT_plus", 1, nil},
		{"dx", 0, []string{"plpgsql"}},
	} {
		qs := psqlQueries(t, c.name, "")
		if len(qs) != 1 {
			t.Fatalf("testdata %s: %d queries, want 1", c.name, len(qs))
		}
		rows := read(t, b, qs[0])
		requireColumn(t, `\`+c.name, rows, c.col, c.want...)
		requireNoRelchain(t, `\`+c.name, rows)
	}
	// \dt+'s owner and size.
	rows := read(t, b, psqlQueries(t, "dt_plus", "")[0])
	if rows[0][3] == "<nil>" || rows[0][3] == "" || !strings.HasSuffix(rows[0][6], "kB") && !strings.HasSuffix(rows[0][6], "bytes") {
		t.Errorf(`\dt+ shows no owner or size: %q`, rows[0])
	}
}

// SQLAlchemy names catalog columns with their schema
// (pg_catalog.pg_class.relname): the read text, where such a catalog is a
// filtered subquery, still resolves them.
func TestSchemaQualifiedCatalogColumnsRun(t *testing.T) {
	b := openWithAcct(t)
	requireColumn(t, "SQLAlchemy's table names", read(t, b,
		`SELECT pg_catalog.pg_class.relname FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace WHERE pg_catalog.pg_class.relkind = ANY (ARRAY['r', 'p', 'f']) AND pg_catalog.pg_class.relpersistence != 't' AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) AND pg_catalog.pg_namespace.nspname != 'pg_catalog' ORDER BY 1`),
		0, "acct")
	requireColumn(t, "SQLAlchemy's columns", read(t, b,
		`SELECT pg_catalog.pg_attribute.attname, pg_catalog.format_type(pg_catalog.pg_attribute.atttypid, pg_catalog.pg_attribute.atttypmod) FROM pg_catalog.pg_attribute JOIN pg_catalog.pg_class ON pg_catalog.pg_class.oid = pg_catalog.pg_attribute.attrelid WHERE pg_catalog.pg_class.relname = 'acct' AND pg_catalog.pg_attribute.attnum > 0 AND NOT pg_catalog.pg_attribute.attisdropped ORDER BY pg_catalog.pg_attribute.attnum`),
		0, "id", "owner", "balance")
	requireColumn(t, "information_schema, qualified", read(t, b,
		`SELECT information_schema.tables.table_name FROM information_schema.tables WHERE information_schema.tables.table_schema = 'public'`),
		0, "acct")
	requireNoRelchain(t, "pg_catalog.pg_class.*", read(t, b, `SELECT pg_catalog.pg_class.* FROM pg_catalog.pg_class`))
}
