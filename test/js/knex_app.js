// knex, unmodified, against relchain nodes' PostgreSQL listeners: its
// migrations, CRUD through the query builder, and a read-modify-write
// transaction that conflicts with another and is retried.
// Usage: node knex_app.js URL_A URL_B BACKEND
// (URL_A and URL_B may be different nodes and users.) Prints one JSON
// object on stdout; test/gateway_nodejs_test.go checks it.
'use strict';

const path = require('path');
const { makeKnex, prepareMigrationTables } = require('./relchain_knex');

const migrations = { directory: path.join(__dirname, 'migrations') };

async function main() {
  const [urlA, urlB, backend] = process.argv.slice(2);
  if (!urlA || !urlB || !['sqlite', 'postgres'].includes(backend)) {
    throw new Error('usage: node knex_app.js URL_A URL_B sqlite|postgres');
  }
  const a = makeKnex(urlA, backend, { migrations });
  const b = makeKnex(urlB, backend, { migrations });
  try {
    const out = {};
    await prepareMigrationTables(a, backend);
    out.migrations = await migrateUpDownAndLatest(a);
    out.crud = await crud(a);
    out.conflict = await conflictingIncrements(a, b);
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    await Promise.all([a.destroy(), b.destroy()]);
  }
}

// migrateUpDownAndLatest runs the migrations one batch at a time, takes
// the last one back and runs it again with latest: knex's bookkeeping
// (knex_migrations, its lock) goes through relchain transactions.
async function migrateUpDownAndLatest(knex) {
  const res = {};
  res.up1 = await knex.migrate.up();
  res.up2 = await knex.migrate.up();
  res.down = await knex.migrate.down();
  res.latest = await knex.migrate.latest();
  res.latestAgain = await knex.migrate.latest(); // nothing left to run
  const recorded = await knex('knex_migrations').orderBy('name').select('name', 'batch');
  res.recorded = recorded.map((r) => `${r.name}@${r.batch}`);
  return res;
}

// crud inserts, reads, updates and deletes accounts through the query
// builder.
async function crud(knex) {
  const res = {};
  const inserted = await knex('accounts').insert([
    { id: 1, owner: 'ann', balance: 100, rate: 1.5, active: true, opened: '2026-01-02', note: "it's", tier: 'gold' },
    { id: 2, owner: 'bo', balance: 50, rate: null, active: false, opened: null, note: null, tier: null },
    { id: 3, owner: 'cy', balance: 0, rate: 0.25, active: true, opened: '2026-03-04', note: '', tier: 'tin' },
  ]).returning(['id', 'owner']);
  // Every row names every column: for a key a row lacks, knex writes
  // DEFAULT in VALUES, which SQLite does not accept.
  await knex('accounts').insert({ id: 4, owner: 'di' }); // one row: defaults apply
  res.inserted = inserted.map((r) => ({ id: Number(r.id), owner: r.owner }));
  // .first() is LIMIT 1: the gate wants an ORDER BY on a unique key to
  // say which row that is (always on PostgreSQL networks; on SQLite ones
  // in transactions).
  res.byOwner = await knex('accounts').where({ owner: 'ann' }).orderBy('id').first('id', 'balance', 'rate', 'note');
  res.byOwner.id = Number(res.byOwner.id);
  res.rich = await knex('accounts').where('balance', '>=', 50).orderBy('id').pluck('owner');
  res.updated = await knex('accounts').where({ id: 2 }).update({ balance: knex.raw('?? + ?', ['balance', 25]), active: true });
  res.deleted = await knex('accounts').whereIn('id', [3, 4]).del();
  const rows = await knex('accounts').orderBy('id').select('id', 'owner', 'balance', 'active');
  res.rows = rows.map((r) => ({ id: Number(r.id), owner: r.owner, balance: Number(r.balance), active: Boolean(r.active) }));
  res.count = Number((await knex('accounts').count({ n: '*' }))[0].n);
  return res;
}

// conflictingIncrements: a and b each add 1 to account 1's balance in a
// transaction (read, then write what they read plus one). Both read and
// write before either commits, so the second COMMIT finds that the first
// changed what it read: SQLSTATE 40001, retried until it goes through.
// a and b may be different nodes: a node answers reads from its own
// committed state, and one that has not yet applied the other's last
// commit reads the balance before it. So the final read waits, by
// relchain.min_height, for the height of both sessions' last commits
// (SHOW relchain.last_commit_height, on the connection that committed).
async function conflictingIncrements(a, b) {
  const before = Number((await a('accounts').where({ id: 1 }).orderBy('id').first('balance')).balance);
  const barrier = makeBarrier(2);
  const [ra, rb] = await Promise.all([
    incrementWithRetry(a, barrier),
    incrementWithRetry(b, barrier),
  ]);
  const after = await onConnection(b, async (conn) => {
    await b.raw('SET relchain.min_height = ' + Math.max(ra.height, rb.height)).connection(conn);
    return Number((await b('accounts').where({ id: 1 }).orderBy('id').first('balance').connection(conn)).balance);
  });
  return { before, after, attempts: [ra.attempts, rb.attempts], heights: [ra.height, rb.height], errors: [...ra.errors, ...rb.errors] };
}

async function incrementWithRetry(knex, barrier) {
  return onConnection(knex, async (conn) => {
    const errors = [];
    for (let attempt = 1; attempt <= 10; attempt++) {
      try {
        await knex.transaction(async (trx) => {
          const row = await trx('accounts').where({ id: 1 }).orderBy('id').first('balance');
          await trx('accounts').where({ id: 1 }).update({ balance: Number(row.balance) + 1 });
          if (attempt === 1) {
            await barrier(); // the first attempts overlap: one of them must conflict
          }
        }, { connection: conn });
        const shown = await knex.raw('SHOW relchain.last_commit_height').connection(conn);
        return { attempts: attempt, errors, height: Number(Object.values(shown.rows[0])[0]) };
      } catch (e) {
        if (e.code !== '40001') {
          throw e;
        }
        errors.push({ code: e.code, message: e.message });
      }
    }
    throw new Error(`still conflicting after 10 attempts: ${JSON.stringify(errors)}`);
  });
}

// onConnection runs fn with one connection of knex's pool, so that a
// session's settings and its last commit stay with the statements that
// need them.
async function onConnection(knex, fn) {
  const conn = await knex.client.acquireConnection();
  try {
    return await fn(conn);
  } finally {
    await knex.client.releaseConnection(conn);
  }
}

// makeBarrier returns a function that resolves once n callers wait on it.
function makeBarrier(n) {
  let waiting = 0;
  let release;
  const all = new Promise((resolve) => { release = resolve; });
  return () => {
    waiting++;
    if (waiting === n) release();
    return all;
  };
}

main().catch((e) => {
  process.stderr.write(`knex_app: ${e.stack || e}\n${e.code ? 'SQLSTATE ' + e.code + '\n' : ''}`);
  process.exit(1);
});
