-- Catalog queries of knex, captured by scripts/capture-catalog-queries.sh (README.md).
-- knex connect
select version()
-- next
-- knex hasTable authors
-- parameters: $1 = 'authors'
select * from information_schema.tables where table_name = $1 and table_schema = current_schema()
-- next
-- knex hasTable missing
-- parameters: $1 = 'missing'
select * from information_schema.tables where table_name = $1 and table_schema = current_schema()
-- next
-- knex hasColumn books title
-- parameters: $1 = 'books', $2 = 'title'
select * from information_schema.columns where table_name = $1 and column_name = $2 and table_schema = current_schema()
-- next
-- knex columnInfo books
-- parameters: $1 = 'books'
select * from information_schema.columns where table_name = $1 and table_catalog = current_database() and table_schema = current_schema()
-- next
-- knex columnInfo authors email
-- parameters: $1 = 'authors'
select * from information_schema.columns where table_name = $1 and table_catalog = current_database() and table_schema = current_schema()
