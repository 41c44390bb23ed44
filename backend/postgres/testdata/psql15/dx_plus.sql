-- psql 15.20 -E, \dx+ (captured verbatim; the OID literal is of the capture database's acct, replaced by the test)
SELECT e.extname, e.oid
FROM pg_catalog.pg_extension e
ORDER BY 1;

SELECT pg_catalog.pg_describe_object(classid, objid, 0) AS "Object description"
FROM pg_catalog.pg_depend
WHERE refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND refobjid = '13559' AND deptype = 'e'
ORDER BY 1;

