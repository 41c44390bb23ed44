package postgres_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pggate"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// capturedOID is the OID of acct in the database psql's queries were
// captured from (testdata/psql15); the tests put the current one in its
// place.
const capturedOID = "'25632'"

// psqlQueries are the queries psql 15 sends for one meta-command, as
// captured with psql -E into testdata/psql15/<name>.sql.
func psqlQueries(t *testing.T, name, oid string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "psql15", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range strings.Split(string(data), "\n\n") { // psql's queries hold no blank line
		lines := strings.Split(strings.TrimSpace(q), "\n")
		if len(lines) > 0 && strings.HasPrefix(lines[0], "-- ") {
			lines = lines[1:]
		}
		if q := strings.TrimSpace(strings.Join(lines, "\n")); q != "" {
			out = append(out, strings.ReplaceAll(q, capturedOID, "'"+oid+"'"))
		}
	}
	return out
}

// openWithAcct opens a gated backend with psql's example table: a
// primary key, a default, a check constraint and an index.
func openWithAcct(t *testing.T) *postgres.Backend {
	t.Helper()
	b := mustOpen(t, pgtest.DSN(t))
	t.Cleanup(func() { b.Close() })
	block(t, b, 1,
		`CREATE TABLE acct (id bigint PRIMARY KEY, owner text NOT NULL, balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0))`,
		`CREATE INDEX acct_owner ON acct (owner)`,
		`INSERT INTO acct VALUES (1, 'ann', 100)`)
	return b
}

// read runs a query that must succeed and returns its rows as text.
func read(t *testing.T, b *postgres.Backend, sql string, args ...any) [][]string {
	t.Helper()
	rows, _, err := b.Query(ctx(t), sql, args)
	if err != nil {
		t.Fatalf("Query(%q): %v", sql, err)
	}
	out := make([][]string, 0, len(rows.Rows))
	for _, r := range rows.Rows {
		var row []string
		for _, v := range r {
			switch v := v.(type) {
			case []byte:
				row = append(row, string(v))
			default:
				row = append(row, fmt.Sprint(v))
			}
		}
		out = append(out, row)
	}
	return out
}

// column is the i-th value of every row.
func column(rows [][]string, i int) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r[i])
	}
	return out
}

func requireColumn(t *testing.T, what string, rows [][]string, i int, want ...string) {
	t.Helper()
	if got := column(rows, i); !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// relchainNames are names of relchain's own tables and functions that
// introspection must not list (its schema and triggers start with
// "relchain"; pg_catalog has a function "system", so that table's name is
// not looked for).
var relchainNames = []string{"meta", "digest", "changes", "capture", "after_ddl", "attach"}

func requireNoRelchain(t *testing.T, what string, rows [][]string) {
	t.Helper()
	for _, r := range rows {
		for _, v := range r {
			if strings.HasPrefix(v, "relchain") || slices.Contains(relchainNames, v) {
				t.Errorf("%s lists relchain's %q: row %q", what, v, r)
			}
		}
	}
}

func TestPsqlListingsShowTheUsersTablesOnly(t *testing.T) {
	b := openWithAcct(t)
	for _, c := range []struct {
		name string
		col  int
		want []string
	}{
		{"d", 1, []string{"acct"}},
		{"dt", 1, []string{"acct"}},
		{"di", 1, []string{"acct_owner", "acct_pkey"}},
		{"dn", 0, []string{"public"}},
	} {
		qs := psqlQueries(t, c.name, "")
		if len(qs) != 1 {
			t.Fatalf("testdata %s: %d queries, want 1", c.name, len(qs))
		}
		rows := read(t, b, qs[0])
		requireColumn(t, `\`+c.name, rows, c.col, c.want...)
		requireNoRelchain(t, `\`+c.name, rows)
	}
}

func TestPsqlDescribesATable(t *testing.T) {
	b := openWithAcct(t)
	oid := read(t, b, `SELECT c.oid FROM pg_catalog.pg_class c WHERE c.relname = 'acct'`)[0][0]
	qs := psqlQueries(t, "d_acct", oid)
	if len(qs) != 13 {
		t.Fatalf("testdata d_acct: %d queries, want 13", len(qs))
	}
	results := make([][][]string, len(qs))
	for i, q := range qs {
		results[i] = read(t, b, q)
		requireNoRelchain(t, fmt.Sprintf(`\d acct query %d`, i+1), results[i])
	}
	requireColumn(t, "the table lookup", results[0], 2, "acct")
	requireColumn(t, "the columns", results[2], 0, "id", "owner", "balance")
	requireColumn(t, "the column types", results[2], 1, "bigint", "text", "bigint")
	requireColumn(t, "the defaults", results[2], 2, "<nil>", "<nil>", "0")
	requireColumn(t, "the indexes", results[3], 0, "acct_pkey", "acct_owner")
	requireColumn(t, "the check constraints", results[4], 0, "acct_balance_check")
	requireColumn(t, "relhastriggers (relchain's change capture)", results[1], 4, "true")
	requireColumn(t, "the triggers (relchain's capture triggers hidden)", results[10], 0)
}

func TestORMIntrospectionSeesTheUsersTablesOnly(t *testing.T) {
	b := openWithAcct(t)
	requireColumn(t, "tables in current_schema()", read(t, b,
		`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`), 0, "acct")
	requireColumn(t, "columns of acct", read(t, b,
		`SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, "acct"),
		0, "id", "owner", "balance")
	for _, rel := range []string{"meta", "digest", "system", "changes"} {
		requireColumn(t, "columns of relchain's "+rel, read(t, b,
			`SELECT column_name FROM information_schema.columns WHERE table_name = $1`, rel), 0)
	}
	for _, q := range []string{
		`SELECT table_schema, table_name FROM information_schema.tables`,
		`SELECT table_schema, table_name, column_name FROM information_schema.columns`,
		`SELECT schema_name FROM information_schema.schemata`,
		`SELECT routine_schema, routine_name FROM information_schema.routines`,
		`SELECT trigger_name, event_object_table FROM information_schema.triggers`,
		`SELECT schemaname, tablename FROM pg_tables`,
		`SELECT relname FROM pg_catalog.pg_class WHERE relname IN ('meta', 'digest', 'system', 'changes')`,
		`SELECT relname FROM pg_class WHERE relnamespace = 'relchain'::regnamespace`,
		`SELECT nspname FROM pg_catalog.pg_namespace`,
		`SELECT tgname FROM pg_catalog.pg_trigger`,
		`SELECT proname FROM pg_catalog.pg_proc WHERE proname IN ('capture', 'after_ddl', 'attach')`,
		`SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'relchain.meta'::regclass`,
	} {
		requireNoRelchain(t, q, read(t, b, q))
	}
	// GORM (HasTable, CurrentDatabase, HasIndex, ColumnTypes' primary keys)
	// and knex (hasTable, hasColumn).
	requireColumn(t, "GORM HasTable", read(t, b,
		`SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2 AND table_type = $3`,
		"public", "acct", "BASE TABLE"), 0, "1")
	requireColumn(t, "GORM HasTable of relchain's meta", read(t, b,
		`SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2 AND table_type = $3`,
		"relchain", "meta", "BASE TABLE"), 0, "0")
	if got := read(t, b, `SELECT CURRENT_DATABASE()`); len(got) != 1 || got[0][0] == "" {
		t.Errorf("GORM CurrentDatabase: %q", got)
	}
	requireColumn(t, "GORM HasIndex", read(t, b,
		`SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexname = $2 AND schemaname = $3`,
		"acct", "acct_owner", "public"), 0, "1")
	requireColumn(t, "GORM ColumnTypes", read(t, b,
		`SELECT c.column_name, c.is_nullable = 'YES', c.udt_name, c.character_maximum_length, c.numeric_precision, c.numeric_precision_radix, c.numeric_scale, c.datetime_precision, 8 * typlen, c.column_default, pd.description, c.identity_increment FROM information_schema.columns AS c JOIN pg_type AS pgt ON c.udt_name = pgt.typname LEFT JOIN pg_catalog.pg_description as pd ON pd.objsubid = c.ordinal_position AND pd.objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = c.table_name AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = c.table_schema)) where table_catalog = current_database() AND table_schema = $1 AND table_name = $2 ORDER BY c.ordinal_position`,
		"public", "acct"), 0, "id", "owner", "balance")
	requireColumn(t, "GORM primary key columns", read(t, b,
		`SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'acct'::regclass AND i.indisprimary`), 0, "id")
	requireColumn(t, "GORM table columns", read(t, b,
		`SELECT a.attname as column_name, format_type(a.atttypid, a.atttypmod) AS data_type FROM pg_attribute a JOIN pg_class b ON a.attrelid = b.oid AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $1) WHERE a.attnum > 0 AND NOT a.attisdropped AND b.relname = $2 ORDER BY a.attnum`,
		"public", "acct"), 1, "bigint", "text", "bigint")
	requireColumn(t, "knex hasTable", read(t, b,
		`select table_name from information_schema.tables where table_name = $1 and table_schema = current_schema()`, "acct"), 0, "acct")
	requireColumn(t, "knex hasColumn", read(t, b,
		`select column_name from information_schema.columns where table_name = $1 and table_schema = current_schema() and column_name = $2`, "acct", "balance"), 0, "balance")
}

// Reads decide nothing, so what blocks refuse only for determinism runs on
// the query path.
func TestReadPathAllowsWhatOnlyDeterminismForbids(t *testing.T) {
	b := openWithAcct(t)
	for _, q := range []string{
		`SELECT ctid, xmin, id FROM acct`,
		`SELECT now(), random(), clock_timestamp(), gen_random_uuid()`,
		`SELECT id FROM acct LIMIT 1`,
		`SELECT string_agg(owner, ',') FROM acct`,
		`SELECT id, row_number() OVER (ORDER BY id) FROM acct`,
		`SELECT 'acct'::regclass::oid`,
		`WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r`,
		`SELECT current_user, current_schema(), current_database()`,
	} {
		read(t, b, q)
	}
}

// Safety refusals stay: files, network, settings, sleeping, locks, server
// control, writes, server state, relchain's tables.
func TestReadPathKeepsSafetyRefusals(t *testing.T) {
	b := openWithAcct(t)
	for _, q := range []string{
		`SELECT pg_read_file('/etc/hostname')`,
		`SELECT pg_catalog.pg_ls_dir('/')`,
		`SELECT set_config('statement_timeout', '0', true)`,
		`SELECT current_setting('data_directory')`,
		`SELECT pg_sleep(1000)`,
		`SELECT pg_catalog.pg_sleep_for('1000 seconds')`,
		`SELECT dblink('host=example.com', 'SELECT 1')`,
		`SELECT lo_import('/etc/passwd')`,
		`SELECT pg_advisory_lock(1)`,
		`SELECT pg_terminate_backend(1)`,
		`SELECT pg_reload_conf()`,
		`SELECT pg_postmaster_start_time()`,
		`SELECT query_to_xml('SELECT * FROM relchain.meta', true, true, '')`,
		`SELECT lpad('x', 100000000)`,
		`SELECT * FROM acct FOR UPDATE`,
		`SELECT * FROM relchain.meta`,
		`SELECT height FROM relchain.meta m JOIN pg_catalog.pg_class c ON c.oid = 1`,
		`SELECT relchain.meta.height FROM acct`,
		`SELECT * FROM pg_stat_activity`,
		`SELECT * FROM pg_catalog.pg_file_settings`,
		`SELECT * FROM pg_catalog.pg_authid`,
		`SELECT * FROM pg_catalog.pg_shadow`,
		`SELECT * FROM pg_catalog.pg_file_settings`,
		`SELECT * FROM pg_toast.pg_toast_1255`,
		`SELECT * FROM information_schema.user_mapping_options`,
		`SELECT nextval('s')`,
	} {
		rows, _, err := b.Query(ctx(t), q, nil)
		if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission || e.SQLState != "42501" {
			t.Errorf("Query(%q) = %v, %v; want a permission refusal (42501)", q, rows, err)
		}
	}
	for _, q := range []string{
		`INSERT INTO acct VALUES (2, 'bo', 1)`,
		`WITH d AS (DELETE FROM acct RETURNING id) SELECT id FROM d`,
		`WITH d AS (UPDATE acct SET balance = 0 RETURNING id) SELECT ctid FROM d`,
	} {
		rows, _, err := b.Query(ctx(t), q, nil)
		if e := backend.AsError(err); e == nil || e.SQLState != "25006" {
			t.Errorf("Query(%q) = %v, %v; want a read-only refusal (25006)", q, rows, err)
		}
	}
	requireColumn(t, "acct after the refused writes", read(t, b, `SELECT balance FROM acct`), 0, "100")
}

// A block's statement is judged as strictly as before: psql's catalog
// queries stay refused there.
func TestBlocksStillRefuseCatalogQueries(t *testing.T) {
	b := openWithAcct(t)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	for _, name := range []string{"d", "d_acct", "dn"} {
		for _, q := range psqlQueries(t, name, "1") {
			_, err := blk.Exec(ctx(t), q, nil)
			if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission {
				t.Errorf("a block's Exec(%q) = %v; want a permission refusal", q, err)
			}
		}
	}
}

// Describe judges a read-only query as Query does: catalog queries are
// describable, safety refusals stay.
func TestDescribeFollowsTheReadPolicy(t *testing.T) {
	b := openWithAcct(t)
	d, err := b.Describe(ctx(t), `SELECT c.oid, c.relname FROM pg_catalog.pg_class c WHERE c.relname = $1`)
	if err != nil {
		t.Fatalf("Describe of a catalog query: %v", err)
	}
	if len(d.Columns) != 2 || d.Columns[1].Name != "relname" {
		t.Errorf("Describe of a catalog query: columns %+v", d.Columns)
	}
	for _, q := range []string{`SELECT pg_read_file('/etc/hostname')`, `SELECT * FROM relchain.meta`, `SELECT * FROM pg_stat_activity`} {
		if _, err := b.Describe(ctx(t), q); backend.AsError(err) == nil {
			t.Errorf("Describe(%q) = %v, want a refusal", q, err)
		}
	}
}

// guiQueries are the queries of testdata/gui/<client>.sql (blank-line
// separated; a first line starting with "-- " says where they come from).
func guiQueries(t *testing.T, client string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "gui", client+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range strings.Split(string(data), "\n\n") {
		if strings.HasPrefix(q, "-- ") {
			q = q[strings.IndexByte(q+"\n", '\n'):]
		}
		if q = strings.TrimSpace(q); q != "" {
			out = append(out, q)
		}
	}
	return out
}

// What GUI tools ask (issue 33, item 9) is answered on the read path with
// this network's own database and roles only: psql's \l, \du, \dg, \dx+,
// \dm, \ds, \d+, pgcli's completion queries, pgjdbc's DatabaseMetaData as
// DBeaver calls it and Sequelize's introspection all run (on main \l, \du,
// pgcli's databases(), pgjdbc's getImportedKeys and Sequelize's
// describeTable were refused with 42501), and none shows a role, a
// setting or a database of the shared server beyond the network's own.
func TestGUIToolsSeeThisNetworkOnly(t *testing.T) {
	b := openWithAcct(t)
	block(t, b, 2, `CREATE TABLE child (id bigint PRIMARY KEY, acct_id bigint REFERENCES acct (id))`,
		`CREATE INDEX child_acct ON child (acct_id)`,
		`CREATE VIEW rich AS SELECT id, balance FROM acct WHERE balance > 50`,
		`CREATE FUNCTION public.double(x bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT x * 2'`)
	secret := fmt.Sprintf("rc_gui_secret_%d", os.Getpid())
	otherDB := fmt.Sprintf("rc_gui_otherdb_%d", os.Getpid())
	const setting = "7331kB"
	pgtest.Exec(t, "DROP ROLE IF EXISTS "+secret)
	pgtest.Exec(t, "CREATE ROLE "+secret+" LOGIN CREATEDB")
	t.Cleanup(func() { pgtest.Exec(t, "DROP ROLE IF EXISTS "+secret) })
	pgtest.Exec(t, "ALTER ROLE "+secret+" SET work_mem = '"+setting+"'")
	pgtest.Exec(t, "DROP DATABASE IF EXISTS "+otherDB)
	pgtest.Exec(t, "CREATE DATABASE "+otherDB+" OWNER "+secret)
	t.Cleanup(func() { pgtest.Exec(t, "DROP DATABASE IF EXISTS "+otherDB) })
	reader := read(t, b, `SELECT current_user`)[0][0]
	writer := read(t, b, `SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'acct'`)[0][0]
	oid := read(t, b, `SELECT 'acct'::regclass::oid`)[0][0]

	results := map[string][][]string{}
	run := func(what string, qs []string) {
		for i, q := range qs {
			rows := read(t, b, q)
			text := fmt.Sprint(rows)
			for _, leak := range []string{secret, otherDB, setting, "template1", "data_directory", "/tmp/"} {
				if strings.Contains(text, leak) {
					t.Errorf("%s (query %d) shows %q of the server: %s", what, i, leak, text)
				}
			}
			results[fmt.Sprintf("%s/%d", what, i)] = rows
		}
	}
	for _, name := range []string{"l", "l_plus", "du", "du_plus", "dg", "dm", "ds", "dx_plus", "d_plus_acct"} {
		run(`\`+name, psqlQueries(t, name, oid))
	}
	for _, client := range []string{"pgcli", "pgjdbc", "sequelize"} {
		run(client, guiQueries(t, client))
	}

	// \l: this database alone, under the network's name, owned by the writer.
	requireColumn(t, `\l names`, results[`\l/0`], 0, "relchain")
	requireColumn(t, `\l owners`, results[`\l/0`], 1, writer)
	requireColumn(t, "pgcli's databases()", results["pgcli/5"], 0, "relchain")
	// \l+: this database's size and tablespace; \du+ the same roles.
	if r := results[`\l_plus/0`]; len(r) != 1 || r[0][0] != "relchain" || !strings.HasSuffix(r[0][8], "kB") && !strings.HasSuffix(r[0][8], "MB") || r[0][9] != "pg_default" {
		t.Errorf(`\l+ = %q; want relchain with its size and tablespace`, r)
	}
	if got, want := column(results[`\du_plus/0`], 0), column(results[`\du/0`], 0); !slices.Equal(got, want) {
		t.Errorf(`\du+ lists %q, \du %q`, got, want)
	}
	// The functions \l+ and \du+ call answer NULL for what the read path
	// does not show.
	for _, q := range []string{
		`SELECT has_database_privilege('` + otherDB + `', 'CONNECT')`,
		`SELECT pg_database_size('` + otherDB + `')`,
		`SELECT pg_has_role('` + secret + `', 'USAGE')`,
		`SELECT pg_has_role('no_such_role_at_all', 'USAGE')`,
		`SELECT shobj_description(d.oid, 'pg_database') FROM pg_catalog.pg_database d WHERE false`,
		`SELECT pg_catalog.pg_describe_object('pg_catalog.pg_authid'::pg_catalog.regclass, 10, 0)`,
	} {
		if got := read(t, b, q); len(got) > 0 && got[0][0] != "<nil>" {
			t.Errorf("%s = %q; want NULL", q, got)
		}
	}
	if got := read(t, b, `SELECT has_database_privilege('relchain', 'CONNECT'), pg_database_size('relchain') > 0`); got[0][0] != "true" || got[0][1] != "true" {
		t.Errorf("has_database_privilege and pg_database_size of the network's database: %q", got)
	}
	// \du, \dg: the network's one role, relchain (the owner of its
	// objects, each node's writer role under one name); not the node's
	// own role names, the server's superuser or its other roles.
	for _, q := range []string{`\du/0`, `\dg/0`} {
		roles := column(results[q], 0)
		if !slices.Equal(roles, []string{pggate.NetworkUser}) {
			t.Errorf("%s lists %q; want only %s (not the writer %s, the reader %s, %s)", q, roles, pggate.NetworkUser, writer, reader, secret)
		}
	}
	requireColumn(t, `\dm`, results[`\dm/0`], 1)
	requireColumn(t, `\dx+ objects`, results[`\dx_plus/1`], 0, "function plpgsql_call_handler()", "function plpgsql_inline_handler(internal)", "function plpgsql_validator(oid)", "language plpgsql")
	requireColumn(t, `\d+ acct columns`, results[`\d_plus_acct/2`], 0, "id", "owner", "balance")
	requireColumn(t, `\d+ acct referenced by`, results[`\d_plus_acct/6`], 0, "child_acct_id_fkey")
	requireNoRelchain(t, `\d+ acct triggers`, results[`\d_plus_acct/10`])
	requireColumn(t, "pgcli's foreign keys", results["pgcli/8"], 1, "acct")
	requireColumn(t, "pgjdbc getImportedKeys' pg_settings lookup", results["pgjdbc/5"], 0, "32")
	requireColumn(t, "pgjdbc getImportedKeys", results["pgjdbc/6"], 2, "acct")
	requireColumn(t, "pgjdbc getExportedKeys", results["pgjdbc/7"], 6, "child")
	if got := slices.Sorted(slices.Values(column(results["sequelize/0"], 1))); !slices.Equal(got, []string{"balance", "id", "owner"}) {
		t.Errorf("Sequelize describeTable lists %q", got)
	}
	requireColumn(t, "Sequelize showIndex", results["sequelize/1"], 0, "acct_owner", "acct_pkey")
	// information_schema.constraint_column_usage showed only tables the
	// session's role owns, and the reader owns none; the read path's own
	// definition shows this database's. table_constraints and
	// referential_constraints show a constraint to a role with more than
	// SELECT on its table: the reader has REFERENCES (GORM's
	// HasConstraint, Sequelize's foreign keys).
	requireColumn(t, "table_constraints", read(t, b,
		`SELECT constraint_name FROM information_schema.table_constraints WHERE table_name = 'child' AND constraint_type = 'FOREIGN KEY'`),
		0, "child_acct_id_fkey")
	requireColumn(t, "referential_constraints", read(t, b,
		`SELECT constraint_name FROM information_schema.referential_constraints WHERE constraint_name = 'child_acct_id_fkey'`),
		0, "child_acct_id_fkey")
	requireColumn(t, "constraint_column_usage", read(t, b,
		`SELECT constraint_name, column_name FROM information_schema.constraint_column_usage WHERE table_name = 'acct' AND constraint_name LIKE 'child%'`),
		0, "child_acct_id_fkey")
	requireColumn(t, "constraint_table_usage", read(t, b,
		`SELECT constraint_name FROM information_schema.constraint_table_usage WHERE table_name = 'child' ORDER BY 1`),
		0, "child_pkey")
	requireNoRelchain(t, "pgcli's tables", results["pgcli/2"])

	// Statistics come without numbers, settings without the server's.
	rows := read(t, b, `SELECT relname, heap_blks_read, heap_blks_hit FROM pg_catalog.pg_statio_all_tables WHERE schemaname = 'public' ORDER BY 1`)
	if want := [][]string{{"acct", "<nil>", "<nil>"}, {"child", "<nil>", "<nil>"}}; fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("pg_statio_all_tables = %q, want %q", rows, want)
	}
	requireNoRelchain(t, "pg_stat_all_tables", read(t, b, `SELECT relname, schemaname FROM pg_stat_all_tables`))
	for _, r := range read(t, b, `SELECT name, setting, sourcefile, reset_val, source FROM pg_settings`) {
		if slices.Contains([]string{"port", "data_directory", "listen_addresses", "shared_buffers", "server_version"}, r[0]) || r[2] != "<nil>" || r[3] != "<nil>" || r[4] != "<nil>" {
			t.Errorf("pg_settings shows the server's %q", r)
		}
	}
	if got := read(t, b, `SELECT rolname, rolconfig FROM pg_roles WHERE rolconfig IS NOT NULL`); len(got) != 0 {
		t.Errorf("pg_roles shows role settings: %q", got)
	}
	if got := read(t, b, `SELECT count(*) FROM pg_auth_members`); got[0][0] != "0" {
		t.Errorf("pg_auth_members lists %s memberships; the network's roles have none", got[0][0])
	}
}
