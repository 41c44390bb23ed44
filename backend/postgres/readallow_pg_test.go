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
		`SELECT r.rolname, r.rolconfig FROM pg_roles r, pg_policy p`,
		`SELECT pol.polname, array(SELECT rolname FROM pg_catalog.pg_roles WHERE oid = ANY (pol.polroles)) FROM pg_catalog.pg_policy pol RIGHT JOIN pg_class c ON false`,
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
	// The reproduction itself answers the network's roles only (issue 33:
	// psql's \du reads pg_roles), without their settings.
	for _, r := range read(t, b, `SELECT rolname, rolsuper, rolconfig FROM pg_roles`) {
		if r[0] == secret || r[2] != "<nil>" {
			t.Errorf("SELECT rolname, rolsuper, rolconfig FROM pg_roles shows %q", r)
		}
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

// pgjdbc's DatabaseMetaData (getTables, getColumns, getPrimaryKeys,
// getSchemas, getTypeInfo's lookup) and Django's PostgreSQL introspection
// (table list, description, constraints, indexes, sequences) run on the
// read path: their catalogs and functions are on the allowlist.
func TestJDBCAndDjangoIntrospectionRun(t *testing.T) {
	b := openWithAcct(t)
	for _, c := range []struct {
		what string
		sql  string
		col  int
		want []string
	}{
		{"pgjdbc getTables", `SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, c.relname AS TABLE_NAME, CASE n.nspname ~ '^pg_' OR n.nspname = 'information_schema' WHEN true THEN 'SYSTEM' WHEN false THEN CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'PARTITIONED TABLE' WHEN 'v' THEN 'VIEW' ELSE NULL END ELSE NULL END AS TABLE_TYPE, d.description AS REMARKS FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_description d ON (c.oid = d.objoid AND d.objsubid = 0 AND d.classoid = 'pg_class'::regclass) WHERE c.relnamespace = n.oid AND c.relname LIKE 'acct' ORDER BY TABLE_TYPE, TABLE_SCHEM, TABLE_NAME`, 2, []string{"acct"}},
		{"pgjdbc getColumns", `SELECT * FROM (SELECT n.nspname, c.relname, a.attname, a.atttypid, a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) AS attnotnull, a.atttypmod, a.attlen, t.typtypmod, row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, nullif(a.attidentity, '') AS attidentity, nullif(a.attgenerated, '') AS attgenerated, pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc, dsc.description, t.typbasetype, t.typtype FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid) JOIN pg_catalog.pg_attribute a ON (a.attrelid = c.oid) JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid) LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid = def.adrelid AND a.attnum = def.adnum) LEFT JOIN pg_catalog.pg_description dsc ON (c.oid = dsc.objoid AND a.attnum = dsc.objsubid) LEFT JOIN pg_catalog.pg_class dc ON (dc.oid = dsc.classoid AND dc.relname = 'pg_class') LEFT JOIN pg_catalog.pg_namespace dn ON (dc.relnamespace = dn.oid AND dn.nspname = 'pg_catalog') WHERE c.relkind IN ('r', 'p', 'v', 'f', 'm') AND a.attnum > 0 AND NOT a.attisdropped AND c.relname LIKE 'acct') c WHERE true ORDER BY nspname, c.relname, attnum`, 2, []string{"id", "owner", "balance"}},
		{"pgjdbc getPrimaryKeys", `SELECT result.TABLE_CAT, result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ, result.PK_NAME FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME, (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME, information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid) JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid) JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid) JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) WHERE true AND ct.relname = E'acct' AND i.indisprimary) result WHERE result.A_ATTNUM = (result.KEYS).x ORDER BY result.table_name, result.pk_name, result.key_seq`, 3, []string{"id"}},
		{"pgjdbc getSchemas", `SELECT nspname AS TABLE_SCHEM, NULL AS TABLE_CATALOG FROM pg_catalog.pg_namespace WHERE nspname <> 'pg_toast' AND (nspname !~ '^pg_temp_' OR nspname = (pg_catalog.current_schemas(true))[1]) AND (nspname !~ '^pg_toast_temp_' OR nspname = replace((pg_catalog.current_schemas(true))[1], 'pg_temp_', 'pg_toast_temp_')) AND nspname = 'public' ORDER BY TABLE_SCHEM`, 0, []string{"public"}},
		{"pgjdbc type lookup", `SELECT typinput = 'pg_catalog.array_in'::regproc AS is_array, typtype, typname, pg_type.oid FROM pg_catalog.pg_type LEFT JOIN (SELECT ns.oid AS nspoid, ns.nspname, r.r FROM pg_namespace AS ns JOIN (SELECT s.r, (current_schemas(false))[s.r] AS nspname FROM generate_series(1, array_upper(current_schemas(false), 1)) AS s(r)) AS r USING (nspname)) AS sp ON sp.nspoid = typnamespace WHERE pg_type.typname = 'int8' ORDER BY sp.r, pg_type.oid DESC`, 2, []string{"int8"}},
		{"Django table list", `SELECT c.relname, CASE WHEN c.relispartition THEN 'p' WHEN c.relkind IN ('m', 'v') THEN 'v' ELSE 't' END, obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('f', 'm', 'p', 'r', 'v') AND n.nspname NOT IN ('pg_catalog', 'pg_toast') AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1`, 0, []string{"acct"}},
		{"Django description", `SELECT a.attname AS column_name, NOT (a.attnotnull OR (t.typtype = 'd' AND t.typnotnull)) AS is_nullable, pg_get_expr(ad.adbin, ad.adrelid) AS column_default, CASE WHEN collname = 'default' THEN NULL ELSE collname END AS collation, a.attidentity != '' AS is_autofield, col_description(a.attrelid, a.attnum) AS column_comment FROM pg_attribute a LEFT JOIN pg_attrdef ad ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum LEFT JOIN pg_collation co ON a.attcollation = co.oid JOIN pg_type t ON a.atttypid = t.oid JOIN pg_class c ON a.attrelid = c.oid JOIN pg_namespace n ON c.relnamespace = n.oid WHERE c.relkind IN ('f', 'm', 'p', 'r', 'v') AND c.relname = 'acct' AND a.attnum > 0 AND n.nspname NOT IN ('pg_catalog', 'pg_toast') AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY a.attnum`, 0, []string{"id", "owner", "balance"}},
		{"Django constraints", `SELECT c.conname, array(SELECT attname FROM unnest(c.conkey) WITH ORDINALITY cols(colid, arridx) JOIN pg_attribute AS ca ON cols.colid = ca.attnum WHERE ca.attrelid = c.conrelid ORDER BY cols.arridx), c.contype, (SELECT fkc.relname || '.' || fka.attname FROM pg_attribute AS fka JOIN pg_class AS fkc ON fka.attrelid = fkc.oid WHERE fka.attrelid = c.confrelid AND fka.attnum = c.confkey[1]), cl.reloptions FROM pg_constraint AS c JOIN pg_class AS cl ON c.conrelid = cl.oid WHERE cl.relname = 'acct' AND pg_catalog.pg_table_is_visible(cl.oid) ORDER BY 1`, 0, []string{"acct_balance_check", "acct_pkey"}},
		{"Django indexes", `SELECT indexname, array_agg(attname ORDER BY arridx), indisunique, indisprimary, array_agg(ordering ORDER BY arridx), amname, exprdef, s2.attoptions FROM (SELECT c2.relname AS indexname, idx.*, attr.attname, am.amname, CASE WHEN idx.indexprs IS NOT NULL THEN pg_get_indexdef(idx.indexrelid) END AS exprdef, CASE am.amname WHEN 'btree' THEN CASE (option & 1) WHEN 1 THEN 'DESC' ELSE 'ASC' END END AS ordering, c2.reloptions AS attoptions FROM (SELECT * FROM pg_index i, unnest(i.indkey, i.indoption) WITH ORDINALITY koi(key, option, arridx)) idx LEFT JOIN pg_class c ON idx.indrelid = c.oid LEFT JOIN pg_class c2 ON idx.indexrelid = c2.oid LEFT JOIN pg_am am ON c2.relam = am.oid LEFT JOIN pg_attribute attr ON attr.attrelid = c.oid AND attr.attnum = idx.key WHERE c.relname = 'acct' AND pg_catalog.pg_table_is_visible(c.oid)) s2 GROUP BY indexname, indisunique, indisprimary, amname, exprdef, attoptions ORDER BY 1`, 0, []string{"acct_owner", "acct_pkey"}},
		{"Django sequences", `SELECT s.relname, a.attname FROM pg_class s JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid JOIN pg_class tbl ON tbl.oid = d.refobjid AND tbl.relname = 'acct' AND pg_catalog.pg_table_is_visible(tbl.oid) WHERE s.relkind = 'S'`, 0, nil},
	} {
		rows := read(t, b, c.sql)
		requireColumn(t, c.what, rows, c.col, c.want...)
		requireNoRelchain(t, c.what, rows)
	}
}
