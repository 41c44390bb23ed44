DROP SCHEMA IF EXISTS relchain CASCADE; DROP TABLE IF EXISTS stock;
CREATE SCHEMA relchain;
CREATE TABLE relchain.changes (tbl text NOT NULL, op char(1) NOT NULL, img text NOT NULL, tx int NOT NULL DEFAULT coalesce(nullif(current_setting('relchain.tx', true), '')::int, -1), old text);
CREATE UNLOGGED TABLE relchain.changes_u (tbl text NOT NULL, op char(1) NOT NULL, img text NOT NULL, tx int NOT NULL DEFAULT coalesce(nullif(current_setting('relchain.tx', true), '')::int, -1), old text);
CREATE TABLE relchain.changes_nd (tbl text NOT NULL, op char(1) NOT NULL, img text NOT NULL, tx int NOT NULL, old text);
CREATE TABLE stock (s_i_id int, s_w_id int, s_quantity int, s_dist_01 char(24), s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24), s_ytd numeric(8,0), s_order_cnt int, s_remote_cnt int, s_data varchar(50), PRIMARY KEY (s_w_id, s_i_id));
INSERT INTO stock SELECT i, 1, 50, repeat('a',24),repeat('b',24),repeat('c',24),repeat('d',24),repeat('e',24),repeat('f',24),repeat('g',24),repeat('h',24),repeat('i',24),repeat('j',24), 0, 0, 0, repeat('x', 40) FROM generate_series(1,10000) i;
VACUUM ANALYZE stock;

CREATE FUNCTION relchain.cap_current() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	IF TG_OP = 'DELETE' THEN
		INSERT INTO relchain.changes (tbl, op, img) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'D', pg_catalog.row_to_json(OLD)::text);
	ELSIF TG_OP = 'UPDATE' THEN
		INSERT INTO relchain.changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	ELSE
		INSERT INTO relchain.changes (tbl, op, img) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'I', pg_catalog.row_to_json(NEW)::text);
	END IF;
	RETURN NULL;
END $fn$;
CREATE FUNCTION relchain.cap_noop() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN RETURN NULL; END $fn$;
CREATE FUNCTION relchain.cap_json_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE a text; b text;
BEGIN a := pg_catalog.row_to_json(NEW)::text; b := pg_catalog.row_to_json(OLD)::text; RETURN NULL; END $fn$;
CREATE FUNCTION relchain.cap_text() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', NEW::text, OLD::text);
	RETURN NULL;
END $fn$;
CREATE FUNCTION relchain.cap_unlogged() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes_u (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	RETURN NULL;
END $fn$;
CREATE FUNCTION relchain.cap_nodefault() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes_nd (tbl, op, img, old, tx) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text, 7);
	RETURN NULL;
END $fn$;
CREATE FUNCTION relchain.cap_argv() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img, old) VALUES (TG_ARGV[0], 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	RETURN NULL;
END $fn$;
CREATE FUNCTION relchain.cap_before() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', pg_catalog.row_to_json(NEW)::text, pg_catalog.row_to_json(OLD)::text);
	RETURN NEW;
END $fn$;
CREATE FUNCTION relchain.cap_text_unlogged() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes_u (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', NEW::text, OLD::text);
	RETURN NULL;
END $fn$;
CREATE FUNCTION relchain.cap_insert_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', 'x', 'y');
	RETURN NULL;
END $fn$;
CREATE FUNCTION relchain.cap_jsonb() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img, old) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', to_jsonb(NEW)::text, to_jsonb(OLD)::text);
	RETURN NULL;
END $fn$;
