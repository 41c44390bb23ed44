\set QUIET on
DROP TABLE IF EXISTS acc, changes CASCADE;
CREATE TABLE changes (tbl text NOT NULL, op "char" NOT NULL, img text NOT NULL, tx int NOT NULL DEFAULT coalesce(nullif(current_setting('relchain.tx', true), '')::int, -1), old text);
CREATE TABLE acc (id bigint PRIMARY KEY, bal bigint NOT NULL, name text NOT NULL DEFAULT 'abcdefghij');
INSERT INTO acc SELECT g, 1000 FROM generate_series(1, 10000) g;
CREATE OR REPLACE FUNCTION cap_generic() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	IF TG_OP = 'DELETE' THEN
		INSERT INTO changes (tbl, op, img) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'D', pg_catalog.row_to_json(OLD)::text);
	ELSIF TG_OP = 'UPDATE' THEN
		INSERT INTO changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	ELSE
		INSERT INTO changes (tbl, op, img) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'I', pg_catalog.row_to_json(NEW)::text);
	END IF;
	RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION cap_notice() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	IF TG_OP = 'DELETE' THEN
		RAISE NOTICE USING MESSAGE = pg_catalog.row_to_json(OLD)::text, DETAIL = TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, HINT = 'D';
	ELSIF TG_OP = 'UPDATE' THEN
		RAISE NOTICE USING MESSAGE = pg_catalog.row_to_json(NEW)::text, DETAIL = TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, HINT = pg_catalog.row_to_json(OLD)::text;
	ELSE
		RAISE NOTICE USING MESSAGE = pg_catalog.row_to_json(NEW)::text, DETAIL = TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, HINT = 'I';
	END IF;
	RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION cap_json_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE a text; b text;
BEGIN
	a := pg_catalog.row_to_json(NEW)::text; b := pg_catalog.row_to_json(OLD)::text;
	RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION cap_empty() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION bench(n int) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
	FOR i IN 1..n LOOP
		UPDATE acc SET bal = bal + 1 WHERE id = 1 + (i % 10000);
	END LOOP;
END $fn$;
\timing on
\echo none
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
CREATE TRIGGER t0 AFTER INSERT OR UPDATE OR DELETE ON acc FOR EACH ROW EXECUTE FUNCTION cap_empty();
\echo empty-trigger
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
DROP TRIGGER t0 ON acc;
CREATE TRIGGER t0 AFTER INSERT OR UPDATE OR DELETE ON acc FOR EACH ROW EXECUTE FUNCTION cap_json_only();
\echo json-only
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
DROP TRIGGER t0 ON acc;
CREATE TRIGGER t1 AFTER INSERT OR UPDATE OR DELETE ON acc FOR EACH ROW EXECUTE FUNCTION cap_generic();
\echo generic-insert
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
DROP TRIGGER t1 ON acc;
CREATE TRIGGER t2 AFTER INSERT OR UPDATE OR DELETE ON acc FOR EACH ROW EXECUTE FUNCTION cap_notice();
\echo notice
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
BEGIN; SET LOCAL relchain.tx = '3'; SELECT bench(20000); ROLLBACK;
