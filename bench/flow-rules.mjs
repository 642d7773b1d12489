#!/usr/bin/env node
/**
 * What a TXM-1 (pass-through) and a TXM-3 (unusual amount) instance cost the live engine per
 * transaction, and that the cost does not grow with a user's history: the same number of
 * transactions spread over many users (short histories) and over few (long histories, far more
 * entries in every window than the rules' `maxEntries` / `historyTransactions` read). Per stream:
 * the engine without instances, with one TXM-1 and with one TXM-3 (defaults, alerts off); cost =
 * CPU µs per transaction minus the bare engine's. Beside it a plain-JavaScript baseline of each rule
 * (per-user arrays, binary-searched window edges, the same bounded reads), whose hit counts must
 * equal the engine's (the run stops otherwise). Rounds alternate the subjects; medians are reported.
 *
 *   node bench/flow-rules.mjs [--ops 40000] [--rounds 7] [--dist dist/index.js]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    ops: { type: 'string', default: '40000' },
    rounds: { type: 'string', default: '7' },
    dist: { type: 'string', default: 'dist/index.js' },
  },
});
const txmon = await import(pathToFileURL(resolve(opts.dist)).href);
const OPS = Number(opts.ops);
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A seeded PRNG (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `OPS` transactions over `users` users, 60 s apart (OPS × 60 s of history): card payments, deposits
 * of 800–9,000 and, a few hours after a deposit, a transfer of 85–98 % of it (mule rounds), in EUR.
 */
function stream(users, seed) {
  const next = random(seed);
  const pending = [];
  const out = [];
  for (let i = 0; i < OPS; i++) {
    const at = T0 + i * 60_000;
    const user = `u-${Math.floor(next() * users)}`;
    let type = 'EXTERNAL_PAYMENT';
    let amount = Math.round(next() * 8000 + 100) / 100;
    let sender = user;
    let receiver;
    if (pending.length > 0 && pending[0].at <= at) {
      const p = pending.shift();
      type = 'TRANSFER';
      sender = p.user;
      amount = Math.round(p.amount * (85 + next() * 13)) / 100;
    } else if (next() < 0.1) {
      type = 'DEPOSIT';
      sender = undefined;
      receiver = user;
      amount = Math.round(next() * 820_000 + 80_000) / 100;
      pending.push({ at: at + Math.floor(next() * 6 * HOUR), user, amount });
      pending.sort((a, b) => a.at - b.at);
    }
    out.push({
      type,
      transactionId: `f-${String(i).padStart(7, '0')}`,
      timestamp: at,
      ...(sender === undefined ? {} : { originUserId: sender }),
      ...(receiver === undefined ? {} : { destinationUserId: receiver }),
      originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
      destinationAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
    });
  }
  return out;
}

const RULES = {
  none: [],
  'TXM-1': [{ ruleId: 'TXM-1', alertCreationOnHit: false }],
  'TXM-3': [{ ruleId: 'TXM-3', alertCreationOnHit: false }],
};

async function runEngine(rule, operations) {
  const engine = txmon.createEngine({ baseCurrency: 'EUR' });
  for (const request of RULES[rule]) await engine.createRuleInstance(request);
  let hits = 0;
  const t0 = process.cpuUsage();
  for (const op of operations) hits += (await engine.createTransaction(op)).hitRules.length;
  return { us: cpuUs(t0) / operations.length, hits };
}

/**
 * CPU µs of this process since `t0` (user + system): on a shared host, other processes' load moves
 * wall time far more than the CPU time of the work measured.
 */
function cpuUs(t0) {
  const d = process.cpuUsage(t0);
  return d.user + d.system;
}

/** Cents of an amount with at most two decimals (the stream's). */
const cents = (x) => Math.round(x * 100);

/** Index of the first element of `list` (sorted by `at`) at or after `t`. */
function firstAtOrAfter(list, t) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last `n` of `list` at or after `start` (the list ends at the current transaction). */
function lastIn(list, start, n) {
  return list.slice(Math.max(firstAtOrAfter(list, start), list.length - n));
}

/** TXM-1's defaults, inline: rounds over the last 50 received and sent in 14 days. */
function passThroughHit(received, sent, current) {
  const start = current.at - 14 * DAY;
  const inflows = lastIn(received, start, 50).filter((e) => (e.type === 'DEPOSIT' || e.type === 'TRANSFER') && e.amount >= 50_000);
  const totals = new Array(inflows.length).fill(0);
  let mine = -1;
  let k = 0;
  for (const o of lastIn(sent, start, 50)) {
    if (o.type !== 'TRANSFER') continue;
    while (k < inflows.length && inflows[k].at < o.at) k += 1;
    if (k === 0 || o.at - inflows[k - 1].at > 24 * HOUR) continue;
    totals[k - 1] += o.amount;
    if (o === current) mine = k - 1;
  }
  const complete = (i) => totals[i] * 100 >= 80 * inflows[i].amount && totals[i] * 100 <= 100 * inflows[i].amount;
  if (mine < 0 || !complete(mine)) return false;
  let rounds = 0;
  for (let i = 0; i < inflows.length; i++) if (complete(i)) rounds += 1;
  return rounds >= 2;
}

/** TXM-3's defaults, inline: the median of the last 20 sent in 90 days, × 5 or ÷ 10. */
function unusualHit(sent, amount, at) {
  const earlier = lastIn(sent, at - 90 * DAY, 20)
    .map((e) => e.amount)
    .sort((a, b) => a - b);
  if (earlier.length < 5) return false;
  const twice = earlier[(earlier.length - 1) >> 1] + earlier[earlier.length >> 1];
  if (twice <= 0) return false;
  return 2 * amount >= 5 * twice || 2 * amount * 10 <= twice;
}

function runBaseline(rule, operations) {
  const sentBy = new Map();
  const receivedBy = new Map();
  const listOf = (map, user) => {
    let list = map.get(user);
    if (list === undefined) {
      list = [];
      map.set(user, list);
    }
    return list;
  };
  let hits = 0;
  const t0 = process.cpuUsage();
  for (const op of operations) {
    const entry = { at: op.timestamp, amount: cents(op.originAmountDetails.transactionAmount), type: op.type };
    if (op.originUserId !== undefined) {
      const sent = listOf(sentBy, op.originUserId);
      if (rule === 'TXM-3' && unusualHit(sent, entry.amount, entry.at)) hits += 1;
      sent.push(entry);
      if (rule === 'TXM-1' && op.type === 'TRANSFER' && passThroughHit(listOf(receivedBy, op.originUserId), sent, entry)) hits += 1;
    }
    if (op.destinationUserId !== undefined) listOf(receivedBy, op.destinationUserId).push(entry);
  }
  return { us: cpuUs(t0) / operations.length, hits };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = [];
for (const users of [4000, 40]) {
  const operations = stream(users, 7);
  // Warm-up: every subject once.
  for (const rule of Object.keys(RULES)) {
    await runEngine(rule, operations.slice(0, 5000));
    runBaseline(rule, operations.slice(0, 5000));
  }
  const times = { none: [], 'TXM-1': [], 'TXM-3': [] };
  const baseline = { 'TXM-1': [], 'TXM-3': [] };
  const hits = {};
  for (let r = 0; r < Number(opts.rounds); r++) {
    for (const rule of Object.keys(RULES)) {
      const e = await runEngine(rule, operations);
      times[rule].push(e.us);
      if (rule === 'none') continue;
      const b = runBaseline(rule, operations);
      baseline[rule].push(b.us);
      if (e.hits !== b.hits) {
        process.stderr.write(`${rule} on ${users} users: engine ${e.hits} hits, baseline ${b.hits}\n`);
        process.exit(1);
      }
      hits[rule] = e.hits;
    }
  }
  const bare = median(times.none);
  const perUser = OPS / users;
  for (const rule of ['TXM-1', 'TXM-3']) {
    const row = {
      users,
      transactionsPerUser: perUser,
      rule,
      hits: hits[rule],
      bareUs: bare,
      withUs: median(times[rule]),
      costUs: median(times[rule]) - bare,
      baselineUs: median(baseline[rule]),
    };
    results.push(row);
    process.stdout.write(
      `${OPS} transactions, ${users} users (${perUser} each): ${rule} ${row.hits} hits; engine ${bare.toFixed(2)} → ${row.withUs.toFixed(2)} CPU µs per transaction, the instance costs ${row.costUs.toFixed(2)} µs; baseline rule alone ${row.baselineUs.toFixed(2)} µs (median of ${opts.rounds} rounds)\n`,
    );
  }
}
process.stdout.write(`${JSON.stringify({ node: process.version, ops: OPS, results })}\n`);
