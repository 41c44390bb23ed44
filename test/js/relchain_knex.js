// knex for a relchain node's PostgreSQL listener: knex's own PostgreSQL
// client ('pg') with the two changes a relchain network needs for knex's
// migrator. Everything else (query builder, schema builder, transactions,
// migrations) is knex's own.
//
// 1. "Does this table exist?" Knex asks information_schema with
//    current_schema(). A SQLite-backed network cannot answer PostgreSQL's
//    catalogs, and on a PostgreSQL-backed one current_schema() is refused
//    (a node-local value) and information_schema is not readable yet. So:
//    - SQLite: outside a transaction, sqlite_master answers; inside one
//      (rehearsed like a block, which may not read SQLite's schema table)
//      the check reads the table itself: it exists if the read succeeds.
//    - PostgreSQL: knex's migration tables are made by
//      prepareMigrationTables and checked by reading them; any other table
//      by information_schema with the schema named ('public').
//    Knex's migrator asks inside its transaction only about its own tables,
//    which it made sure of just before, so "missing" (an error there, not
//    false) does not arise.
// 2. Knex makes its migration tables with serial keys, which a PostgreSQL
//    network's gate refuses (sequences are not transactional); on SQLite
//    "serial" is only a type name and knex's own DDL works.
'use strict';

const Knex = require('knex');
const ClientPG = require('knex/lib/dialects/postgres');
const SchemaCompilerPG = require('knex/lib/dialects/postgres/schema/pg-compiler');

const migrationTables = ['knex_migrations', 'knex_migrations_lock'];

// readProbe is a table check that reads the table: true, or an error.
function readProbe(compiler, tableName) {
  compiler.pushQuery({
    sql: `select 1 from ${compiler.formatter.wrap(tableName)} where 1 = 0`,
    output: () => true,
  });
}

class SQLiteSchemaCompiler extends SchemaCompilerPG {
  hasTable(tableName) {
    if (this.client.transacting) {
      readProbe(this, tableName);
      return;
    }
    this.pushQuery({
      sql: "select name from sqlite_master where type = 'table' and name = ?",
      bindings: [tableName],
      output: (resp) => resp.rows.length > 0,
    });
  }
}

class PostgresSchemaCompiler extends SchemaCompilerPG {
  hasTable(tableName) {
    if (migrationTables.includes(tableName)) {
      readProbe(this, tableName);
      return;
    }
    this.pushQuery({
      sql: 'select * from information_schema.tables where table_name = ? and table_schema = ?',
      bindings: [tableName, this.schema || 'public'],
      output: (resp) => resp.rows.length > 0,
    });
  }
}

class ClientOnSQLite extends ClientPG {
  schemaCompiler(builder) {
    return new SQLiteSchemaCompiler(this, builder);
  }
}

class ClientOnPostgres extends ClientPG {
  schemaCompiler(builder) {
    return new PostgresSchemaCompiler(this, builder);
  }
}

// makeKnex connects knex to url on a network whose nodes run backend
// ('sqlite' or 'postgres'); extra is more knex configuration.
function makeKnex(url, backend, extra = {}) {
  const client = { sqlite: ClientOnSQLite, postgres: ClientOnPostgres }[backend];
  if (!client) {
    throw new Error(`unknown relchain backend ${JSON.stringify(backend)}: want sqlite or postgres`);
  }
  return Knex({ client, connection: url, pool: { min: 0, max: 4 }, ...extra });
}

// prepareMigrationTables makes knex's migration tables where knex's own
// DDL cannot (PostgreSQL networks): the same columns, keys without a
// sequence. Migration rows are kept by name; their id stays NULL (knex
// only orders by it). The lock table's one row gets index 1 by default.
async function prepareMigrationTables(knex, backend) {
  if (backend !== 'postgres') {
    return;
  }
  await knex.raw(`create table if not exists "knex_migrations" ("id" bigint,
    "name" varchar(255) not null primary key, "batch" integer, "migration_time" timestamptz)`);
  await knex.raw(`create table if not exists "knex_migrations_lock" (
    "index" integer not null primary key default 1, "is_locked" integer)`);
}

module.exports = { makeKnex, prepareMigrationTables };
