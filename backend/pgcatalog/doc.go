// Package pgcatalog answers PostgreSQL's catalog queries — pg_catalog and
// information_schema, and the functions drivers call on them (format_type,
// pg_get_expr, pg_get_indexdef, pg_table_is_visible, regclass casts …) —
// on a network whose storage is not PostgreSQL: a postgres-dialect network
// on SQLite, and PostgreSQL clients of a MySQL network (issue 35, item 4).
// psql's \d family, pgcli, JDBC's DatabaseMetaData, SQLAlchemy and
// Alembic, Django's introspection, knex, Sequelize and GORM read the
// schema through it as on PostgreSQL.
//
// How it works. A backend describes its schema as a Schema (tables,
// columns with their PostgreSQL types and defaults, keys, indexes, foreign
// keys, sequences), never listing relchain's own tables. New builds an
// Engine from it: a private in-memory SQLite database with two attached
// schemas, pg_catalog and information_schema, whose relations (Relations)
// are filled from the Schema and from PostgreSQL's built-in rows (types,
// namespaces, access methods), and whose functions (Functions) are Go
// functions registered on that connection. A catalog query — one SELECT
// that reads nothing but those relations and functions (Wants) — is
// parsed with PostgreSQL's parser, rewritten into SQLite's SQL over that
// database (PostgreSQL's operators, casts and arrays mapped onto SQLite's
// and the functions'), run there, and its rows returned with the
// PostgreSQL types PostgreSQL would give them.
//
// Catalog queries are node-local reads of the schema: they never enter a
// block (the gates refuse catalog reads in transactions) and no result of
// them is consensus. The Engine holds no user data; a query that names a
// user table is not a catalog query and is not answered here.
//
// Representation in the catalog database (the contract between the
// relations, the functions and the rewriting):
//   - bool is the integer 0 or 1; oid, regclass, regtype, regproc,
//     regnamespace and the integer types are integers (a reg* value is the
//     object's oid, shown by name only when a result column has that type).
//   - name, text, varchar, "char" and pg_node_tree are text (pg_node_tree
//     holds the expression's text: pg_get_expr returns it).
//   - Arrays (text[], oid[], name[], int2vector, oidvector, aclitem[] …)
//     are JSON arrays in text ('[1,2]'); NULL is SQL NULL.
//   - Oids are deterministic: PostgreSQL's own for built-in objects (types,
//     namespaces pg_catalog 11 and public 2200), and for the Schema's
//     objects numbers from 16384 up in the Schema's order.
//
// What a network reports where PostgreSQL's answer depends on the server:
// the database's collation and ctype are "C" (the catalog database and
// SQLite compare text byte by byte, as the C locale does); public is owned
// by pg_database_owner (PostgreSQL 15); a table with a foreign key, or
// referenced by one, has relhastriggers true (PostgreSQL's internal
// referential-integrity triggers) while pg_trigger lists none of them (as
// psql and pgcli show none); pretty-printing (pg_get_expr,
// pg_get_constraintdef with pretty true) drops the outer parentheses and
// those around cast constants, not inner ones PostgreSQL's precedence
// rules make redundant. Objects named relchain_… or sqlite_… are dropped
// from the Schema by New, so no catalog query shows them.
package pgcatalog
