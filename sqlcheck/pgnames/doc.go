// Package pgnames names relations as PostgreSQL does, for the translations
// of PostgreSQL's SQL to other engines (backend/sqlite/pgdialect,
// backend/mysql/pgdialect).
//
// PostgreSQL's tables, sequences and indexes share one namespace per
// schema, and a CREATE TABLE adds to it an index for each PRIMARY KEY and
// UNIQUE constraint, named by the constraint or by default (t_pkey,
// t_a_b_key). SQLite keeps index names per database but gives a
// constraint's index its own name (sqlite_autoindex_t_1); MariaDB keeps
// them per table. So `CREATE INDEX t_pkey ON u (n)` fails on PostgreSQL
// (42P07) and succeeded on the others: on a network over several engines
// one statement had two outcomes. The translations now ask this package
// which relations a CREATE TABLE makes (KeyIndexes) and fail a name that
// is taken as PostgreSQL does. Where PostgreSQL would avoid a taken name
// by choosing another (t_pkey1: ChooseRelationName), the translations
// refuse the statement instead (Clash), so that every default name in a
// schema is the one ObjectName gives and the namespace can be computed
// from the tables alone.
package pgnames
