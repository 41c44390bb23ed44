package postgres

// sequenceSQL installs relchain's transactional sequences (issue 33; see
// "Sequences" in DESIGN.md), idempotently, after schemaSQL.
//
// A PostgreSQL sequence's counter is not transactional: nextval is never
// undone by ROLLBACK, so a failed tx, a rehearsal, a speculated block that
// is rolled back or a block replayed after a crash would advance one
// node's counter and not another's. So a sequence keeps its catalog object
// (CREATE SEQUENCE, serial's t_id_seq owned by t.id: names, ownership,
// pg_get_serial_sequence, DROP TABLE dropping it, introspection), but its
// state lives in relchain.sequences, an ordinary table written in the
// block's db-transaction: rolled back with a tx's savepoint, discarded with
// a rolled-back block, dumped with a checkpoint and covered by the state
// digest (a capture trigger like a user table's; see replicatedTablesSQL).
// The server's own counter of such a sequence is never advanced: the gate
// rewrites nextval, currval, setval and lastval of statements to the
// functions below, and sync_sequences turns the DEFAULT nextval('s'::regclass)
// a serial column gets into relchain.nextval('s'::regclass).
//
//   - relchain.sequences: one row per sequence of a schema outside the
//     system's and relchain's, by its schema-qualified name (the same on
//     every node; OIDs are not), with its state (last_value, is_called: as
//     PostgreSQL's) and options (increment, bounds, cycle).
//   - relchain.seq_name(regclass): that name of a sequence, or NULL.
//   - relchain.nextval, currval, setval (two and three arguments),
//     lastval: PostgreSQL's semantics and SQLSTATEs, on that row. currval
//     and lastval answer the value last returned within the same
//     bc-transaction (the setting relchain.tx, which Savepoint sets per tx,
//     tags the transaction-local setting that holds it), where PostgreSQL
//     answers within the session: a session has no meaning on a chain.
//   - relchain.sync_sequences(): run by after_ddl after every DDL
//     statement: adds the rows of new sequences (START, not called), takes
//     the options ALTER SEQUENCE changed, deletes the rows of dropped
//     sequences (DROP SEQUENCE, DROP TABLE of a serial column's table) and
//     moves serial columns' defaults to relchain.nextval.
const sequenceSQL = `
CREATE TABLE IF NOT EXISTS relchain.sequences (
	name       text PRIMARY KEY,
	last_value bigint NOT NULL,
	is_called  boolean NOT NULL,
	increment  bigint NOT NULL,
	min_value  bigint NOT NULL,
	max_value  bigint NOT NULL,
	cycle      boolean NOT NULL
);

DO $do$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
		WHERE tgrelid = 'relchain.sequences'::regclass AND tgname = 'relchain_capture') THEN
		CREATE TRIGGER relchain_capture AFTER INSERT OR UPDATE OR DELETE ON relchain.sequences
			FOR EACH ROW EXECUTE FUNCTION relchain.capture();
	END IF;
END
$do$;

CREATE OR REPLACE FUNCTION relchain.seq_name(seq regclass) RETURNS text
LANGUAGE sql STABLE AS $fn$
	SELECT n.nspname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) c.relname
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
	WHERE c.oid OPERATOR(pg_catalog.=) seq AND c.relkind OPERATOR(pg_catalog.=) 'S'
$fn$;

CREATE OR REPLACE FUNCTION relchain.seq_row(seq regclass) RETURNS relchain.sequences
LANGUAGE plpgsql AS $fn$
DECLARE
	s relchain.sequences;
BEGIN
	SELECT q.* INTO s FROM relchain.sequences q WHERE q.name OPERATOR(pg_catalog.=) relchain.seq_name(seq);
	IF NOT FOUND THEN
		RAISE EXCEPTION '"%" is not a sequence', seq USING ERRCODE = '42809';
	END IF;
	RETURN s;
END
$fn$;

-- The setting that holds a sequence's currval within one bc-transaction:
-- transaction-local, its value '<relchain.tx>:<value>'.
CREATE OR REPLACE FUNCTION relchain.seq_setting(name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
	SELECT 'relchain.cv_' OPERATOR(pg_catalog.||) pg_catalog.md5(name)
$fn$;

CREATE OR REPLACE FUNCTION relchain.seq_returned(name text, v bigint) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	tag text := COALESCE(pg_catalog.current_setting('relchain.tx', true), '');
BEGIN
	PERFORM pg_catalog.set_config(relchain.seq_setting(name), tag OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) v::text, true);
	PERFORM pg_catalog.set_config('relchain.lastval', tag OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) v::text, true);
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.seq_recalled(setting text) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
	tag text := COALESCE(pg_catalog.current_setting('relchain.tx', true), '');
	v text := pg_catalog.current_setting(setting, true);
BEGIN
	IF v IS NULL OR NOT pg_catalog.starts_with(v, tag OPERATOR(pg_catalog.||) ':') THEN
		RETURN NULL;
	END IF;
	RETURN pg_catalog.substr(v, pg_catalog.length(tag) OPERATOR(pg_catalog.+) 2)::bigint;
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.nextval(seq regclass) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
	s relchain.sequences := relchain.seq_row(seq);
	v bigint;
BEGIN
	IF NOT s.is_called THEN
		v := s.last_value;
	ELSIF s.increment > 0 AND s.last_value > s.max_value - s.increment THEN
		IF NOT s.cycle THEN
			RAISE EXCEPTION 'nextval: reached maximum value of sequence "%" (%)', seq, s.max_value USING ERRCODE = '2200H';
		END IF;
		v := s.min_value;
	ELSIF s.increment < 0 AND s.last_value < s.min_value - s.increment THEN
		IF NOT s.cycle THEN
			RAISE EXCEPTION 'nextval: reached minimum value of sequence "%" (%)', seq, s.min_value USING ERRCODE = '2200H';
		END IF;
		v := s.max_value;
	ELSE
		v := s.last_value + s.increment;
	END IF;
	UPDATE relchain.sequences SET last_value = v, is_called = true WHERE name OPERATOR(pg_catalog.=) s.name;
	PERFORM relchain.seq_returned(s.name, v);
	RETURN v;
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.currval(seq regclass) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
	s relchain.sequences := relchain.seq_row(seq);
	v bigint := relchain.seq_recalled(relchain.seq_setting(s.name));
BEGIN
	IF v IS NULL THEN
		RAISE EXCEPTION 'currval of sequence "%" is not yet defined in this transaction', seq USING ERRCODE = '55000';
	END IF;
	RETURN v;
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.lastval() RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
	v bigint := relchain.seq_recalled('relchain.lastval');
BEGIN
	IF v IS NULL THEN
		RAISE EXCEPTION 'lastval is not yet defined in this transaction' USING ERRCODE = '55000';
	END IF;
	RETURN v;
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.setval(seq regclass, v bigint, called boolean) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
	s relchain.sequences := relchain.seq_row(seq);
BEGIN
	IF v IS NULL OR called IS NULL THEN
		RETURN NULL;
	END IF;
	IF v < s.min_value OR v > s.max_value THEN
		RAISE EXCEPTION 'setval: value % is out of bounds for sequence "%" (%..%)', v, seq, s.min_value, s.max_value
			USING ERRCODE = '22003';
	END IF;
	UPDATE relchain.sequences SET last_value = v, is_called = called WHERE name OPERATOR(pg_catalog.=) s.name;
	IF called THEN
		PERFORM relchain.seq_returned(s.name, v);
	END IF;
	RETURN v;
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.setval(seq regclass, v bigint) RETURNS bigint
LANGUAGE sql AS $fn$
	SELECT relchain.setval(seq, v, true)
$fn$;

CREATE OR REPLACE FUNCTION relchain.sync_sequences() RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	d record;
BEGIN
	DELETE FROM relchain.sequences s WHERE NOT EXISTS (
		SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'S' AND n.nspname || '.' || c.relname = s.name);
	INSERT INTO relchain.sequences (name, last_value, is_called, increment, min_value, max_value, cycle)
	SELECT n.nspname || '.' || c.relname, q.seqstart, false, q.seqincrement, q.seqmin, q.seqmax, q.seqcycle
	FROM pg_catalog.pg_sequence q JOIN pg_catalog.pg_class c ON c.oid = q.seqrelid
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relpersistence = 'p' AND n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema')
		AND n.nspname NOT LIKE 'pg\_%'
	ORDER BY 1
	ON CONFLICT (name) DO UPDATE SET increment = excluded.increment, min_value = excluded.min_value,
		max_value = excluded.max_value, cycle = excluded.cycle
	WHERE (relchain.sequences.increment, relchain.sequences.min_value, relchain.sequences.max_value, relchain.sequences.cycle)
		IS DISTINCT FROM (excluded.increment, excluded.min_value, excluded.max_value, excluded.cycle);
	-- A serial column's default calls the server's nextval; every nextval a
	-- statement writes is rewritten to relchain.nextval by the gate.
	FOR d IN SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) AS rel, a.attname,
			pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) AS expr
		FROM pg_catalog.pg_attrdef ad JOIN pg_catalog.pg_class c ON c.oid = ad.adrelid
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_catalog.pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
		WHERE n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
			AND pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) LIKE 'nextval(''%''::regclass)'
		ORDER BY 1, 2
	LOOP
		EXECUTE pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT relchain.%s', d.rel, d.attname, d.expr);
	END LOOP;
END
$fn$;
`
