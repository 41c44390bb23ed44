package postgres

import "context"

// installLockKey serialises concurrent installs on one database (two
// processes opening the same DSN): CREATE OR REPLACE FUNCTION is not safe to
// run concurrently ("tuple concurrently updated").
const installLockKey = 0x72656c636861696e // "relchain"

// txSetting is the transaction-local setting that tags change records with
// the index of the bc-transaction that wrote them (see relchain.changes).
const txSetting = "relchain.tx"

// Row image formats: what relchain.format.images records of a database's
// table sums.
const (
	// imagesJSON is row_to_json(row)::text, before format 2.
	imagesJSON = 1
	// imagesText is the row's text form (rowImageOpen).
	imagesText    = 2
	imagesTextSQL = "2"
)

// A row image is the row's text form, record_out as a cast to text prints
// it ("(1,,\"a,b\")"): rowImageOpen + <row> + rowImageClose. It determines the
// row (record_in reads it back), is the same in the capture trigger, at
// attach and in a table scan, and depends only on session settings the
// backend pins (DateStyle, IntervalStyle, TimeZone, extra_float_digits,
// bytea_output). The functions are named, not a ::text cast: a cast of a
// table's row type to text could be redefined (CREATE CAST). Before image
// format 2 the image was row_to_json(row)::text, which costs the trigger
// and the block about twice as much per row (BENCHMARKS.md); a database
// of that format migrates at its next block (Backend.oldImages).
const (
	rowImageOpen  = "pg_catalog.textin(pg_catalog.record_out("
	rowImageClose = "))"
)

// schemaSQL installs relchain's own objects, idempotently, in one
// db-transaction at Open. Everything lives in the schema relchain, which
// change capture ignores.
//
//   - relchain.meta: the committed State, one row.
//   - relchain.changes: the row changes of the open block, appended by
//     triggers and consumed (deleted) by ChangeDigest, in no particular
//     order (no sequence column: ChangeDigest sorts). Being an ordinary table
//     written in the block's db-transaction, changes rolled back to a
//     savepoint vanish with it. Its column tx is the index of the
//     bc-transaction that wrote the record: its DEFAULT reads the
//     transaction-local setting relchain.tx, which Savepoint sets in the
//     round trip that opens the tx's savepoint (so the triggers need not
//     know); a session that never set it (psql, writing out of band) gets
//     -1. Databases installed before the column existed get it here.
//   - relchain.digest: the state digest's sum of every replicated table
//     (package statedigest), updated by each block.
//   - relchain.capture(): the row trigger: one record per changed row with
//     the row's image (rowImageOpen; NEW, OLD for DELETE; an UPDATE records NEW as
//     'U' with OLD in the column old, which ChangeDigest reads as a 'B'
//     record of its own: one row instead of two), and one 'T' record per
//     TRUNCATE (which fires no row triggers). Databases installed before
//     get the column old, and lose the former column seq (a sequence
//     value per record that nothing read).
//   - relchain.after_ddl(stmt): what a block runs after each DDL statement
//     (see block.Exec), as the owner of the tables (no event trigger: only
//     a superuser may create one, and relchain's roles are not). It
//     records the statement (”, 'S', its text), so that schema changes that
//     rewrite no rows (ALTER TABLE ADD COLUMN ... DEFAULT, CREATE INDEX,
//     DROP TABLE) enter the digest, and attaches capture() to every
//     permanent table outside the relchain schema that lacks it (the
//     tables the statement created), recording the rows it was born with
//     (CREATE TABLE AS), which no trigger saw. The gate refuses DDL inside
//     routine bodies, so every DDL statement is a block's own statement.
//     Databases installed before lose the former event triggers on_ddl and
//     on_drop (see migrateEventTriggers).
//
// Temporary objects are ignored: their schema name (pg_temp_N) differs
// between nodes, and they are not state.
const schemaSQL = `
CREATE SCHEMA IF NOT EXISTS relchain;

CREATE TABLE IF NOT EXISTS relchain.meta (
	id       int PRIMARY KEY CHECK (id = 1),
	height   bigint NOT NULL,
	app_hash bytea NOT NULL
);

CREATE TABLE IF NOT EXISTS relchain.system (
	key   bytea PRIMARY KEY,
	value bytea NOT NULL
);

CREATE TABLE IF NOT EXISTS relchain.digest (
	tbl text PRIMARY KEY,
	sum bytea NOT NULL
);

-- The row image format of the sums in relchain.digest (see imagesText). A
-- database that already holds a block but no row here was installed before
-- format 2: its next block rescans every table (see Begin). A database
-- that holds no block starts at format 2.
CREATE TABLE IF NOT EXISTS relchain.format (
	id     int PRIMARY KEY CHECK (id = 1),
	images int NOT NULL
);
INSERT INTO relchain.format (id, images)
SELECT 1, ` + imagesTextSQL + ` WHERE NOT EXISTS (SELECT 1 FROM relchain.meta)
ON CONFLICT (id) DO NOTHING;

-- Row history (history.go): relchain's own, never captured.
CREATE TABLE IF NOT EXISTS relchain.history_blocks (
	height   bigint PRIMARY KEY,
	time     bigint NOT NULL,
	app_hash bytea NOT NULL,
	txs      bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS relchain.history_versions (
	tbl      text NOT NULL,
	key_hash bytea NOT NULL,
	height   bigint NOT NULL,
	key      bytea NOT NULL,
	op       text NOT NULL,
	image    bytea,
	txs      bytea NOT NULL,
	PRIMARY KEY (tbl, key_hash, height)
);
CREATE INDEX IF NOT EXISTS history_versions_height ON relchain.history_versions (height);
CREATE TABLE IF NOT EXISTS relchain.history_states (
	height bigint PRIMARY KEY,
	state  bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS relchain.history_roots (
	height bigint PRIMARY KEY,
	roots  bytea NOT NULL
);

CREATE TABLE IF NOT EXISTS relchain.changes (
	tbl text NOT NULL,
	op  char(1) NOT NULL,
	img text NOT NULL
);

-- Guarded: ALTER TABLE locks the table even when the column exists, and
-- install runs at every Open (also beside a running node).
DO $do$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'relchain.changes'::regclass AND attname = 'tx' AND NOT attisdropped) THEN
		ALTER TABLE relchain.changes ADD COLUMN IF NOT EXISTS tx int NOT NULL
			DEFAULT coalesce(nullif(current_setting('` + txSetting + `', true), '')::int, -1);
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'relchain.changes'::regclass AND attname = 'old' AND NOT attisdropped) THEN
		ALTER TABLE relchain.changes ADD COLUMN IF NOT EXISTS old text;
	END IF;
	IF EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'relchain.changes'::regclass AND attname = 'seq' AND NOT attisdropped) THEN
		ALTER TABLE relchain.changes DROP COLUMN seq;
	END IF;
END
$do$;

CREATE OR REPLACE FUNCTION relchain.capture() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
	IF TG_OP = 'DELETE' THEN
		INSERT INTO relchain.changes (tbl, op, img)
		VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'D', ` + rowImageOpen + `OLD` + rowImageClose + `);
	ELSIF TG_OP = 'TRUNCATE' THEN
		INSERT INTO relchain.changes (tbl, op, img)
		VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'T', '');
	ELSIF TG_OP = 'UPDATE' THEN
		INSERT INTO relchain.changes (tbl, op, img, old)
		VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', ` + rowImageOpen + `NEW` + rowImageClose + `, ` + rowImageOpen + `OLD` + rowImageClose + `);
	ELSE
		INSERT INTO relchain.changes (tbl, op, img)
		VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'I', ` + rowImageOpen + `NEW` + rowImageClose + `);
	END IF;
	RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.attach(rel regclass, existing_rows boolean) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	c record;
BEGIN
	SELECT n.nspname, cl.relname, cl.relkind, cl.relpersistence INTO c
	FROM pg_class cl JOIN pg_namespace n ON n.oid = cl.relnamespace
	WHERE cl.oid = rel;
	IF NOT FOUND OR c.nspname = 'relchain' OR c.relpersistence = 't' OR c.relkind NOT IN ('r', 'p') THEN
		RETURN;
	END IF;
	-- A partition inherits (a clone of) its parent's trigger.
	IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = rel AND tgname = 'relchain_capture') THEN
		EXECUTE format('CREATE TRIGGER relchain_capture AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION relchain.capture()', rel);
	END IF;
	IF c.relkind = 'r' AND NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = rel AND tgname = 'relchain_capture_truncate') THEN
		EXECUTE format('CREATE TRIGGER relchain_capture_truncate AFTER TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION relchain.capture()', rel);
	END IF;
	IF existing_rows THEN
		EXECUTE format('INSERT INTO relchain.changes (tbl, op, img) SELECT %L, ''I'', ` + rowImageOpen + `x.*` + rowImageClose + ` FROM %s AS x',
			c.nspname || '.' || c.relname, rel);
	END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.after_ddl(stmt text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	t record;
BEGIN
	INSERT INTO relchain.changes (tbl, op, img) VALUES ('', 'S', stmt);
	FOR t IN SELECT c.oid, EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'relchain_capture') AS captured
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND c.relpersistence <> 't'
			AND n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema', 'pg_toast')
			AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'
			AND (NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'relchain_capture')
				OR (c.relkind = 'r' AND NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'relchain_capture_truncate')))
	LOOP
		PERFORM relchain.attach(t.oid, NOT t.captured);
	END LOOP;
	PERFORM relchain.sync_sequences();
END
$fn$;

DROP FUNCTION IF EXISTS relchain.on_ddl();
DROP FUNCTION IF EXISTS relchain.on_drop();

-- Tables that existed before relchain was installed are captured too.
SELECT relchain.attach(c.oid, false)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND c.relpersistence <> 't'
	AND n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema', 'pg_toast')
	AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'
ORDER BY c.oid;
`

// afterDDL runs relchain.after_ddl for a DDL statement that succeeded (see
// schemaSQL), in the statement's savepoint; the caller holds the backend's
// mutex.
func (k *session) afterDDL(ctx context.Context, sql string) error {
	_, err := execParams(ctx, k.conn.PgConn(), "SELECT relchain.after_ddl($1)", []any{sql}, false)
	return err
}
