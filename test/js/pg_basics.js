// node-postgres (pg), unmodified, against a relchain node's PostgreSQL
// listener. Usage: node pg_basics.js URL BACKEND
// Prints one JSON object on stdout; test/gateway_nodejs_test.go checks it.
'use strict';

const { Client, Pool } = require('pg');

// tableDDL is one table with a column of each common type, in each
// backend's spelling (a SQLite network runs SQLite's dialect).
const tableDDL = {
  sqlite: 'CREATE TABLE js_typed (id INTEGER PRIMARY KEY, i INTEGER, f REAL, t TEXT, b BOOLEAN, d DATE)',
  postgres: 'CREATE TABLE js_typed (id BIGINT PRIMARY KEY, i INTEGER, f DOUBLE PRECISION, t TEXT, b BOOLEAN, d DATE)',
};

async function main() {
  const [url, backend] = process.argv.slice(2);
  if (!url || !tableDDL[backend]) {
    throw new Error('usage: node pg_basics.js URL sqlite|postgres');
  }
  const out = {};
  const client = new Client({ connectionString: url });
  await client.connect(); // SCRAM-SHA-256: the listener asks for nothing else
  out.simple = (await client.query('SELECT 1 AS one')).rows;
  await client.query(tableDDL[backend]);
  const insert = 'INSERT INTO js_typed (id, i, f, t, b, d) VALUES ($1, $2, $3, $4, $5, $6)';
  const ins = await client.query(insert, [1, 42, 2.5, "héllo 'q'", true, '2026-11-25']);
  out.insertTag = `${ins.command} ${ins.rowCount}`;
  await client.query(insert, [2, null, null, null, null, null]);
  // A JavaScript Date goes out as ISO 8601 text ("…T00:00:00.000+00:00").
  await client.query(insert, [3, -7, -0.125, '', false, new Date(Date.UTC(2026, 0, 2))]);
  const back = await client.query('SELECT id, i, f, t, b, d FROM js_typed WHERE id = $1', [1]);
  out.typed = back.rows.map(plain);
  out.fromDate = (await client.query('SELECT i, f, t, b, d FROM js_typed WHERE id = $1', [3])).rows.map(plain);
  out.nulls = (await client.query('SELECT i, f, t, b, d FROM js_typed WHERE id = $1', [2])).rows.map(plain);
  out.prepared = await preparedReuse(client);
  out.transaction = await transaction(client);
  out.errors = await errors(client);
  await client.end();
  out.pool = await pool(url);
  process.stdout.write(JSON.stringify(out) + '\n');
}

// plain turns a row's values into JSON-stable ones: dates become
// YYYY-MM-DD (node-postgres parses DATE into a local Date).
function plain(row) {
  const o = {};
  for (const [k, v] of Object.entries(row)) {
    o[k] = v instanceof Date ? isoDay(v) : v;
  }
  return o;
}

function isoDay(d) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

// preparedReuse runs one named statement many times: node-postgres
// parses it once per connection and then only binds and executes.
async function preparedReuse(client) {
  const seen = [];
  for (let k = 0; k < 10; k++) {
    const r = await client.query({ name: 'js_by_id', text: 'SELECT t FROM js_typed WHERE id = $1', values: [1 + (k % 2)] });
    seen.push(r.rows.length === 1 ? r.rows[0].t : 'missing');
  }
  return seen;
}

// transaction moves 10 from row 1 to row 2 between BEGIN and COMMIT,
// reading its own write on the way; then a rolled-back one changes nothing.
async function transaction(client) {
  const res = {};
  await client.query('BEGIN');
  const before = (await client.query('SELECT i FROM js_typed WHERE id = 1')).rows[0].i;
  await client.query('UPDATE js_typed SET i = $1 WHERE id = 1', [before - 10]);
  await client.query('UPDATE js_typed SET i = $1 WHERE id = 2', [10]);
  await client.query('UPDATE js_typed SET i = i + 10 WHERE id = 3');
  res.inside = (await client.query('SELECT i FROM js_typed WHERE id = 1')).rows[0].i;
  res.commit = (await client.query('COMMIT')).command;
  res.after = (await client.query('SELECT id, i FROM js_typed ORDER BY id')).rows.map(plain);
  await client.query('BEGIN');
  await client.query('DELETE FROM js_typed');
  res.rollback = (await client.query('ROLLBACK')).command;
  res.countAfterRollback = Number((await client.query('SELECT COUNT(*) AS n FROM js_typed')).rows[0].n);
  return res;
}

// errors: a duplicate key and a syntax error come back with their
// SQLSTATE, and the connection goes on.
async function errors(client) {
  const res = {};
  res.duplicate = await sqlstate(client.query('INSERT INTO js_typed (id) VALUES ($1)', [1]));
  res.syntax = await sqlstate(client.query('SELEC 1')); // simple query
  res.syntaxExtended = await sqlstate(client.query('SELEC $1', [1])); // Parse fails
  res.missingTable = await sqlstate(client.query('SELECT * FROM js_nope WHERE id = $1', [1]));
  res.after = (await client.query('SELECT 2 AS two')).rows[0].two;
  return res;
}

async function sqlstate(promise) {
  try {
    await promise;
    return { code: 'none' };
  } catch (e) {
    return { code: e.code, message: e.message };
  }
}

// pool runs more queries than it has connections, concurrently.
async function pool(url) {
  const p = new Pool({ connectionString: url, max: 3 });
  const ids = [];
  for (let k = 0; k < 8; k++) ids.push(1 + (k % 2));
  const rows = await Promise.all(ids.map((id) => p.query('SELECT id FROM js_typed WHERE id = $1', [id])));
  const res = { results: rows.map((r) => r.rows[0].id), total: p.totalCount };
  await p.end();
  return res;
}

main().catch((e) => {
  process.stderr.write(`pg_basics: ${e.stack || e}\n${e.code ? 'SQLSTATE ' + e.code + '\n' : ''}`);
  process.exit(1);
});
