// Shared by the compatibility suite's Node.js clients (test/compat_test.go):
// step() runs one step and prints {"step", "ok", "error"} as a JSON line; a
// failed step does not stop the script. check(sql) names a query whose rows
// every validator must agree on once the script is done.
'use strict';

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function describe(e) {
  let msg = `${e && e.name ? e.name : 'Error'}: ${String(e && e.message ? e.message : e).split('\n')[0]}`;
  const code = sqlstate(e);
  if (code && !msg.includes(code)) msg += ` (SQLSTATE ${code})`;
  return msg.slice(0, 400);
}

function sqlstate(e) {
  for (let x = e, i = 0; x && i < 5; x = x.parent || x.original || x.cause, i++) {
    if (typeof x.code === 'string' && /^[0-9A-Z]{5}$/.test(x.code)) return x.code;
  }
  return null;
}

// stepTimeout bounds one step: a client that waits forever fails its step
// and the script goes on.
const stepTimeout = 60 * 1000;

async function step(name, fn) {
  let timer;
  try {
    const out = await Promise.race([fn(), new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${stepTimeout / 1000} s`)), stepTimeout);
    })]);
    emit({ step: name, ok: true });
    return out;
  } catch (e) {
    emit({ step: name, ok: false, error: describe(e) });
    process.stderr.write(`${name}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join('\n') : e}\n`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function check(sql) {
  emit({ check: sql });
}

function expect(cond, what) {
  if (!cond) throw new Error(typeof what === 'string' ? what : JSON.stringify(what));
}

// conflict runs the same read-modify-write transaction in two sessions,
// interleaved (both read, both write, both commit): one gets 40001 and
// retries alone. tx(session, fn) runs fn in a transaction of session;
// read(trx) and write(trx, n) read and set the counter.
async function conflict(sessions, tx, read, write) {
  const codes = [];
  const reads = [];
  const started = [];
  const go = [];
  for (const s of sessions) {
    let release;
    const gate = new Promise((r) => { release = r; });
    let readDone;
    const didRead = new Promise((r) => { readDone = r; });
    started.push(didRead);
    go.push(release);
    reads.push(tx(s, async (trx) => {
      const n = await read(trx);
      readDone();
      await gate; // both have read before either writes
      await write(trx, n + 1);
    }).then(() => null, (e) => e).finally(readDone));
  }
  await Promise.all(started);
  go.forEach((r) => r());
  const results = await Promise.all(reads);
  for (let i = 0; i < results.length; i++) {
    if (!results[i]) continue;
    codes.push(sqlstate(results[i]));
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await tx(sessions[i], async (trx) => { await write(trx, (await read(trx)) + 1); });
        break;
      } catch (e) {
        codes.push(sqlstate(e));
      }
    }
  }
  return codes;
}

// closeWithin waits for a pool's close for at most 5 s.
function closeWithin(p) {
  let timer;
  return Promise.race([p.catch(() => {}), new Promise((r) => { timer = setTimeout(r, 5000); })]).finally(() => clearTimeout(timer));
}

module.exports = { step, check, expect, sqlstate, conflict, closeWithin };
