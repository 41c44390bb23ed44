// node-postgres (pg 8) as applications use it: a pool, parameters, types,
// a transaction, a 40001 conflict retried. argv: URL, table prefix.
'use strict';

const { Client, Pool } = require('pg');
const { step, check, expect, conflict, closeWithin } = require('./compat');

async function main() {
  const [url, p] = process.argv.slice(2);
  const pool = new Pool({ connectionString: url, max: 2 });
  await step('connect (pool)', async () => {
    const r = await pool.query('SELECT 1 AS one');
    expect(r.rows[0].one === 1, r.rows);
  });
  await step('create table, insert with parameters', async () => {
    await pool.query(`CREATE TABLE ${p}_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(8,2), at TIMESTAMPTZ, tags TEXT[])`);
    await pool.query(`INSERT INTO ${p}_item (id, name, price, at, tags) VALUES ($1, $2, $3, $4, $5)`,
      [1, 'pen', '1.50', new Date('2026-12-01T23:09:33.293Z'), ['a', 'b']]);
    await pool.query(`INSERT INTO ${p}_item (id, name) VALUES ($1, $2), ($3, $4)`, [2, 'ink', 3, 'pad']);
  });
  await step('read numeric, timestamptz, text[] back', async () => {
    const r = await pool.query(`SELECT id, name, price, at, tags FROM ${p}_item WHERE id = $1`, [1]);
    const row = r.rows[0];
    expect(row.price === '1.50' && row.at instanceof Date && row.at.toISOString() === '2026-12-01T23:09:33.293Z' &&
      JSON.stringify(row.tags) === '["a","b"]', row);
  });
  await step('named prepared statement', async () => {
    for (let i = 1; i <= 3; i++) {
      const r = await pool.query({ name: 'by-id', text: `SELECT name FROM ${p}_item WHERE id = $1`, values: [i] });
      expect(r.rows.length === 1, r.rows);
    }
  });
  await step('a transaction (BEGIN, UPDATE, COMMIT; BEGIN, DELETE, ROLLBACK)', async () => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(`UPDATE ${p}_item SET name = 'pen2' WHERE id = 1`);
      await c.query('COMMIT');
      await c.query('BEGIN');
      await c.query(`DELETE FROM ${p}_item WHERE id = 3`);
      await c.query('ROLLBACK');
      const r = await c.query(`SELECT count(*)::int AS n FROM ${p}_item`);
      expect(r.rows[0].n === 3, r.rows);
    } finally {
      c.release();
    }
  });
  check(`SELECT id, name, price, tags FROM ${p}_item ORDER BY id`);
  await step('40001 conflict, retried', async () => {
    await pool.query(`CREATE TABLE ${p}_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`);
    await pool.query(`INSERT INTO ${p}_counter VALUES (1, 0)`);
    const sessions = [new Client({ connectionString: url }), new Client({ connectionString: url })];
    await Promise.all(sessions.map((c) => c.connect()));
    try {
      const codes = await conflict(sessions, async (c, fn) => {
        await c.query('BEGIN');
        try {
          await fn(c);
          await c.query('COMMIT');
        } catch (e) {
          await c.query('ROLLBACK').catch(() => {});
          throw e;
        }
      }, async (c) => (await c.query(`SELECT n FROM ${p}_counter WHERE id = 1`)).rows[0].n,
      (c, n) => c.query(`UPDATE ${p}_counter SET n = $1 WHERE id = 1`, [n]));
      const r = await pool.query(`SELECT n FROM ${p}_counter WHERE id = 1`);
      expect(codes[0] === '40001', `SQLSTATEs ${codes}, want one 40001`);
      expect(r.rows[0].n === 2, `n = ${r.rows[0].n} after the retry, want 2`);
    } finally {
      await Promise.all(sessions.map((c) => c.end()));
    }
  });
  check(`SELECT id, n FROM ${p}_counter ORDER BY id`);
  await closeWithin(pool.end());
}

// Exit once every step is reported: a client whose pool never closes
// (after a failed connection setup) must not hold the suite.
main().then(() => process.exit(0), (e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
