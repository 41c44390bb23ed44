package postgres

// clockGuardSQL installs relchain.clock_guard (issue 33; see "Clock words
// in arguments" in DESIGN.md), idempotently, after schemaSQL. The gate
// rewrites every cast to a date/time type of a value computed at run time,
// x::timestamptz, to relchain.clock_guard(x)::timestamptz
// (pggate/clockcast.go):
//
//   - for a string (text, varchar, char, name, domains over them, arrays of
//     them) it fails with SQLSTATE 22007 when a clock word (now, today,
//     tomorrow, yesterday, any case) stands in it as a word of its own,
//     between characters that are not ASCII letters (the rule of
//     clockArgWord), and returns it otherwise: PostgreSQL's date/time
//     input would read the node's own clock for it;
//   - for any other type (anyelement) it is SELECT v, which the planner
//     inlines: ts::date of a timestamptz column, or an index on it, plans
//     as without the guard.
//
// Exact overloads, not one polymorphic function that tests pg_typeof: the
// planner picks them by the argument's type, so the other types pay
// nothing, and every string type has its own (varchar[] would be ambiguous
// between text[] and anyelement). They are IMMUTABLE: the verdict depends
// on the value only, the same on every node. EXECUTE is PUBLIC's (the
// default), so the reader can read a view whose casts were guarded.
const clockGuardSQL = `
CREATE OR REPLACE FUNCTION relchain.clock_refuse(v text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
	RAISE EXCEPTION 'the date/time value ''%'' is resolved with each node''s clock; pass the time itself, or use now() in the statement, which reads the block''s time', left(v, 200)
		USING ERRCODE = '22007';
END
$fn$;

CREATE OR REPLACE FUNCTION relchain.clock_guard(v anyelement) RETURNS anyelement
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$ SELECT v $fn$;

CREATE OR REPLACE FUNCTION relchain.clock_guard(v text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::text ELSE v END $fn$;
CREATE OR REPLACE FUNCTION relchain.clock_guard(v text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::text[] ELSE v END $fn$;
CREATE OR REPLACE FUNCTION relchain.clock_guard(v varchar) RETURNS varchar
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::varchar ELSE v END $fn$;
CREATE OR REPLACE FUNCTION relchain.clock_guard(v varchar[]) RETURNS varchar[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::varchar[] ELSE v END $fn$;
CREATE OR REPLACE FUNCTION relchain.clock_guard(v bpchar) RETURNS bpchar
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::bpchar ELSE v END $fn$;
CREATE OR REPLACE FUNCTION relchain.clock_guard(v bpchar[]) RETURNS bpchar[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::bpchar[] ELSE v END $fn$;
CREATE OR REPLACE FUNCTION relchain.clock_guard(v name) RETURNS name
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::name ELSE v END $fn$;
CREATE OR REPLACE FUNCTION relchain.clock_guard(v name[]) RETURNS name[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT CASE WHEN v::text ~* '(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)'
	THEN relchain.clock_refuse(v::text)::name[] ELSE v END $fn$;
`
