\set QUIET on
DROP TABLE IF EXISTS acc, changes CASCADE;
CREATE TABLE changes (tbl text NOT NULL, op "char" NOT NULL, img text NOT NULL, tx int NOT NULL DEFAULT coalesce(nullif(current_setting('relchain.tx', true), '')::int, -1), old text);
CREATE TEMP TABLE tchanges (LIKE changes INCLUDING DEFAULTS) ON COMMIT DELETE ROWS;
CREATE TABLE acc (id bigint PRIMARY KEY, bal bigint NOT NULL, name text NOT NULL DEFAULT 'abcdefghij');
INSERT INTO acc SELECT g, 1000 FROM generate_series(1, 100000) g;
VACUUM ANALYZE acc;
CREATE OR REPLACE FUNCTION cap_perm() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION cap_temp() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	IF current_setting('relchain.capture', true) = 'temp' THEN
		INSERT INTO pg_temp.tchanges (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	ELSE
		INSERT INTO changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	END IF;
	RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION bench(n int, base int) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
	FOR i IN 1..n LOOP
		UPDATE acc SET bal = bal + 1 WHERE id = 1 + ((base + i * 7919) % 100000);
	END LOOP;
END $fn$;
SET relchain.capture = 'temp';
\timing on
\echo none: 10 blocks of 530 updates
BEGIN; SELECT bench(530, 1); COMMIT; BEGIN; SELECT bench(530, 2); COMMIT; BEGIN; SELECT bench(530, 3); COMMIT; BEGIN; SELECT bench(530, 4); COMMIT; BEGIN; SELECT bench(530, 5); COMMIT;
CREATE TRIGGER t1 AFTER UPDATE ON acc FOR EACH ROW EXECUTE FUNCTION cap_perm();
\echo perm: update, select, truncate, commit
BEGIN; SELECT bench(530, 11); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM changes) x; TRUNCATE changes; COMMIT;
BEGIN; SELECT bench(530, 12); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM changes) x; TRUNCATE changes; COMMIT;
BEGIN; SELECT bench(530, 13); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM changes) x; TRUNCATE changes; COMMIT;
BEGIN; SELECT bench(530, 14); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM changes) x; TRUNCATE changes; COMMIT;
DROP TRIGGER t1 ON acc;
CREATE TRIGGER t2 AFTER UPDATE ON acc FOR EACH ROW EXECUTE FUNCTION cap_temp();
\echo temp: update, select, commit
BEGIN; SELECT bench(530, 21); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM pg_temp.tchanges) x; COMMIT;
BEGIN; SELECT bench(530, 22); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM pg_temp.tchanges) x; COMMIT;
BEGIN; SELECT bench(530, 23); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM pg_temp.tchanges) x; COMMIT;
BEGIN; SELECT bench(530, 24); SELECT count(*) FROM (SELECT tbl, op, img, tx, old FROM pg_temp.tchanges) x; COMMIT;
