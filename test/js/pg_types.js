// node-postgres (pg), unmodified: parameters in the text forms JavaScript
// ORMs send (Sequelize writes timestamps as "2026-12-01 23:10:24.468 +00:00",
// node-postgres a Date as ISO 8601 and an array as '{…}'), and values read
// back with node-postgres's own type parsers. Usage: node pg_types.js URL
// Prints one JSON object; test/gateway_types_test.go compares it with the
// same script's output on PostgreSQL itself.
'use strict';

const { Client } = require('pg');

async function main() {
  const [url] = process.argv.slice(2);
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE TABLE js_types (id int4 PRIMARY KEY, at timestamptz, day date, amount numeric(8,2),
    tags text[], nums int4[], flag bool, doc jsonb, uid uuid, span interval, stamps timestamptz[])`);
  const insert = `INSERT INTO js_types (id, at, day, amount, tags, nums, flag, doc, uid, span, stamps)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
  await client.query(insert, [1, '2026-12-01 23:10:24.468 +00:00', '12/01/2026', '12.5', ['a b', 'c,d', null, 'e"f'],
    [1, 2, null], 'yes', { b: [1, 2], a: null }, '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}', 'P1DT2H',
    ['2026-12-01T23:10:24Z', 'infinity']]);
  await client.query(insert, [2, new Date(Date.UTC(2026, 11, 1, 23, 10, 24, 468)), new Date(Date.UTC(2026, 0, 2)), 1.5e3,
    [], [], false, JSON.stringify([1, 'x']), 'a0eebc999c0b4ef8bb6d6bb9bd380a11', '-1 day', null]);
  await client.query(`UPDATE js_types SET at = $1 WHERE id = $2`, ['2026-12-02 01:00:00.5 +02:00', 2]);
  const res = await client.query('SELECT * FROM js_types ORDER BY id');
  const fields = res.fields.map((f) => [f.name, f.dataTypeID, f.dataTypeSize, f.dataTypeModifier, f.format]);
  const rows = res.rows.map((r) => {
    const out = {};
    for (const [k, v] of Object.entries(r)) {
      if (v instanceof Date) out[k] = { date: v.toISOString() };
      else if (Array.isArray(v)) out[k] = v.map((e) => (e instanceof Date ? { date: e.toISOString() } : e));
      else out[k] = v;
    }
    return out;
  });
  await client.end();
  console.log(JSON.stringify({ fields, rows }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
