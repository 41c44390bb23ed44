-- Catalog queries of gorm, captured by scripts/capture-catalog-queries.sh (README.md).
-- gorm CurrentDatabase
SELECT CURRENT_DATABASE()
-- next
-- gorm GetTables
-- parameters: $1 = 'BASE TABLE'
SELECT table_name FROM information_schema.tables WHERE table_schema = CURRENT_SCHEMA() AND table_type = $1
-- next
-- gorm HasTable authors
-- parameters: $1 = 'authors', $2 = 'BASE TABLE'
SELECT count(*) FROM information_schema.tables WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND table_type = $2
-- next
-- gorm HasTable missing
-- parameters: $1 = 'missing', $2 = 'BASE TABLE'
SELECT count(*) FROM information_schema.tables WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND table_type = $2
-- next
-- gorm HasColumn Author email
-- parameters: $1 = 'authors', $2 = 'email'
SELECT count(*) FROM INFORMATION_SCHEMA.columns WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND column_name = $2
-- next
-- gorm ColumnTypes Author
-- parameters: $1 = 'shop', $2 = 'authors'
SELECT c.column_name, c.is_nullable = 'YES', c.udt_name, c.character_maximum_length, c.numeric_precision, c.numeric_precision_radix, c.numeric_scale, c.datetime_precision, 8 * typlen, c.column_default, pd.description, c.identity_increment FROM information_schema.columns AS c JOIN pg_type AS pgt ON c.udt_name = pgt.typname LEFT JOIN pg_catalog.pg_description as pd ON pd.objsubid = c.ordinal_position AND pd.objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = c.table_name AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = c.table_schema)) where table_catalog = $1 AND table_schema = CURRENT_SCHEMA() AND table_name = $2
-- next
-- gorm ColumnTypes Author
-- parameters: $1 = 'shop', $2 = 'authors', $3 = 'UNIQUE'
SELECT constraint_name FROM information_schema.table_constraints tc JOIN information_schema.constraint_column_usage AS ccu USING (constraint_schema, constraint_catalog, table_name, constraint_name) JOIN information_schema.columns AS c ON c.table_schema = tc.constraint_schema AND tc.table_name = c.table_name AND ccu.column_name = c.column_name WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE') AND c.table_catalog = $1 AND c.table_schema = CURRENT_SCHEMA() AND c.table_name = $2 AND constraint_type = $3
-- next
-- gorm ColumnTypes Author
-- parameters: $1 = 'shop', $2 = 'authors'
SELECT c.column_name, constraint_name, constraint_type FROM information_schema.table_constraints tc JOIN information_schema.constraint_column_usage AS ccu USING (constraint_schema, constraint_catalog, table_name, constraint_name) JOIN information_schema.columns AS c ON c.table_schema = tc.constraint_schema AND tc.table_name = c.table_name AND ccu.column_name = c.column_name WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE') AND c.table_catalog = $1 AND c.table_schema = CURRENT_SCHEMA() AND c.table_name = $2
-- next
-- gorm ColumnTypes Author
-- parameters: $1 = 'authors'
SELECT a.attname as column_name, format_type(a.atttypid, a.atttypmod) AS data_type	FROM pg_attribute a JOIN pg_class b ON a.attrelid = b.oid AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = CURRENT_SCHEMA())	WHERE a.attnum > 0	AND NOT a.attisdropped	AND b.relname = $1
-- next
-- gorm HasIndex Author authors_email_key
-- parameters: $1 = 'authors', $2 = 'authors_email_key'
SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexname = $2 AND schemaname = CURRENT_SCHEMA()
-- next
-- gorm HasConstraint books books_author_id_fkey
-- parameters: $1 = 'books', $2 = 'books_author_id_fkey'
SELECT count(*) FROM INFORMATION_SCHEMA.table_constraints WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND constraint_name = $2
-- next
-- gorm GetIndexes Author
-- parameters: $1 = 'authors'
SELECT
	ct.relname AS table_name,
	ci.relname AS index_name,
	i.indisunique AS non_unique,
	i.indisprimary AS primary,
	a.attname AS column_name
FROM
	pg_index i
	LEFT JOIN pg_class ct ON ct.oid = i.indrelid
	LEFT JOIN pg_class ci ON ci.oid = i.indexrelid
	LEFT JOIN pg_attribute a ON a.attrelid = ct.oid
	LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid
WHERE
	a.attnum = ANY(i.indkey)
	AND con.oid IS NULL
	AND ct.relkind = 'r'
	AND ct.relname = $1
 AND ct.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = CURRENT_SCHEMA())
-- next
-- gorm AutoMigrate Author
-- parameters: $1 = 'authors', $2 = 'id', $3 = 'authors'
SELECT description FROM pg_catalog.pg_description WHERE objsubid = (SELECT ordinal_position FROM information_schema.columns WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND column_name = $2) AND objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = $3 AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = CURRENT_SCHEMA()))
-- next
-- gorm AutoMigrate Author
-- parameters: $1 = 'authors', $2 = 'name', $3 = 'authors'
SELECT description FROM pg_catalog.pg_description WHERE objsubid = (SELECT ordinal_position FROM information_schema.columns WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND column_name = $2) AND objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = $3 AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = CURRENT_SCHEMA()))
-- next
-- gorm AutoMigrate Author
-- parameters: $1 = 'authors', $2 = 'email', $3 = 'authors'
SELECT description FROM pg_catalog.pg_description WHERE objsubid = (SELECT ordinal_position FROM information_schema.columns WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND column_name = $2) AND objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = $3 AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = CURRENT_SCHEMA()))
-- next
-- gorm AutoMigrate Author
-- parameters: $1 = 'authors', $2 = 'active', $3 = 'authors'
SELECT description FROM pg_catalog.pg_description WHERE objsubid = (SELECT ordinal_position FROM information_schema.columns WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND column_name = $2) AND objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = $3 AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = CURRENT_SCHEMA()))
-- next
-- gorm AutoMigrate Author
-- parameters: $1 = 'authors', $2 = 'created_at', $3 = 'authors'
SELECT description FROM pg_catalog.pg_description WHERE objsubid = (SELECT ordinal_position FROM information_schema.columns WHERE table_schema = CURRENT_SCHEMA() AND table_name = $1 AND column_name = $2) AND objoid = (SELECT oid FROM pg_catalog.pg_class WHERE relname = $3 AND relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = CURRENT_SCHEMA()))
