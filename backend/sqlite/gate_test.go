package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/sqlcheck"
)

func analyzeErr(_ sqlcheck.Analysis, err error) error { return err }

// gateSetup is the committed schema every corpus statement is judged on.
var gateSetup = []string{
	`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, n INT, w INT)`,
	`CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL CHECK (bal >= 0))`,
	`CREATE TABLE ai (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)`,
	`CREATE INDEX t_n ON t (n)`,
	`CREATE VIEW ok_v AS SELECT id, v FROM t`,
	`CREATE TRIGGER tr_existing AFTER DELETE ON acct BEGIN SELECT 1; END`,
	`INSERT INTO t (id, v, n, w) VALUES (1, 'a', 1, 1), (2, 'b', 2, 2)`,
	`INSERT INTO acct (id, bal) VALUES (1, 10), (2, 20)`,
	`INSERT INTO ai (v) VALUES ('x')`,
	`CREATE TABLE nr (a TEXT, b INT)`,
	`INSERT INTO nr (a, b) VALUES ('p', 1), ('q', 2)`,
}

// verdict is what the gate does with a corpus statement.
type verdict int

const (
	accept  verdict = iota // allowed as is (reason: why it is harmless)
	reject                 // refused (reason: a substring of the error)
	rewrite                // allowed because relchain rewrites the function (reason: its name)
)

type gateCase struct {
	v   verdict
	sql string
	// reason: see verdict.
	reason string
	// class of the failure when it is not the gate's (ClassPermission).
	class backend.Class
	// execOnly: a failure SQLite itself reports only when the statement
	// runs or needs the block's schema (not the gate's): Analyze accepts the
	// statement.
	execOnly bool
}

// rewrittenNames are the functions the SQLite backend rewrites (DESIGN.md).
var rewrittenNames = []string{"random", "randomblob", "date", "time", "datetime", "julianday",
	"unixepoch", "strftime", "timediff", "current_date", "current_time", "current_timestamp"}

var gateCorpus = []gateCase{
	// --- accepted: DML, joins, subqueries, CTEs
	{v: accept, sql: `SELECT 1`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT * FROM t ORDER BY id`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT count(*) FROM t`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT t.id, a.bal FROM t JOIN acct a ON a.id = t.id ORDER BY t.id`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT * FROM t NATURAL JOIN acct`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT id FROM t WHERE id IN (SELECT id FROM acct) ORDER BY id`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT EXISTS (SELECT 1 FROM t)`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `WITH c AS (SELECT id FROM t) SELECT * FROM c ORDER BY id`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 10) SELECT sum(i) FROM s`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100) INSERT INTO acct (id, bal) SELECT i + 1000, 0 FROM s`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `INSERT INTO t (id, v, n) VALUES (100, 'x', 1)`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `INSERT INTO t (id, v) VALUES (1, 'y') ON CONFLICT (id) DO UPDATE SET v = excluded.v`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `INSERT INTO t (id, v) VALUES (102, 'z') RETURNING id`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `INSERT INTO t (id, v, n) SELECT id + 200, 'c', 0 FROM acct`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `INSERT INTO t DEFAULT VALUES`, reason: "DML, joins, subqueries, CTEs"},
	{v: reject, sql: `REPLACE INTO t (id, v) VALUES (1, 'r')`, reason: "REPLACE conflict resolution"},
	{v: reject, sql: `INSERT OR REPLACE INTO t (id, v) VALUES (1, 'r')`, reason: "REPLACE conflict resolution"},
	{v: reject, sql: `insert or Replace into t (id, v) values (1, 'r')`, reason: "REPLACE conflict resolution"},
	{v: reject, sql: `UPDATE OR REPLACE t SET id = 2 WHERE id = 1`, reason: "REPLACE conflict resolution"},
	{v: reject, sql: `WITH c AS (SELECT 1) INSERT OR REPLACE INTO t (id, v) SELECT 1, 'q' FROM c`, reason: "REPLACE conflict resolution"},
	{v: reject, sql: `CREATE TABLE rp (k INTEGER PRIMARY KEY ON CONFLICT REPLACE, v TEXT)`, reason: "REPLACE conflict resolution"},
	{v: reject, sql: `CREATE TABLE rp (k INTEGER, v TEXT, UNIQUE (k) ON CONFLICT REPLACE)`, reason: "REPLACE conflict resolution"},
	{v: reject, sql: `CREATE TRIGGER rp_t AFTER INSERT ON acct BEGIN INSERT OR REPLACE INTO t (id, v) VALUES (new.id, 'x'); END`, reason: "REPLACE conflict resolution"},
	{v: accept, sql: `SELECT replace(v, 'a', 'b') FROM t ORDER BY id`, reason: "replace() function"},
	{v: accept, sql: `UPDATE t SET v = replace (v, 'a', 'b')`, reason: "replace() function"},
	{v: accept, sql: `INSERT OR IGNORE INTO t (id, v) VALUES (1, 'r')`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `UPDATE acct SET bal = bal + 1 WHERE id = 1`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `UPDATE t SET v = upper(v)`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `DELETE FROM t WHERE id = 1`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `DELETE FROM acct`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT v FROM t GROUP BY v HAVING count(*) > 0 ORDER BY v`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT id FROM t UNION SELECT id FROM acct ORDER BY 1`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT CASE WHEN n > 0 THEN 'p' ELSE 'n' END FROM t ORDER BY id`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT CAST('1' AS INTEGER), 1 + 2 * 3, 'a' || 'b'`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT * FROM t WHERE rowid = 1`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT * FROM ok_v ORDER BY id`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT id FROM t ORDER BY id LIMIT 1 OFFSET 1`, reason: "DML, joins, subqueries, CTEs"},
	{v: accept, sql: `SELECT max(id) FILTER (WHERE id > 0) FROM t`, reason: "DML, joins, subqueries, CTEs"},
	// --- accepted: functions on the allowlist
	{v: accept, sql: `SELECT abs(-1), coalesce(NULL, 1), ifnull(NULL, 2), iif(1, 2, 3), nullif(1, 1)`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT instr('abc', 'b'), length('abc'), lower('A'), upper('a'), ltrim(' a'), rtrim('a '), trim(' a ')`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT replace('a', 'a', 'b'), substr('abc', 2), substring('abc', 1, 1), round(1.25, 1)`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT min(n), max(n), sum(n), total(n), avg(n), count(n) FROM t`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT string_agg(v, ',' ORDER BY v) FROM t`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT hex('a'), unhex('61'), quote('a'), typeof(1), printf('%d %5.2f %c', 1, 2.5, 'x'), format('%s', 'x')`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT char(65), unicode('A'), zeroblob(4), likely(1), unlikely(0), likelihood(1, 0.5)`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT json_object('a', 1), json_array(1, 2), json_extract('{"a":1}', '$.a'), '{"a":1}' ->> '$.a'`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT json_group_array(id ORDER BY id) FROM t`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT key, value FROM json_each('[1,2]')`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT * FROM json_tree('{"a":[1]}')`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT sqrt(4), pow(2, 3), ln(1), pi(), floor(1.5), ceil(1.5), mod(7, 3)`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT 'a' LIKE 'A', 'a' GLOB 'a*', soundex('x'), concat('a', 1), concat_ws('-', 1, 2)`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT id, row_number() OVER (ORDER BY id), lag(id) OVER (ORDER BY id) FROM t`, reason: "functions on the allowlist"},
	{v: accept, sql: `SELECT id, rank() OVER w FROM t WINDOW w AS (ORDER BY id)`, reason: "functions on the allowlist"},
	// --- accepted: look-alikes that are not calls
	{v: accept, sql: `SELECT id FROM t /* random() */ ORDER BY id`, reason: "look-alikes that are not calls"},
	{v: accept, sql: "SELECT 1 -- ; PRAGMA foreign_keys = OFF\n", reason: "look-alikes that are not calls"},
	{v: accept, sql: `SELECT 'random()', 'now'`, reason: "look-alikes that are not calls"},
	{v: accept, sql: `SELECT "random" FROM (SELECT 1 AS random)`, reason: "look-alikes that are not calls"},
	{v: accept, sql: `EXPLAIN QUERY PLAN SELECT * FROM t WHERE n = 1`, reason: "look-alikes that are not calls"},
	// --- accepted: DDL
	{v: accept, sql: `CREATE TABLE nt (id INTEGER PRIMARY KEY, v TEXT NOT NULL DEFAULT 'x', n INT DEFAULT (1 + 2), CHECK (n >= 0))`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE demo (id TEXT PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0))`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE g (a INT, b INT GENERATED ALWAYS AS (a * 2) STORED, c TEXT AS (upper(a)))`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE ai2 (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE wr (k TEXT PRIMARY KEY, v INT) WITHOUT ROWID`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE fk (id INTEGER PRIMARY KEY, t_id INT REFERENCES t (id) ON DELETE CASCADE)`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE cp AS SELECT id, v FROM t`, reason: "DDL"},
	{v: accept, sql: `CREATE TABLE dq (id INT, v TEXT DEFAULT (lower('X')), j TEXT DEFAULT (json_array(1)))`, reason: "DDL"},
	{v: accept, sql: `CREATE INDEX t_v ON t (v)`, reason: "DDL"},
	{v: accept, sql: `CREATE UNIQUE INDEX t_lv ON t (lower(v)) WHERE n > 0`, reason: "DDL"},
	{v: accept, sql: `CREATE VIEW v2 AS SELECT id, upper(v) AS u FROM t`, reason: "DDL"},
	{v: accept, sql: `CREATE TRIGGER tr_ok AFTER INSERT ON t BEGIN UPDATE acct SET bal = bal + 1 WHERE id = NEW.id; END`, reason: "DDL"},
	{v: accept, sql: `CREATE TRIGGER tr_io INSTEAD OF INSERT ON ok_v BEGIN INSERT INTO t (id, v) VALUES (NEW.id, NEW.v); END`, reason: "DDL"},
	{v: accept, sql: `DROP TABLE t`, reason: "DDL"},
	{v: accept, sql: `DROP TABLE ai`, reason: "DDL"},
	{v: accept, sql: `DROP TABLE IF EXISTS t`, reason: "DDL"},
	{v: accept, sql: `DROP TABLE IF EXISTS nosuch`, reason: "DDL"},
	{v: accept, sql: `DROP INDEX IF EXISTS nosuch`, reason: "DDL"},
	{v: accept, sql: `DROP VIEW IF EXISTS nosuch`, reason: "DDL"},
	{v: accept, sql: `DROP VIEW ok_v`, reason: "DDL"},
	{v: accept, sql: `DROP INDEX t_n`, reason: "DDL"},
	{v: accept, sql: `DROP TRIGGER tr_existing`, reason: "DDL"},
	{v: accept, sql: `ALTER TABLE t ADD COLUMN extra INT DEFAULT 0`, reason: "DDL"},
	{v: accept, sql: `ALTER TABLE t RENAME TO t_renamed`, reason: "DDL"},
	{v: accept, sql: `ALTER TABLE t RENAME COLUMN v TO vv`, reason: "DDL"},
	{v: accept, sql: `ALTER TABLE t DROP COLUMN w`, reason: "DDL"},
	{v: accept, sql: `ALTER TABLE ai DROP COLUMN v`, reason: "DDL"},

	// --- rewritten: random() and randomblob() draw from the tx's seeded generator (rewrite.go), wherever they hide
	{v: rewrite, sql: `SELECT random()`, reason: "random"},
	{v: rewrite, sql: `SELECT RaNdOm()`, reason: "random"},
	{v: rewrite, sql: `SELECT "random"()`, reason: "random"},
	{v: rewrite, sql: "SELECT `random`()", reason: "random"},
	{v: rewrite, sql: `SELECT [random]()`, reason: "random"},
	{v: rewrite, sql: `SELECT random/**/()`, reason: "random"},
	{v: rewrite, sql: "SELECT /* x */ random -- y\n ()", reason: "random"},
	{v: rewrite, sql: `SELECT randomblob(8)`, reason: "randomblob"},
	{v: rewrite, sql: `SELECT RANDOMBLOB(0), randomblob(-5), randomblob('3'), randomblob(NULL)`, reason: "randomblob"},
	{v: rewrite, sql: `SELECT abs(random()) % 10`, reason: "random"},
	{v: rewrite, sql: `SELECT iif(random() > 0, 1, 0)`, reason: "random"},
	{v: rewrite, sql: `SELECT (SELECT randomblob(1))`, reason: "randomblob"},
	{v: rewrite, sql: `SELECT id FROM t WHERE id = (SELECT random())`, reason: "random"},
	{v: rewrite, sql: `WITH c AS (SELECT random() AS r) SELECT r FROM c`, reason: "random"},
	{v: rewrite, sql: `WITH RECURSIVE s(i, r) AS (SELECT 1, random() UNION ALL SELECT i + 1, random() FROM s WHERE i < 5) SELECT * FROM s`, reason: "random"},
	{v: rewrite, sql: `SELECT * FROM (VALUES (random()), (random()))`, reason: "random"},
	{v: rewrite, sql: `INSERT INTO t (id, v) VALUES (abs(random()) % 1000 + 5000, 'x') RETURNING id`, reason: "random"},
	{v: rewrite, sql: `UPDATE t SET n = random() RETURNING id, n`, reason: "random"},
	{v: rewrite, sql: `DELETE FROM t WHERE n = random()`, reason: "random"},
	{v: rewrite, sql: `INSERT INTO t (id, v) SELECT id + 300, hex(randomblob(4)) FROM acct RETURNING v`, reason: "randomblob"},
	{v: rewrite, sql: `SELECT id FROM t ORDER BY random()`, reason: "random"},
	{v: rewrite, sql: `INSERT INTO t (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET n = random() RETURNING n`, reason: "random"},
	{v: rewrite, sql: `UPDATE t SET n = 1 RETURNING random()`, reason: "random"},
	{v: rewrite, sql: `SELECT id, random() OVER () FROM t`, reason: "random", class: backend.ClassOther, execOnly: true}, // not a window function
	{v: rewrite, sql: `SELECT group_concat(random() ORDER BY id) FROM t`, reason: "random"},
	{v: rewrite, sql: `SELECT random() FROM json_each('[1,2,3]')`, reason: "random"},
	{v: rewrite, sql: `EXPLAIN SELECT random()`, reason: "random"},
	{v: reject, sql: `SELECT random(1)`, reason: "wrong number of arguments", class: backend.ClassUndefined, execOnly: true},
	{v: reject, sql: `SELECT randomblob()`, reason: "wrong number of arguments", class: backend.ClassUndefined, execOnly: true},
	// --- refused: connection state and the node's build, wherever they hide
	{v: reject, sql: `SELECT changes()`, reason: "changes()"},
	{v: reject, sql: `SELECT total_changes()`, reason: "total_changes()"},
	{v: reject, sql: `SELECT last_insert_rowid()`, reason: "last_insert_rowid()"},
	{v: reject, sql: `SELECT sqlite_version()`, reason: "sqlite_version()"},
	{v: reject, sql: `SELECT sqlite_source_id()`, reason: "sqlite_source_id()"},
	{v: reject, sql: `SELECT sqlite_compileoption_used('THREADSAFE')`, reason: "sqlite_compileoption_used()"},
	{v: reject, sql: `SELECT sqlite_compileoption_get(0)`, reason: "sqlite_compileoption_get()"},
	{v: reject, sql: `SELECT sqlite_log(1, 'x')`, reason: "sqlite_log()"},
	{v: reject, sql: `SELECT subtype(1)`, reason: "subtype()"},
	// --- rewritten: the date/time functions see the tx's env.Time as 'now' (rewrite.go)
	{v: rewrite, sql: `SELECT date('now')`, reason: "date"},
	{v: rewrite, sql: `SELECT date('2020-01-01')`, reason: "date"},
	{v: rewrite, sql: `SELECT time()`, reason: "time"},
	{v: rewrite, sql: `SELECT julianday('now')`, reason: "julianday"},
	{v: rewrite, sql: `SELECT unixepoch()`, reason: "unixepoch"},
	{v: rewrite, sql: `SELECT unixepoch('subsec'), unixepoch('now', 'subsec'), datetime('SUBSECOND')`, reason: "unixepoch"},
	{v: rewrite, sql: `SELECT strftime('%s', 'now')`, reason: "strftime"},
	{v: rewrite, sql: `SELECT strftime('%Y-%m-%d %H:%M:%f'), strftime('%j %W %w %J', 'NOW')`, reason: "strftime"},
	{v: rewrite, sql: `SELECT timediff('2020-01-01', '2020-01-02')`, reason: "timediff"},
	{v: rewrite, sql: `SELECT timediff('now', '2000-01-01'), timediff('2000-01-01', 'now')`, reason: "timediff"},
	{v: rewrite, sql: `SELECT CURRENT_TIMESTAMP`, reason: "current_timestamp"},
	{v: rewrite, sql: `SELECT current_date`, reason: "current_date"},
	{v: rewrite, sql: `SELECT Current_Time`, reason: "current_time"},
	{v: reject, sql: `SELECT "current_timestamp"`, reason: "no such column", class: backend.ClassUndefined, execOnly: true}, // a column name, not the keyword
	{v: reject, sql: `SELECT current_timestamp(), CURRENT_DATE()`, reason: "syntax error", class: backend.ClassSyntax},      // a keyword, not a function name
	{v: rewrite, sql: `INSERT INTO t (id, v) VALUES (7, date('2020-01-01'))`, reason: "date"},
	{v: rewrite, sql: `INSERT INTO t (id, v) VALUES (8, CURRENT_TIMESTAMP) RETURNING v`, reason: "current_timestamp"},
	{v: rewrite, sql: `UPDATE t SET v = datetime('now', '+1 day', 'start of day') RETURNING v`, reason: "datetime"},
	{v: rewrite, sql: `SELECT date('now', 'start of month', '+1 month', '-1 day'), date('now', 'weekday 0')`, reason: "date"},
	{v: rewrite, sql: `SELECT datetime(unixepoch(), 'unixepoch'), datetime(julianday(), 'julianday'), datetime('now', 'auto')`, reason: "datetime"},
	{v: rewrite, sql: `SELECT date(), DATE(), dAtE('NoW'), "date"('now'), [date]()`, reason: "date"},
	{v: rewrite, sql: `WITH c(d) AS (SELECT date('now')) SELECT d FROM c`, reason: "date"},
	{v: rewrite, sql: `SELECT id FROM t WHERE v < datetime() ORDER BY id`, reason: "datetime"},
	{v: rewrite, sql: `SELECT julianday() - julianday('2000-01-01')`, reason: "julianday"},
	{v: rewrite, sql: `SELECT datetime(x'6e6f77'), date(CAST('now' AS BLOB))`, reason: "datetime"},
	{v: reject, sql: `SELECT datetime('now', 'localtime')`, reason: "'localtime' and 'utc' modifiers", execOnly: true},
	{v: reject, sql: `SELECT datetime('2020-01-01 12:00', 'UTC')`, reason: "'localtime' and 'utc' modifiers", execOnly: true},
	{v: reject, sql: `SELECT strftime('%H', 'now', 'LocalTime')`, reason: "'localtime' and 'utc' modifiers", execOnly: true},
	{v: reject, sql: `SELECT unixepoch('now', ' utc ')`, reason: "'localtime' and 'utc' modifiers", execOnly: true},
	{v: reject, sql: `SELECT date('now', lower('LOCALTIME'))`, reason: "'localtime' and 'utc' modifiers", execOnly: true},
	{v: reject, sql: `SELECT timediff('now')`, reason: "wrong number of arguments", class: backend.ClassUndefined, execOnly: true},
	{v: reject, sql: `SELECT current_date(1)`, reason: "syntax error", class: backend.ClassSyntax},
	// --- refused: SQLite's own tables, pragma and table-valued functions
	{v: reject, sql: `SELECT * FROM sqlite_master`, reason: "schema table sqlite_master"},
	{v: reject, sql: `SELECT * FROM sqlite_schema`, reason: "schema table sqlite_master"},
	{v: reject, sql: `SELECT * FROM main.sqlite_master`, reason: "schema table sqlite_master"},
	{v: reject, sql: `SELECT * FROM "SQLITE_MASTER"`, reason: "schema table"},
	{v: reject, sql: `SELECT * FROM sqlite_temp_master`, reason: "schema table sqlite_temp_master"},
	{v: reject, sql: `SELECT (SELECT count(*) FROM sqlite_schema)`, reason: "schema table sqlite_schema"},
	{v: reject, sql: `SELECT id FROM t WHERE v IN (SELECT name FROM sqlite_schema)`, reason: "schema table sqlite_master"},
	{v: reject, sql: `CREATE TABLE leak AS SELECT sql FROM sqlite_master`, reason: "schema table sqlite_master"},
	{v: reject, sql: `SELECT * FROM sqlite_sequence`, reason: "sqlite_sequence"},
	{v: reject, sql: `UPDATE sqlite_sequence SET seq = 100`, reason: "sqlite_sequence"},
	{v: reject, sql: `DELETE FROM sqlite_sequence`, reason: "sqlite_sequence"},
	{v: reject, sql: `INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x (a)')`, reason: "writing the schema table"},
	{v: reject, sql: `CREATE TABLE sqlite_stat1 (tbl, idx, stat)`, reason: "reserved for internal use", class: backend.ClassOther, execOnly: true},
	{v: reject, sql: `SELECT * FROM pragma_table_info('t')`, reason: "pragma_table_info"},
	{v: reject, sql: `SELECT count(*) FROM pragma_table_info('t')`, reason: "pragma_table_info"},
	{v: reject, sql: `SELECT * FROM pragma_function_list`, reason: "pragma_function_list"},
	{v: reject, sql: `SELECT * FROM generate_series(1, 10)`, reason: "generate_series"},
	{v: reject, sql: `PRAGMA foreign_keys = OFF`, reason: "PRAGMA foreign_keys"},
	{v: reject, sql: `pragma Writable_Schema = ON`, reason: "PRAGMA"},
	{v: reject, sql: `PRAGMA user_version`, reason: "PRAGMA user_version"},
	{v: reject, sql: `PRAGMA main.journal_mode = DELETE`, reason: "PRAGMA journal_mode"},
	{v: reject, sql: `/* comment */ PRAGMA case_sensitive_like = 1`, reason: "PRAGMA case_sensitive_like"},
	{v: reject, sql: `PRAGMA optimize`, reason: "PRAGMA optimize"},
	// --- refused: transaction control, attach, maintenance, temp and virtual objects
	{v: reject, sql: `BEGIN`, reason: "transaction control"},
	{v: reject, sql: `BEGIN IMMEDIATE`, reason: "transaction control"},
	{v: reject, sql: `COMMIT`, reason: "transaction control"},
	{v: reject, sql: `END`, reason: "transaction control"},
	{v: reject, sql: `ROLLBACK`, reason: "transaction control"},
	{v: reject, sql: `SAVEPOINT x`, reason: "savepoint control"},
	{v: reject, sql: `RELEASE relchain_tx`, reason: "savepoint control"},
	{v: reject, sql: `ROLLBACK TO relchain_tx`, reason: "savepoint control"},
	{v: reject, sql: `ATTACH DATABASE ':memory:' AS m`, reason: "ATTACH"},
	{v: reject, sql: `ATTACH '/tmp/relchain-gate-test.db' AS x`, reason: "ATTACH"},
	{v: reject, sql: `DETACH DATABASE main`, reason: "DETACH"},
	{v: reject, sql: `VACUUM`, reason: "VACUUM"},
	{v: reject, sql: `VACUUM INTO '/tmp/relchain-gate-test.db'`, reason: "VACUUM"},
	{v: reject, sql: `REINDEX`, reason: "REINDEX"},
	{v: reject, sql: `REINDEX t_n`, reason: "REINDEX"},
	{v: reject, sql: `ANALYZE`, reason: "sqlite_stat1"},
	{v: reject, sql: `ANALYZE t`, reason: "sqlite_stat1"},
	{v: reject, sql: `CREATE TEMP TABLE x (a)`, reason: "temporary"},
	{v: reject, sql: `CREATE TEMPORARY VIEW tv AS SELECT 1`, reason: "temporary"},
	{v: reject, sql: `CREATE TEMP TRIGGER ttr AFTER INSERT ON t BEGIN SELECT 1; END`, reason: "temporary"},
	{v: reject, sql: `CREATE INDEX temp.ti ON t (v)`, reason: "cannot create a TEMP index on non-TEMP table", class: backend.ClassOther, execOnly: true},
	{v: reject, sql: `CREATE VIRTUAL TABLE vt USING fts5(a)`, reason: "virtual table vt"},
	{v: reject, sql: `CREATE VIRTUAL TABLE vj USING json_each`, reason: "virtual table vj"},
	// --- refused: relchain's own tables and triggers
	{v: reject, sql: `INSERT INTO relchain_changes (tbl, op, img) VALUES ('t', 'I', 'x')`, reason: "relchain_changes"},
	{v: reject, sql: `DELETE FROM relchain_meta`, reason: "relchain_meta"},
	{v: reject, sql: `UPDATE RELCHAIN_META SET height = 0`, reason: "relchain"},
	{v: reject, sql: `SELECT * FROM relchain_meta`, reason: "reading relchain's table relchain_meta"},
	{v: reject, sql: `SELECT * FROM relchain_changes`, reason: "relchain_changes"},
	{v: reject, sql: `DROP TABLE relchain_changes`, reason: "relchain_changes"},
	{v: reject, sql: `CREATE TABLE relchain_x (a)`, reason: "relchain_x"},
	{v: reject, sql: `ALTER TABLE relchain_meta ADD COLUMN x INT`, reason: "relchain_meta"},
	{v: reject, sql: `CREATE INDEX ix ON relchain_changes (tbl)`, reason: "relchain_changes"},
	{v: reject, sql: `CREATE TRIGGER x AFTER INSERT ON relchain_changes BEGIN SELECT 1; END`, reason: "relchain_changes"},
	// --- refused: relchain's system state (replay windows, grants): never client-visible
	{v: reject, sql: `SELECT * FROM relchain_system`, reason: "reading relchain's table relchain_system"},
	{v: reject, sql: `SELECT count(*) FROM main.relchain_system`, reason: "relchain_system"},
	{v: reject, sql: `SELECT (SELECT value FROM [relchain_system] LIMIT 1)`, reason: "relchain_system"},
	{v: reject, sql: `WITH s AS (SELECT * FROM "RELCHAIN_SYSTEM") SELECT count(*) FROM s`, reason: "relchain_system"},
	{v: reject, sql: `INSERT INTO relchain_system (key, value) VALUES (x'01', x'01')`, reason: "writing relchain's table relchain_system"},
	{v: reject, sql: `INSERT INTO t (id, v) SELECT rowid + 1000, hex(value) FROM relchain_system`, reason: "relchain_system"},
	{v: reject, sql: `UPDATE "Relchain_System" SET value = x''`, reason: "relchain_system"},
	{v: reject, sql: `DELETE FROM /* x */ relchain_system WHERE key = x'00'`, reason: "relchain_system"},
	{v: reject, sql: `REPLACE INTO relchain_system VALUES (x'00', x'00')`, reason: "relchain_system"},
	{v: reject, sql: `CREATE TABLE cps AS SELECT * FROM relchain_system`, reason: "relchain_system"},
	{v: reject, sql: `CREATE VIEW sysv AS SELECT * FROM relchain_system`, reason: "view sysv: reading relchain's table relchain_system"},
	{v: reject, sql: `CREATE TRIGGER trs AFTER INSERT ON relchain_system BEGIN SELECT 1; END`, reason: "relchain_system"},
	{v: reject, sql: `CREATE TRIGGER trs2 AFTER INSERT ON t BEGIN UPDATE relchain_system SET value = NEW.v; END`, reason: "relchain_system"},
	{v: reject, sql: `DROP TABLE relchain_system`, reason: "relchain_system"},
	{v: reject, sql: `ALTER TABLE relchain_system RENAME TO sys2`, reason: "relchain_system"},
	{v: reject, sql: `CREATE INDEX ixs ON relchain_system (value)`, reason: "relchain_system"},
	{v: reject, sql: `SELECT * FROM json_each((SELECT json_group_array(hex(key)) FROM relchain_system))`, reason: "relchain_system"},
	{v: reject, sql: `CREATE TRIGGER relchain_cap_i_x AFTER INSERT ON t BEGIN SELECT 1; END`, reason: "relchain_cap_i_x"},
	{v: reject, sql: `DROP TRIGGER relchain_cap_g_t`, reason: "relchain_cap_g_t"}, // the rowid guard: a relchain trigger on both capture paths,
	// --- refused: non-determinism smuggled into the schema
	{v: reject, sql: `CREATE TABLE c1 (v INT CHECK (random() > 0))`, reason: "random() in a CHECK constraint, generated column or index"},
	{v: reject, sql: `CREATE TABLE c2 (v INT, g INT AS (random()))`, reason: "random() in a CHECK constraint, generated column or index"},
	{v: reject, sql: `CREATE TABLE c3 (v INT, g INT AS (abs(changes())) STORED)`, reason: "changes()"},
	{v: reject, sql: `CREATE TABLE c4 (v TEXT CHECK (v < date('now')))`, reason: "date() in a CHECK constraint"},
	{v: reject, sql: `CREATE TABLE c5 (v TEXT, CONSTRAINT k CHECK (v <> CURRENT_TIMESTAMP))`, reason: "current_timestamp() in a CHECK"},
	{v: reject, sql: `CREATE TABLE c6 (v INT, g TEXT GENERATED ALWAYS AS (date(v, 'unixepoch')) VIRTUAL)`, reason: "date() in a CHECK constraint, generated column"},
	{v: reject, sql: `CREATE TABLE c7 (v INT, g INT AS (julianday('2020-01-01')) STORED)`, reason: "julianday() in a CHECK"},
	{v: reject, sql: `create table c8 (v int check ("RANDOM"() <> 0))`, reason: "random() in a CHECK"},
	{v: reject, sql: `CREATE TABLE c9 (v INT /* DEFAULT */ CHECK (/* x */ unixepoch() > 0))`, reason: "unixepoch() in a CHECK"},
	{v: reject, sql: `CREATE TABLE IF NOT EXISTS c10 (v INT PRIMARY KEY CHECK (strftime('%s') > 0)) WITHOUT ROWID`, reason: "strftime() in a CHECK"},
	{v: reject, sql: `CREATE INDEX ix2 ON t (random())`, reason: "random() in a CHECK constraint, generated column or index"},
	{v: reject, sql: `CREATE INDEX ix3 ON t (v) WHERE random() > 0`, reason: "random() in a CHECK constraint, generated column or index"},
	{v: reject, sql: `CREATE INDEX ix4 ON t (date(v))`, reason: "date() in a CHECK constraint, generated column or index"},
	{v: reject, sql: `CREATE UNIQUE INDEX ix5 ON t (v) WHERE v > datetime('now', '-1 day')`, reason: "datetime() in a CHECK constraint, generated column or index"},
	{v: reject, sql: `CREATE INDEX ix6 ON t (id, strftime('%Y', v))`, reason: "strftime() in a CHECK"},
	{v: reject, sql: `CREATE INDEX ix7 ON t (v) WHERE n > sqlite_version()`, reason: "sqlite_version()"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c1 INT CHECK (c1 IS NULL OR random() <> 0)`, reason: "table t: function random() in a CHECK"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN g1 AS (sqlite_offset(n))`, reason: "table t cannot be checked"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN g3 AS (subtype(n) + 1)`, reason: "table t: function subtype()"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN g4 AS (sqlite_version())`, reason: "non-deterministic functions prohibited in generated columns", class: backend.ClassOther, execOnly: true},
	{v: accept, sql: `ALTER TABLE t ADD COLUMN ck INT CHECK (ck IS NULL OR ck > 0)`, reason: "SQLite checks the rows with its own quick_check"},
	{v: accept, sql: `ALTER TABLE t ADD COLUMN g2 AS (n * 2)`, reason: "a deterministic generated column"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c2 TEXT CHECK (c2 < date('now'))`, reason: "table t: function date() in a CHECK"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c3 INT CHECK (changes() >= 0)`, reason: "table t: function changes()"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c4 INT CHECK (sqlite_version() <> '')`, reason: "table t: function sqlite_version()"},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c5 INT AS (random())`, reason: "non-deterministic functions prohibited in generated columns", class: backend.ClassOther, execOnly: true},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c6 TEXT AS (date(n))`, reason: "non-deterministic functions prohibited in generated columns", class: backend.ClassOther, execOnly: true},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c7 TEXT DEFAULT (date('now'))`, reason: "non-constant default", class: backend.ClassOther, execOnly: true},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c8 TEXT DEFAULT CURRENT_TIMESTAMP`, reason: "non-constant default", class: backend.ClassOther, execOnly: true},
	{v: reject, sql: `ALTER TABLE t ADD COLUMN c9 INT DEFAULT (random())`, reason: "non-constant default", class: backend.ClassOther, execOnly: true},
	{v: reject, sql: `CREATE TABLE d5 (id INT, v INT DEFAULT (changes()))`, reason: "DEFAULT of column d5.v: function changes()"},
	{v: reject, sql: `CREATE TABLE d6 (id INT, v TEXT DEFAULT (sqlite_source_id()))`, reason: "DEFAULT of column d6.v: function sqlite_source_id()"},
	{v: reject, sql: `CREATE TABLE d7 (id INT, v INT DEFAULT (last_insert_rowid() + random()))`, reason: "DEFAULT of column d7.v: function last_insert_rowid()"},
	{v: reject, sql: `CREATE TABLE d8 (id INT, v TEXT DEFAULT (coalesce(NULL, "SQLITE_VERSION"())))`, reason: "DEFAULT of column d8.v: function sqlite_version()"},
	{v: reject, sql: `CREATE VIEW rv AS SELECT changes() AS r`, reason: "view rv: function changes()"},
	{v: reject, sql: `CREATE VIEW rv4 AS WITH c AS (SELECT total_changes() AS x) SELECT x, date() FROM c`, reason: "view rv4: function total_changes()"},
	{v: reject, sql: `CREATE TRIGGER tr_bad AFTER INSERT ON t BEGIN UPDATE acct SET bal = total_changes(); END`, reason: "trigger tr_bad: function total_changes()"},
	{v: reject, sql: `CREATE TRIGGER tr_bad4 INSTEAD OF INSERT ON ok_v BEGIN INSERT INTO t (id) VALUES (changes()); END`, reason: "trigger tr_bad4"},
	{v: reject, sql: `CREATE TRIGGER tr_bad5 AFTER INSERT ON t WHEN sqlite_version() > '' BEGIN SELECT 1; END`, reason: "trigger tr_bad5"},
	{v: reject, sql: `CREATE TRIGGER tr_bad8 AFTER INSERT ON t BEGIN INSERT INTO relchain_system (key, value) VALUES (x'00', x'00'); END`, reason: "relchain_system"},
	{v: reject, sql: `CREATE TRIGGER tr_bad9 AFTER DELETE ON acct BEGIN SELECT date('now', 'localtime') FROM relchain_meta; END`, reason: "relchain_meta"},
	// --- rewritten: DEFAULTs, views and triggers are evaluated inside a tx, with its env
	{v: rewrite, sql: `CREATE TABLE ct AS SELECT random() AS r`, reason: "random"},
	{v: rewrite, sql: `CREATE TABLE ct2 AS WITH x AS (SELECT randomblob(2) AS r) SELECT * FROM x`, reason: "randomblob"},
	{v: rewrite, sql: `CREATE TABLE ct3 AS SELECT CURRENT_TIMESTAMP AS ts, date() AS d`, reason: "current_timestamp"},
	{v: rewrite, sql: `CREATE TABLE d1 (id INT, v INT DEFAULT (random()))`, reason: "random"},
	{v: rewrite, sql: `CREATE TABLE d2 (id INT, ts TEXT DEFAULT CURRENT_TIMESTAMP)`, reason: "current_timestamp"},
	{v: rewrite, sql: `CREATE TABLE d3 (id INT, v BLOB DEFAULT (hex(randomblob(16))))`, reason: "randomblob"},
	{v: rewrite, sql: `CREATE TABLE d4 (id INT, v TEXT DEFAULT (date('now')))`, reason: "date"},
	{v: rewrite, sql: `create table d9 (id int, a text default current_date, b text default current_time, c real default (julianday()))`, reason: "current_date"},
	{v: rewrite, sql: `CREATE TABLE d10 (id INTEGER PRIMARY KEY, ts INT NOT NULL DEFAULT (unixepoch('subsec')) CHECK (ts > 0))`, reason: "unixepoch"},
	{v: rewrite, sql: `CREATE VIEW rv AS SELECT random() AS r`, reason: "random"},
	{v: rewrite, sql: `CREATE VIEW rv5 AS SELECT id, datetime() AS now FROM t WHERE v < date('now', '-7 days')`, reason: "datetime"},
	{v: rewrite, sql: `CREATE TRIGGER tr_rw AFTER INSERT ON t BEGIN UPDATE acct SET bal = abs(random()) % 100; END`, reason: "random"},
	{v: rewrite, sql: `CREATE TRIGGER tr_rw4 INSTEAD OF INSERT ON ok_v BEGIN INSERT INTO t (id, v) VALUES (NEW.id, CURRENT_TIMESTAMP); END`, reason: "current_timestamp"},
	{v: rewrite, sql: `CREATE TRIGGER tr_rw5 AFTER INSERT ON t WHEN random() > 0 BEGIN SELECT 1; END`, reason: "random"},
	{v: rewrite, sql: `CREATE TRIGGER tr_rw6 BEFORE UPDATE ON acct WHEN NEW.bal > strftime('%s') BEGIN SELECT RAISE(ABORT, 'too rich'); END`, reason: "strftime"},
	{v: reject, sql: `CREATE VIEW rv2 AS SELECT * FROM sqlite_master`, reason: "view rv2: reading the schema table"},
	{v: reject, sql: `CREATE VIEW rv3 AS SELECT id FROM t WHERE n > (SELECT last_insert_rowid())`, reason: "last_insert_rowid()"},
	{v: reject, sql: `CREATE TRIGGER tr_bad2 BEFORE DELETE ON t BEGIN SELECT changes(); END`, reason: "trigger tr_bad2: function changes()"},
	{v: reject, sql: `CREATE TRIGGER tr_bad3 AFTER UPDATE OF v ON t BEGIN INSERT INTO acct (id, bal) VALUES (last_insert_rowid(), 0); END`, reason: "last_insert_rowid()"},
	{v: reject, sql: `CREATE TRIGGER tr_bad6 AFTER INSERT ON t BEGIN DELETE FROM relchain_changes; END`, reason: "relchain_changes"},
	{v: reject, sql: `CREATE TRIGGER tr_bad7 AFTER INSERT ON t BEGIN SELECT * FROM sqlite_master; END`, reason: "schema table"},
	// --- bypass attempts: spelling, quoting, comments, nesting
	{v: reject, sql: `PrAgMa "foreign_keys" = 0`, reason: "PRAGMA foreign_keys"},
	{v: reject, sql: "/*x*/pragma/**/main.[recursive_triggers]=1", reason: "PRAGMA recursive_triggers"},
	{v: reject, sql: `SELECT * FROM "pragma_table_info"('t')`, reason: "pragma_table_info"},
	{v: reject, sql: `SELECT name FROM main."sqlite_schema"`, reason: "schema table"},
	{v: reject, sql: "SELECT `sql` FROM `sqlite_master` WHERE `type` = 'table'", reason: "schema table"},
	{v: reject, sql: `SELECT sqlite_version/**/()`, reason: "sqlite_version()"},
	{v: reject, sql: `SELECT "changes"()`, reason: "changes()"},
	{v: reject, sql: `SELECT [TOTAL_CHANGES]()`, reason: "total_changes()"},
	{v: reject, sql: `WITH RECURSIVE r(x) AS (SELECT total_changes() UNION ALL SELECT x FROM r LIMIT 2) SELECT * FROM r`, reason: "total_changes()"},
	{v: reject, sql: `INSERT INTO t (id, v) VALUES (900, (SELECT sql FROM sqlite_master LIMIT 1))`, reason: "schema table"},
	{v: reject, sql: `SELECT * FROM json_each((SELECT json_group_array(name) FROM sqlite_master))`, reason: "schema table"},
	{v: reject, sql: `UPDATE t SET v = (WITH x AS (SELECT last_insert_rowid() AS r) SELECT r FROM x)`, reason: "last_insert_rowid()"},
	{v: reject, sql: `SELECT id FROM t WHERE id IN (SELECT changes() UNION SELECT 1)`, reason: "changes()"},
	{v: reject, sql: `SELECT load_extension('x')`, reason: "no such function", class: backend.ClassUndefined, execOnly: true},
	{v: reject, sql: `SELECT sqlite_offset(v) FROM t`, reason: "no such function", class: backend.ClassUndefined, execOnly: true}, // not in this build
	{v: reject, sql: `INSERT INTO t (id, v) VALUES (?1, ?2)`, reason: "placeholders", class: backend.ClassInvalid, execOnly: true},
	{v: rewrite, sql: `SELECT likely(random() IS NOT NULL)`, reason: "random"},
	{v: rewrite, sql: `SELECT printf('%d %s', random(), hex(randomblob(3)))`, reason: "random"},
	{v: rewrite, sql: `SELECT id FROM t WHERE v <> strftime('%Y') ORDER BY id`, reason: "strftime"},
	{v: rewrite, sql: `VALUES (date('now'), 1), (date('now', '+1 day'), 2)`, reason: "date"},
	{v: rewrite, sql: `SELECT (julianday('now') - julianday('2024-01-01')) * 86400`, reason: "julianday"},
	{v: rewrite, sql: `SELECT * FROM ok_v WHERE id < unixepoch() ORDER BY id`, reason: "unixepoch"},
	{v: rewrite, sql: `UPDATE t SET v = datetime('now', 'subsec') WHERE id = 1 RETURNING v`, reason: "datetime"},
	{v: rewrite, sql: "SELECT /* CURRENT_TIMESTAMP */ --\n current_timestamp", reason: "current_timestamp"},
	{v: accept, sql: `SELECT 'date(''now'')', "v" FROM t ORDER BY id`, reason: "a string and a column, no call"},
	// --- refused: more than one statement per entry
	{v: reject, sql: `SELECT 1; SELECT random()`, reason: "more than one statement", class: backend.ClassInvalid},
	{v: reject, sql: `INSERT INTO t (id) VALUES (5); COMMIT`, reason: "more than one statement", class: backend.ClassInvalid},
	{v: reject, sql: `SELECT 1; PRAGMA foreign_keys = OFF`, reason: "more than one statement", class: backend.ClassInvalid},
	{v: reject, sql: "SELECT 1 /* ; */; -- \n VACUUM", reason: "more than one statement", class: backend.ClassInvalid},
	// --- refused: results that depend on row order (issue 14): LIMIT/OFFSET
	// without ORDER BY at the same query level, order-sensitive aggregates
	// without ORDER BY, window functions without ORDER BY in OVER, and the
	// rowid of a table without INTEGER PRIMARY KEY (VACUUM renumbers it)
	{v: reject, sql: `SELECT v FROM t LIMIT 1`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT v FROM t LIMIT 1 OFFSET 1`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT v FROM t LIMIT 1, 1`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `select v from t limit 1`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM t LIMIT 2)`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `DELETE FROM t WHERE id = (SELECT id FROM t LIMIT 1)`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT * FROM (SELECT id FROM t ORDER BY id) LIMIT 1`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT id FROM t WHERE id IN (SELECT id FROM acct LIMIT 1) ORDER BY id`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT id FROM t UNION ALL SELECT id FROM acct LIMIT 3`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `WITH c AS (SELECT id FROM t LIMIT 1) SELECT * FROM c ORDER BY id`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT (SELECT v FROM t /* ORDER BY id */ LIMIT 1)`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT count(*) OVER (ORDER BY id), (SELECT v FROM t LIMIT 1) FROM t ORDER BY id`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `INSERT INTO t (id, v) SELECT id + 500, v FROM t LIMIT 1`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `CREATE VIEW lim_v AS SELECT id FROM t LIMIT 1`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `CREATE TRIGGER tr_lim AFTER INSERT ON acct BEGIN UPDATE t SET v = 'x' WHERE id = (SELECT id FROM t LIMIT 1); END`, reason: "LIMIT without ORDER BY"},
	{v: reject, sql: `SELECT group_concat(v) FROM t`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `SELECT group_concat(v, ',') FROM t`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `SELECT GROUP_CONCAT ( v ) FROM t`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `SELECT string_agg(v, ',') FROM t`, reason: "string_agg() without ORDER BY"},
	{v: reject, sql: `SELECT json_group_array(v) FROM t`, reason: "json_group_array() without ORDER BY"},
	{v: reject, sql: `SELECT jsonb_group_array(v) FROM t`, reason: "jsonb_group_array() without ORDER BY"},
	{v: reject, sql: `SELECT json_group_object(v, id) FROM t`, reason: "json_group_object() without ORDER BY"},
	{v: reject, sql: `SELECT jsonb_group_object(v, id) FROM t`, reason: "jsonb_group_object() without ORDER BY"},
	{v: reject, sql: `SELECT group_concat(v) OVER () FROM t ORDER BY id`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `SELECT group_concat(v) OVER (PARTITION BY n) FROM t ORDER BY id`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `UPDATE t SET v = (SELECT group_concat(bal) FROM acct)`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `SELECT group_concat(v ORDER BY id), group_concat(v) FROM t`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `CREATE VIEW gc_v AS SELECT group_concat(v) AS g FROM t`, reason: "group_concat() without ORDER BY"},
	{v: reject, sql: `SELECT id, row_number() OVER () FROM t ORDER BY id`, reason: "row_number() without ORDER BY"},
	{v: reject, sql: `SELECT id, first_value(v) OVER (PARTITION BY n) FROM t ORDER BY id`, reason: "first_value() without ORDER BY"},
	{v: reject, sql: `SELECT id, lag(v) OVER w FROM t WINDOW w AS (ORDER BY id) ORDER BY id`, reason: "lag() over a named window"},
	{v: reject, sql: `SELECT id, sum(n) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t ORDER BY id`, reason: "window frame"},
	{v: reject, sql: `UPDATE t SET n = (SELECT s FROM (SELECT id, sum(w) OVER (ROWS 1 PRECEDING) AS s FROM t) AS x WHERE x.id = t.id)`, reason: "window frame"},
	{v: reject, sql: `UPDATE t SET v = a.bal FROM acct AS a WHERE a.id > t.id`, reason: "UPDATE ... FROM"},
	{v: reject, sql: `UPDATE acct SET bal = l.b FROM (SELECT id, bal AS b FROM acct) AS l WHERE acct.id = l.id`, reason: "UPDATE ... FROM"},
	{v: reject, sql: `SELECT rowid, a FROM nr ORDER BY b`, reason: "rowid of table nr"},
	{v: reject, sql: `SELECT a FROM nr ORDER BY oid`, reason: "rowid of table nr"},
	{v: reject, sql: `SELECT a FROM nr WHERE _rowid_ = 1`, reason: "rowid of table nr"},
	{v: reject, sql: `UPDATE nr SET b = 3 WHERE rowid = 1`, reason: "rowid of table nr"},
	{v: reject, sql: `INSERT INTO t (id, v) SELECT rowid + 600, a FROM nr`, reason: "rowid of table nr"},
	{v: reject, sql: `CREATE VIEW rid_v AS SELECT rowid AS r, a FROM nr`, reason: "rowid of table nr"},
	// --- accepted: the same forms made order-independent
	{v: accept, sql: `SELECT v FROM t ORDER BY id LIMIT 1`, reason: "ordered forms"},
	{v: accept, sql: `UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM t ORDER BY id LIMIT 2)`, reason: "ordered forms"},
	{v: accept, sql: `SELECT id FROM t UNION ALL SELECT id FROM acct ORDER BY 1 LIMIT 3`, reason: "ordered forms"},
	{v: accept, sql: `SELECT group_concat(v ORDER BY id) FROM t`, reason: "ordered forms"},
	{v: accept, sql: `SELECT group_concat(v, ',' ORDER BY id DESC) FROM t`, reason: "ordered forms"},
	{v: accept, sql: `SELECT json_group_object(v, id ORDER BY id) FROM t`, reason: "ordered forms"},
	{v: accept, sql: `SELECT group_concat(v) OVER (ORDER BY id) FROM t ORDER BY id`, reason: "ordered forms"},
	{v: accept, sql: `SELECT id, row_number() OVER (PARTITION BY n ORDER BY id) FROM t ORDER BY id`, reason: "ordered forms"},
	{v: accept, sql: `SELECT 'LIMIT 1', "limit", 'group_concat(v)' FROM (SELECT 1 AS "limit")`, reason: "ordered forms"},
	{v: accept, sql: `SELECT a, b FROM nr ORDER BY a`, reason: "ordered forms"},
	{v: accept, sql: `SELECT rowid FROM t ORDER BY rowid`, reason: "ordered forms"},
	{v: accept, sql: `SELECT sum(n), total(n), avg(n) FROM t`, reason: "ordered forms"},
	{v: accept, sql: `UPDATE t SET v = (SELECT a.bal FROM acct AS a WHERE a.id > t.id ORDER BY a.id LIMIT 1)`, reason: "ordered forms"},
	{v: accept, sql: `UPDATE acct SET bal = bal + l.column2 FROM (VALUES (1, 5), (2, 7)) AS l WHERE acct.id = l.column1`, reason: "ordered forms"},
	{v: accept, sql: `SELECT id, sum(n) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t ORDER BY id`, reason: "ordered forms"},
	{v: accept, sql: `SELECT id, sum(n) OVER (PARTITION BY w) FROM t ORDER BY id`, reason: "ordered forms"},
}

func openGateDB(t testing.TB) backend.Backend {
	t.Helper()
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range gateSetup {
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			t.Fatalf("setup %q: %v", s, err)
		}
	}
	if err := commitDigested(t, blk, backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	return b
}

// mustBeginGateBlock opens the corpus database and a block on it; both are
// rolled back and closed when the test ends.
func mustBeginGateBlock(t testing.TB) (backend.Backend, backend.Block) {
	t.Helper()
	ctx := context.Background()
	b := openGateDB(t)
	t.Cleanup(func() { b.Close() })
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blk.Rollback(ctx) })
	return b, blk
}

// checkVerdict reports whether err is the verdict c expects.
func checkVerdict(c gateCase, err error, exec bool) string {
	fails := c.v == reject || c.class != ""
	if !fails || (!exec && c.execOnly) {
		if err != nil {
			return "want accepted, got " + err.Error()
		}
		return ""
	}
	e := backend.AsError(err)
	if e == nil {
		if err == nil {
			return "want refused, got accepted"
		}
		return "want a statement failure, got " + err.Error()
	}
	want := c.class
	if want == "" {
		want = backend.ClassPermission
	}
	if e.Class != want || !strings.Contains(e.Message, c.reason) {
		return "want " + string(want) + " containing " + c.reason + ", got " + e.Error()
	}
	return ""
}

// envA and envB are two transactions' environments.
var (
	envA = sqlcheck.NewEnv(time.Date(2024, 2, 29, 23, 59, 58, 987654321, time.UTC), []byte("block A"), 3)
	envB = sqlcheck.NewEnv(time.Date(1999, 12, 31, 1, 2, 3, 0, time.UTC), []byte("block B"), 0)
)

func TestGateCorpus(t *testing.T) {
	racetest.Heavy(t) // one stream of 300 statements through both gates and a block
	if len(gateCorpus) < 250 {
		t.Fatalf("corpus has %d statements, want at least 250", len(gateCorpus))
	}
	for _, c := range gateCorpus {
		switch {
		case c.reason == "":
			t.Errorf("%q: no reason", c.sql)
		case c.v == rewrite && (!slices.Contains(rewrittenNames, c.reason) || !strings.Contains(strings.ToLower(c.sql), c.reason)):
			t.Errorf("%q: rewrite reason %q is not a rewritten function it calls", c.sql, c.reason)
		}
	}
	ctx := context.Background()
	b := openGateDB(t)
	defer b.Close()
	for _, c := range gateCorpus {
		// CheckTx: the same verdict on a read connection, twice (cache).
		for range 2 {
			if msg := checkVerdict(c, analyzeErr(b.Gate().Analyze(ctx, c.sql)), false); msg != "" {
				t.Errorf("Analyze(%q): %s", c.sql, msg)
			}
		}
	}
	// FinalizeBlock: each statement in its own savepoint of one block.
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	ddl := func(sql string) bool {
		u := strings.ToUpper(sql)
		return strings.HasPrefix(u, "CREATE") || strings.HasPrefix(u, "DROP") || strings.HasPrefix(u, "ALTER")
	}
	for _, c := range gateCorpus {
		if err := blk.Savepoint(ctx, envA); err != nil {
			t.Fatal(err)
		}
		_, aerr := sqlite.AnalyzeInBlock(ctx, blk, c.sql)
		if c.v != reject && !c.execOnly && aerr != nil {
			t.Errorf("Block.Analyze(%q): %v", c.sql, aerr)
		}
		// Refusals of DEFAULTs, view and trigger bodies are only known once
		// the DDL ran: Block.Analyze does not run it, Exec does.
		if c.v == reject && !c.execOnly && (aerr != nil || !ddl(c.sql)) {
			if msg := checkVerdict(c, aerr, true); msg != "" {
				t.Errorf("Block.Analyze(%q): %s", c.sql, msg)
			}
		}
		rows, err := blk.Exec(ctx, c.sql, nil)
		if errors.Is(err, backend.ErrBlockLost) {
			t.Fatalf("Exec(%q) lost the block: %v", c.sql, err)
		}
		if msg := checkVerdict(c, err, true); msg != "" {
			t.Errorf("Exec(%q): %s", c.sql, msg)
		}
		if err := blk.RollbackTo(ctx); err != nil {
			t.Fatalf("rollback after %q: %v", c.sql, err)
		}
		if err != nil || c.v == reject {
			continue
		}
		// Again in a new tx with the same env, from the statement cache
		// unless it is DDL: a rewritten statement gives the same result.
		if err := blk.Savepoint(ctx, envA); err != nil {
			t.Fatal(err)
		}
		again, err := blk.Exec(ctx, c.sql, nil)
		if err != nil {
			t.Errorf("Exec(%q) again: %v", c.sql, err)
		} else if c.v == rewrite && !ddl(c.sql) && !reflect.DeepEqual(rows, again) {
			t.Errorf("Exec(%q) with the same env: %v, then %v", c.sql, rows, again)
		}
		if err := blk.RollbackTo(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The block is intact after every refusal: the capture triggers work.
	if err := blk.Savepoint(ctx, envB); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx, `INSERT INTO t (id, v) VALUES (50, 'z')`, nil); err != nil {
		t.Fatal(err)
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := blk.ChangeDigest(ctx)
	if err != nil || len(d.Block) == 0 {
		t.Fatalf("digest %x, %v", d.Block, err)
	}
}

// A statement refused at CheckTx because of the schema (a view whose body
// is refused) is refused once the schema exists, and a verdict taken before
// the schema changed is not reused after the block that changed it commits.
func TestGateVerdictFollowsSchema(t *testing.T) {
	ctx := context.Background()
	b := openGateDB(t)
	defer b.Close()
	const q = `SELECT * FROM later ORDER BY id`
	if err := analyzeErr(b.Gate().Analyze(ctx, q)); err != nil {
		t.Fatalf("missing table: %v, want accepted (an earlier tx may create it)", err)
	}
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx, `CREATE TABLE later (id INTEGER PRIMARY KEY, v TEXT)`, nil); err != nil {
		t.Fatal(err)
	}
	if err := commitDigested(t, blk, backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
		t.Fatal(err)
	}
	if err := analyzeErr(b.Gate().Analyze(ctx, q)); err != nil {
		t.Fatalf("after CREATE: %v", err)
	}
	if err := analyzeErr(b.Gate().Analyze(ctx, `SELECT changes() FROM later`)); backend.AsError(err) == nil || backend.AsError(err).Class != backend.ClassPermission {
		t.Fatalf("changes() on an existing table: %v, want refused", err)
	}
}

// Objects that bypassed the gate (created before it existed, or out of band
// with the sqlite3 shell) are still caught: a trigger body is compiled, under
// the gate, when a statement that fires it is compiled; a view's body when a
// statement reads the view. Both fail identically on every node.
func TestGateTrapsInOldSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "relchain.db")
	raw, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE tt (id INTEGER PRIMARY KEY, v INT)`,
		`CREATE TABLE log (v INT)`,
		`CREATE TRIGGER trap AFTER INSERT ON tt BEGIN INSERT INTO log (v) VALUES (total_changes()); END`,
		`CREATE VIEW vtrap AS SELECT sqlite_version() AS r`,
		`CREATE TABLE dtrap (id INT, v INT DEFAULT (changes()))`,
	} {
		if err := raw.Exec(s); err != nil {
			t.Fatal(s, err)
		}
	}
	raw.Close()
	b, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range []gateCase{
		{v: reject, sql: `INSERT INTO tt (id, v) VALUES (1, 1)`, reason: "function total_changes() depends on connection state (in the body of trap)"},
		{v: reject, sql: `SELECT * FROM vtrap`, reason: "function sqlite_version() depends on the node's SQLite build (in the body of vtrap)"},
		{v: accept, sql: `UPDATE tt SET v = 2`, reason: "the trap fires on INSERT only"}, // the trap fires on INSERT only
	} {
		if msg := checkVerdict(c, analyzeErr(b.Gate().Analyze(ctx, c.sql)), false); msg != "" {
			t.Errorf("Analyze(%q): %s", c.sql, msg)
		}
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = blk.Exec(ctx, c.sql, nil)
		if msg := checkVerdict(c, err, true); msg != "" {
			t.Errorf("Exec(%q): %s", c.sql, msg)
		}
		blk.Rollback(ctx)
	}
	// A DEFAULT is never compiled under the authorizer: an old table with a
	// non-deterministic DEFAULT is only refused when its DDL changes.
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	_, err = blk.Exec(ctx, `ALTER TABLE dtrap ADD COLUMN w INT`, nil)
	if msg := checkVerdict(gateCase{v: reject, reason: "DEFAULT of column dtrap.v: function changes()"}, err, true); msg != "" {
		t.Errorf("ALTER of a trapped table: %s", msg)
	}
}

// FuzzGate: no statement may crash the node or fail it with anything but
// a *backend.Error, at CheckTx or in a block (where it may also lose the
// block, saying so with ErrBlockLost); the block, or its re-run, stays
// usable; a statement the block accepts has the same verdict at Analyze and
// Exec.
func FuzzGate(f *testing.F) {
	racetest.Heavy(f) // the seed corpus, one statement after another
	for _, c := range gateCorpus {
		f.Add(c.sql)
	}
	for _, s := range gateSetup {
		f.Add(s)
	}
	ctx := context.Background()
	b := openGateDB(f)
	defer b.Close()
	// Unbounded statements must fail within the fuzzer's 10 s per input
	// (instrumented SQLite is slow): the same mechanism, a lower limit.
	sqlite.SetWorkLimit(b.(*sqlite.Backend), 2000)
	f.Fuzz(func(t *testing.T, sql string) {
		if err := analyzeErr(b.Gate().Analyze(ctx, sql)); err != nil && backend.AsError(err) == nil {
			t.Fatalf("Analyze(%q): not a statement failure: %v", sql, err)
		}
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer blk.Rollback(ctx)
		if err := blk.Savepoint(ctx, envA); err != nil {
			t.Fatal(err)
		}
		_, aerr := sqlite.AnalyzeInBlock(ctx, blk, sql)
		if aerr != nil && backend.AsError(aerr) == nil {
			t.Fatalf("Block.Analyze(%q): not a statement failure: %v", sql, aerr)
		}
		_, err = blk.Exec(ctx, sql, nil)
		if err != nil && backend.AsError(err) == nil {
			t.Fatalf("Exec(%q): not a statement failure: %v", sql, err)
		}
		if e := backend.AsError(aerr); e != nil && e.Class == backend.ClassPermission {
			if e2 := backend.AsError(err); e2 == nil || e2.Class != backend.ClassPermission {
				t.Fatalf("%q: Block.Analyze refused (%v), Exec did not (%v)", sql, aerr, err)
			}
		}
		if errors.Is(err, backend.ErrBlockLost) {
			if err := blk.Rollback(ctx); err != nil {
				t.Fatalf("after %q: Rollback of the lost block: %v", sql, err)
			}
			if blk, err = b.Begin(ctx); err != nil {
				t.Fatalf("after %q: Begin after a lost block: %v", sql, err)
			}
			defer blk.Rollback(ctx)
		} else if err := blk.RollbackTo(ctx); err != nil {
			t.Fatalf("after %q: rollback to savepoint: %v", sql, err)
		}
		if _, err := blk.Exec(ctx, `UPDATE t SET n = n + 1 WHERE id = 1`, nil); err != nil {
			t.Fatalf("after %q: block unusable: %v", sql, err)
		}
	})
}

// Once a table holds the largest rowid, SQLite would pick the next rowid at
// random (or fail with SQLITE_FULL under AUTOINCREMENT, which would halt
// every node): the rowid guard refuses the insert deterministically.
func TestRowidExhaustionIsAConstraintFailure(t *testing.T) {
	ctx := context.Background()
	_, blk := mustBeginGateBlock(t)
	for _, s := range []string{
		`CREATE TABLE r (id INTEGER PRIMARY KEY, v TEXT)`,
		`CREATE TABLE sh (rowid TEXT, v TEXT)`,
		`INSERT INTO r (id) VALUES (9223372036854775807)`,
		`INSERT INTO ai (id) VALUES (9223372036854775807)`,
		`INSERT INTO sh (oid, v) VALUES (9223372036854775807, 'x')`,
	} {
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, s := range []string{`INSERT INTO r (v) VALUES ('x')`, `INSERT INTO ai (v) VALUES ('x')`, `INSERT INTO sh (v) VALUES ('y')`} {
		_, err := blk.Exec(ctx, s, nil)
		if e := backend.AsError(err); e == nil || e.Class != backend.ClassConstraint || !strings.Contains(e.Message, "rowid space") {
			t.Errorf("%s: %v, want a constraint failure naming the rowid space", s, err)
		}
	}
	if _, err := blk.Exec(ctx, `INSERT INTO t (v) VALUES ('fine')`, nil); err != nil {
		t.Fatal(err)
	}
}

// ALTER TABLE … DROP COLUMN works although the capture triggers name every
// column, and the table's changes are still captured afterwards.
func TestDropColumnKeepsCapture(t *testing.T) {
	ctx := context.Background()
	digest := func(stmts ...string) []byte {
		b := openGateDB(t)
		defer b.Close()
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer blk.Rollback(ctx)
		for _, s := range stmts {
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		d, err := blk.ChangeDigest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return d.Block
	}
	drop := digest(`ALTER TABLE t DROP COLUMN w`)
	withInsert := digest(`ALTER TABLE t DROP COLUMN w`, `INSERT INTO t (id, v) VALUES (9, 'x')`)
	if string(drop) == string(withInsert) {
		t.Fatal("an insert after DROP COLUMN was not captured")
	}
}

// A tx whose DDL was rolled back must not hide the next tx's DDL: the
// schema cookie goes back with the savepoint, and the next DDL can bring it
// to exactly the value remembered before the rollback.
func TestDDLAfterRolledBackDDLIsCapturedAndVetted(t *testing.T) {
	ctx := context.Background()
	_, blk := mustBeginGateBlock(t)
	exec := func(sql string, release bool) error {
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		_, err := blk.Exec(ctx, sql, nil)
		if err != nil || !release {
			if err := blk.RollbackTo(ctx); err != nil {
				t.Fatal(err)
			}
			return err
		}
		return blk.Release(ctx)
	}
	// DROP TABLE moves the cookie by one and installs no trigger.
	if err := exec(`DROP TABLE acct`, false); err != nil {
		t.Fatal(err)
	}
	err := exec(`CREATE VIEW rv AS SELECT sqlite_source_id() AS r`, true)
	if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission {
		t.Fatalf("view calling sqlite_source_id() after a rolled-back DROP: %v, want refused", err)
	}
	if err := exec(`DROP TABLE ai`, false); err != nil {
		t.Fatal(err)
	}
	if err := exec(`CREATE TABLE third (id INTEGER PRIMARY KEY, v INT)`, true); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exec(`INSERT INTO third (id, v) VALUES (1, 1)`, true); err != nil {
		t.Fatal(err)
	}
	after, err := blk.ChangeDigest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := blk.ChangeDigest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(after.Block) == string(empty.Block) {
		t.Fatal("the insert into a table created after a rolled-back DROP was not captured")
	}
}
