// Stock knex 3 (client 'pg', no custom client class) as its users run it:
// migrate.latest with increments() ids, hasTable, columnInfo, CRUD with
// returning(), a transaction, a 40001 conflict retried. argv: URL.
'use strict';

const path = require('path');
const knexFactory = require('knex');
const { step, check, expect, conflict, closeWithin } = require('./compat');

async function main() {
  const [url] = process.argv.slice(2);
  const config = { client: 'pg', connection: url, pool: { min: 0, max: 2 },
    migrations: { directory: path.join(__dirname, 'migrations') } };
  const knex = knexFactory(config);
  await step('migrate.latest (increments() ids)', async () => {
    const [batch, names] = await knex.migrate.latest();
    expect(batch === 1 && names.length === 2, [batch, names]);
  });
  await step('migrate.latest again: nothing to run', async () => {
    const [, names] = await knex.migrate.latest();
    expect(names.length === 0, names);
  });
  await step('schema.hasTable', async () => {
    expect(await knex.schema.hasTable('knex_customer'), 'hasTable(knex_customer) is false');
    expect(!(await knex.schema.hasTable('knex_nothing')), 'hasTable(knex_nothing) is true');
  });
  await step('columnInfo', async () => {
    const info = await knex('knex_customer').columnInfo();
    expect(info.id && info.id.type === 'integer' && info.name.type === 'character varying' &&
      info.name.maxLength === 80 && info.joined.type === 'timestamp with time zone' && info.note, info);
  });
  await step('insert … returning (generated ids)', async () => {
    const [ann] = await knex('knex_customer').insert({ name: 'ann', joined: new Date('2026-12-01T23:09:33.293Z') }).returning('*');
    expect(Number.isInteger(ann.id) && ann.joined.toISOString() === '2026-12-01T23:09:33.293Z', ann);
    await knex('knex_order').insert([{ customer_id: ann.id, total: '12.50' }, { customer_id: ann.id, total: '3.00' }]);
  });
  await step('where().first(), update', async () => {
    const ann = await knex('knex_customer').where({ name: 'ann' }).first();
    expect(ann, 'first() found nothing');
    const n = await knex('knex_order').where({ customer_id: ann.id, total: '3.00' }).update({ total: '4.00' });
    expect(n === 1, `update changed ${n} rows`);
    const rows = await knex('knex_order').orderBy('id').select('total');
    expect(rows.map((r) => r.total).join() === '12.50,4.00', rows);
  });
  await step('knex.transaction (commit and rollback)', async () => {
    await knex.transaction(async (trx) => {
      await trx('knex_customer').insert({ name: 'bo' });
    });
    await knex.transaction(async (trx) => {
      await trx('knex_customer').insert({ name: 'gone' });
      throw new Error('roll back');
    }).catch((e) => { if (e.message !== 'roll back') throw e; });
    const names = (await knex('knex_customer').orderBy('name').pluck('name')).join();
    expect(names === 'ann,bo', names);
  });
  await step('40001 conflict, retried', async () => {
    await knex.schema.createTable('knex_counter', (t) => { t.integer('id').primary(); t.integer('n').notNullable(); });
    await knex('knex_counter').insert({ id: 1, n: 0 });
    const sessions = [knexFactory(config), knexFactory(config)];
    try {
      const codes = await conflict(sessions, (k, fn) => k.transaction(fn),
        async (trx) => (await trx('knex_counter').where({ id: 1 }).first()).n,
        (trx, n) => trx('knex_counter').where({ id: 1 }).update({ n }));
      const { n } = await knex('knex_counter').where({ id: 1 }).first();
      expect(codes[0] === '40001', `SQLSTATEs ${codes}, want one 40001`);
      expect(n === 2, `n = ${n} after the retry, want 2`);
    } finally {
      await Promise.all(sessions.map((k) => k.destroy()));
    }
  });
  check('SELECT name, batch FROM knex_migrations ORDER BY name');
  check('SELECT id, name, joined FROM knex_customer ORDER BY id');
  check('SELECT id, customer_id, total FROM knex_order ORDER BY id');
  check('SELECT id, n FROM knex_counter ORDER BY id');
  await closeWithin(knex.destroy());
}

// Exit once every step is reported: a client whose pool never closes
// (after a failed connection setup) must not hold the suite.
main().then(() => process.exit(0), (e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
