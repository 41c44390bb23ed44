// Runs one Node.js client's schema-reading operations against the corpus
// schema so that the server log records the catalog queries each sends
// (scripts/capture-catalog-queries.sh drives it, with NODE_PATH at test/js's
// locked packages). Before each operation the session's application_name is
// "cap:<client>:<operation>"; every client holds one connection.
// argv: client (pg, knex, sequelize), URL.
'use strict';

const [client, url] = process.argv.slice(2);
const tag = (op) => `cap:${client}:${op}`;
const withApp = (u, op) => u + (u.includes('?') ? '&' : '?') + 'application_name=' + encodeURIComponent(tag(op));

async function pgOps() {
  const { Client } = require('pg');
  const c = new Client({ connectionString: url, application_name: tag('connect') });
  await c.connect();
  await c.query(`SET application_name = '${tag('query with parameters')}'`);
  await c.query('SELECT id, title, price FROM books WHERE id = $1', [1]);
  await c.end();
}

async function knexOps() {
  const knex = require('knex')({ client: 'pg', connection: { connectionString: url, application_name: tag('connect') }, pool: { min: 1, max: 1 } });
  const op = async (name, fn) => { await knex.raw(`SET application_name = '${tag(name)}'`); await fn(); };
  await op('hasTable authors', () => knex.schema.hasTable('authors'));
  await op('hasTable missing', () => knex.schema.hasTable('missing'));
  await op('hasColumn books title', () => knex.schema.hasColumn('books', 'title'));
  await op('columnInfo books', () => knex('books').columnInfo());
  await op('columnInfo authors email', () => knex('authors').columnInfo('email'));
  await knex.destroy();
}

async function sequelizeOps() {
  const { Sequelize, DataTypes } = require('sequelize');
  const s = new Sequelize(withApp(url, 'connect'), { logging: false, pool: { max: 1 } });
  const op = async (name, fn) => { await s.query(`SET application_name = '${tag(name)}'`); await fn(); };
  const qi = s.getQueryInterface();
  await op('authenticate', () => s.authenticate());
  await op('showAllTables', () => qi.showAllTables());
  await op('describeTable books', () => qi.describeTable('books'));
  await op('getForeignKeyReferencesForTable books', () => qi.getForeignKeyReferencesForTable('books'));
  await op('showIndex books', () => qi.showIndex('books'));
  const Author = s.define('Author', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
    name: { type: DataTypes.STRING(100), allowNull: false },
    email: { type: DataTypes.STRING(255), allowNull: false, unique: 'authors_email_key' },
    active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  }, { tableName: 'authors', timestamps: false });
  await op('sync', () => s.sync());
  await op('sync({ alter: true })', () => Author.sync({ alter: true }));
  await s.close();
}

({ pg: pgOps, knex: knexOps, sequelize: sequelizeOps })[client]().catch((e) => { console.error(e); process.exit(1); });
