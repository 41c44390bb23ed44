package readmegate

// verdict is what docs/sql.md promises for a statement.
type verdict int

const (
	allow   verdict = iota // runs as written
	rewrite                // runs, reading the block's time or seeded randomness
	refuse                 // the gate refuses it (code 7)
)

// gateRow is one representative statement per dialect ("" where the
// construct does not exist in that dialect), tagged with the docs/sql.md
// phrases it illustrates.
type gateRow struct {
	phrases                 []string
	want                    verdict
	sqlite, postgres, mysql string
}

// same is a row whose statement is the same text in every dialect.
func same(want verdict, sql string, phrases ...string) gateRow {
	return gateRow{phrases: phrases, want: want, sqlite: sql, postgres: sql, mysql: sql}
}

// rows is the corpus: docs/sql.md's allowed, rewritten and refused sections,
// construct by construct.
var rows = []gateRow{
	// Allowed.
	same(allow, "SELECT id, v FROM t WHERE id = 1", "SELECT"),
	same(allow, "INSERT INTO t (id, v) VALUES (1, 'a')", "INSERT"),
	same(allow, "UPDATE t SET v = 'b' WHERE id = 1", "UPDATE"),
	same(allow, "DELETE FROM t WHERE id = 1", "DELETE"),
	same(allow, "SELECT a.id, b.v FROM t a JOIN u b ON b.id = a.id ORDER BY a.id", "joins"),
	same(allow, "SELECT id FROM t WHERE id IN (SELECT id FROM u)", "subqueries"),
	same(allow, "WITH x AS (SELECT id FROM t) SELECT id FROM x", "CTEs"),
	{phrases: []string{"UPSERT"}, want: allow,
		sqlite:   "INSERT INTO t (id, v) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
		postgres: "INSERT INTO t (id, v) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET v = excluded.v",
		mysql:    "INSERT INTO t (id, v) VALUES (1, 'a') ON DUPLICATE KEY UPDATE v = VALUES(v)"},
	{phrases: []string{"RETURNING"}, want: allow,
		sqlite:   "INSERT INTO t (id, v) VALUES (2, 'a') RETURNING id",
		postgres: "INSERT INTO t (id, v) VALUES (2, 'a') RETURNING id"},
	same(allow, "CREATE TABLE w (id INTEGER PRIMARY KEY, v TEXT)", "CREATE/ALTER/DROP TABLE"),
	same(allow, "ALTER TABLE t ADD COLUMN x INTEGER", "CREATE/ALTER/DROP TABLE"),
	same(allow, "DROP TABLE u", "CREATE/ALTER/DROP TABLE"),
	{phrases: []string{"INDEX"}, want: allow,
		sqlite: "CREATE INDEX t_v ON t (v)", postgres: "CREATE INDEX t_v ON t (v)", mysql: "CREATE INDEX t_v ON t (v(10))"},
	same(allow, "CREATE VIEW tv AS SELECT id, v FROM t", "VIEW"),
	{phrases: []string{"SQLite triggers"}, want: allow,
		sqlite: "CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE u SET v = 'x' WHERE id = new.id; END"},
	{phrases: []string{"PostgreSQL functions"}, want: allow,
		postgres: "CREATE FUNCTION public.f(x int) RETURNS int LANGUAGE sql AS $$ SELECT x + 1 $$"},
	{phrases: []string{"procedures"}, want: allow,
		postgres: "CREATE PROCEDURE public.p() LANGUAGE plpgsql AS $$ BEGIN UPDATE t SET v = 'x' WHERE id = 1; END $$"},
	{phrases: []string{"PostgreSQL functions"}, want: allow,
		postgres: "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION public.tf()"},
	{phrases: []string{"public.name(…)"}, want: allow, postgres: "SELECT public.f(1)"},
	{phrases: []string{"CALL public.name(…)"}, want: allow, postgres: "CALL public.p()"},

	// Rewritten, not refused.
	{phrases: []string{"now()"}, want: rewrite, postgres: "SELECT now()", mysql: "SELECT NOW()"},
	same(rewrite, "SELECT current_timestamp", "current_timestamp"),
	{phrases: []string{"datetime('now')"}, want: rewrite, sqlite: "SELECT datetime('now')"},
	{phrases: []string{"random()"}, want: rewrite, sqlite: "SELECT random()", postgres: "SELECT random()"},
	{phrases: []string{"randomblob"}, want: rewrite, sqlite: "SELECT randomblob(8)"},

	// Answered with one network-wide value (PostgreSQL's session functions),
	// and LIMIT without ORDER BY ordered by the table's key (the backend adds
	// the key; the gate accepts the text).
	{phrases: []string{"current_schema()"}, want: allow, postgres: "SELECT current_schema()"},
	{phrases: []string{"current_database()"}, want: allow, postgres: "SELECT current_database()"},
	{phrases: []string{"current_user"}, want: allow, postgres: "SELECT current_user"},
	{phrases: []string{"pg_backend_pid()"}, want: allow, postgres: "SELECT pg_backend_pid()"},
	{phrases: []string{"version()"}, want: allow, postgres: "SELECT version()"},
	{phrases: []string{"LIMIT/OFFSET", "ORDER BY"}, want: allow, postgres: "SELECT id FROM t LIMIT 1"},
	{phrases: []string{"LIMIT/OFFSET"}, want: allow, postgres: "SELECT id FROM t OFFSET 2"},
	{phrases: []string{".get()"}, want: allow, postgres: "SELECT id, v FROM t WHERE v = 'a' LIMIT 21"},

	// Refused: other sources of non-determinism.
	{phrases: []string{"gen_random_uuid"}, want: refuse, postgres: "SELECT gen_random_uuid()", mysql: "SELECT UUID()"},
	{phrases: []string{"txid_current"}, want: refuse, postgres: "SELECT txid_current()"},
	{phrases: []string{"CONNECTION_ID()"}, want: refuse, mysql: "SELECT CONNECTION_ID()"},
	{phrases: []string{"VERSION()"}, want: refuse, mysql: "SELECT VERSION()"},
	{phrases: []string{"system columns"}, want: refuse, postgres: "SELECT ctid FROM t"},
	{phrases: []string{"system columns", "rowid"}, want: refuse, sqlite: "SELECT rowid FROM k"},
	{phrases: []string{"last_insert_rowid"}, want: refuse, sqlite: "SELECT last_insert_rowid()", mysql: "SELECT LAST_INSERT_ID()"},
	{phrases: []string{"changes"}, want: refuse, sqlite: "SELECT changes()", mysql: "SELECT ROW_COUNT()"},
	{phrases: []string{"sqlite_version"}, want: refuse, sqlite: "SELECT sqlite_version()"},
	// Order dependence.
	{phrases: []string{"LIMIT/OFFSET", "ORDER BY"}, want: refuse, sqlite: "SELECT id FROM t LIMIT 1", mysql: "SELECT id FROM t LIMIT 1"},
	{phrases: []string{"LIMIT/OFFSET"}, want: refuse, sqlite: "SELECT id FROM t LIMIT 1 OFFSET 2", mysql: "SELECT id FROM t LIMIT 2, 1"},
	same(allow, "SELECT id FROM t ORDER BY id LIMIT 1 OFFSET 2", "LIMIT/OFFSET", "ORDER BY"),
	{phrases: []string{"string_agg"}, want: refuse, postgres: "SELECT string_agg(v, ',') FROM t"},
	{phrases: []string{"string_agg", "ORDER BY"}, want: allow, postgres: "SELECT string_agg(v, ',' ORDER BY id) FROM t"},
	{phrases: []string{"array_agg"}, want: refuse, postgres: "SELECT array_agg(v) FROM t"},
	{phrases: []string{"group_concat"}, want: refuse, sqlite: "SELECT group_concat(v) FROM t", mysql: "SELECT GROUP_CONCAT(v) FROM t"},
	{phrases: []string{"group_concat", "ORDER BY"}, want: allow, mysql: "SELECT GROUP_CONCAT(v ORDER BY id) FROM t"},
	{phrases: []string{"TABLESAMPLE"}, want: refuse, postgres: "SELECT id FROM t TABLESAMPLE SYSTEM (10)"},
	{phrases: []string{"SKIP LOCKED"}, want: refuse,
		postgres: "SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED", mysql: "SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED"},
	// Transaction and session control.
	same(refuse, "BEGIN", "BEGIN/COMMIT/SAVEPOINT"),
	same(refuse, "COMMIT", "BEGIN/COMMIT/SAVEPOINT"),
	same(refuse, "SAVEPOINT s", "BEGIN/COMMIT/SAVEPOINT"),
	{phrases: []string{"SET"}, want: refuse, postgres: "SET work_mem = '1GB'", mysql: "SET SESSION sql_mode = ''"},
	{phrases: []string{"set_config"}, want: refuse, postgres: "SELECT set_config('a.b', 'c', false)"},
	{phrases: []string{"PRAGMA"}, want: refuse, sqlite: "PRAGMA foreign_keys = OFF"},
	// File, program and network access.
	{phrases: []string{"COPY"}, want: refuse, postgres: "COPY t TO '/tmp/relchain-readme-gate'"},
	{phrases: []string{"pg_read_file"}, want: refuse, postgres: "SELECT pg_read_file('/etc/passwd')", mysql: "SELECT LOAD_FILE('/etc/passwd')"},
	{phrases: []string{"lo_import"}, want: refuse, postgres: "SELECT lo_import('/etc/passwd')"},
	{phrases: []string{"dblink"}, want: refuse, postgres: "SELECT * FROM dblink('host=example.org', 'SELECT 1') AS r(a int)"},
	{phrases: []string{"ATTACH"}, want: refuse, sqlite: "ATTACH DATABASE '/tmp/relchain-readme-gate.db' AS x"},
	{phrases: []string{"load_extension"}, want: refuse, sqlite: "SELECT load_extension('x')"},
	{phrases: []string{"VACUUM INTO"}, want: refuse, sqlite: "VACUUM INTO '/tmp/relchain-readme-gate.db'"},
	// Blocking and server control.
	{phrases: []string{"pg_sleep"}, want: refuse, postgres: "SELECT pg_sleep(1)", mysql: "SELECT SLEEP(1)"},
	{phrases: []string{"advisory locks"}, want: refuse, postgres: "SELECT pg_advisory_lock(1)", mysql: "SELECT GET_LOCK('a', 1)"},
	{phrases: []string{"LOCK"}, want: refuse, postgres: "LOCK TABLE t", mysql: "LOCK TABLES t WRITE"},
	{phrases: []string{"LISTEN/NOTIFY"}, want: refuse, postgres: "LISTEN c"},
	{phrases: []string{"LISTEN/NOTIFY"}, want: refuse, postgres: "NOTIFY c"},
	{phrases: []string{"VACUUM"}, want: refuse, sqlite: "VACUUM", postgres: "VACUUM t"},
	// Roles, grants, databases, extensions; catalogs and relchain's tables.
	{phrases: []string{"roles"}, want: refuse, postgres: "CREATE ROLE r", mysql: "CREATE USER 'r'@'%'"},
	{phrases: []string{"grants"}, want: refuse, postgres: "GRANT SELECT ON t TO PUBLIC", mysql: "GRANT SELECT ON t TO 'r'@'%'"},
	{phrases: []string{"databases"}, want: refuse, postgres: "CREATE DATABASE d", mysql: "CREATE DATABASE d"},
	{phrases: []string{"extensions"}, want: refuse, postgres: "CREATE EXTENSION hstore"},
	{phrases: []string{"system catalogs"}, want: refuse,
		sqlite: "SELECT name FROM sqlite_schema", postgres: "SELECT relname FROM pg_class", mysql: "SELECT table_name FROM information_schema.tables"},
	{phrases: []string{"relchain's own tables"}, want: refuse,
		sqlite: "SELECT * FROM relchain_meta", postgres: "SELECT * FROM relchain.meta", mysql: "SELECT * FROM relchain_meta"},
	// Sequences.
	// Issue 33: SERIAL and nextval are relchain's transactional sequences
	// on PostgreSQL (backend/postgres/DESIGN.md, "Sequences");
	// GENERATED ALWAYS AS IDENTITY is still refused.
	{phrases: []string{"SERIAL"}, want: allow, postgres: "CREATE TABLE s (id SERIAL PRIMARY KEY)"},
	{phrases: []string{"IDENTITY", "ALWAYS"}, want: refuse, postgres: "CREATE TABLE s (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY)"},
	{phrases: []string{"BIGSERIAL"}, want: allow, postgres: "CREATE TABLE s (id BIGSERIAL PRIMARY KEY)"},
	{phrases: []string{"currval"}, want: allow, postgres: "SELECT currval('q')"},
	{phrases: []string{"setval"}, want: allow, postgres: "SELECT setval('q', 10)"},
	{phrases: []string{"AUTO_INCREMENT"}, want: refuse, mysql: "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY)"},
	{phrases: []string{"nextval"}, want: allow, postgres: "SELECT nextval('q')"},
	{phrases: []string{"AUTOINCREMENT"}, want: allow, sqlite: "CREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)"},
	// Proposed: work the text cannot bound.
	{phrases: []string{"cartesian joins"}, want: refuse,
		postgres: "SELECT a.id FROM t a, t b, t c ORDER BY a.id", mysql: "SELECT a.id FROM t a, t b, t c ORDER BY a.id"},
	{phrases: []string{"repeat"}, want: refuse, postgres: "SELECT repeat(v, 100000000) FROM t", mysql: "SELECT REPEAT(v, 100000000) FROM t"},
}
