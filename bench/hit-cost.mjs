#!/usr/bin/env node
/**
 * What one hit costs the live engine: the same stream of transactions through ten R-2 instances
 * (defaults on: alerts, SUSPEND) that all hit, and through ten that never hit; the difference per
 * hit is the cost of a hit — its description, its results, its alert (opened or appended), its
 * stored form. Rounds alternate, each on a fresh engine; medians are reported.
 *
 *   node bench/hit-cost.mjs [--ops 20000] [--rounds 7] [--users 500] [--dist dist/index.js]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    ops: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '7' },
    users: { type: 'string', default: '500' },
    dist: { type: 'string', default: 'dist/index.js' },
  },
});
const txmon = await import(pathToFileURL(resolve(opts.dist)).href);
const OPS = Number(opts.ops);
const USERS = Number(opts.users);
const T0 = Date.UTC(2026, 0, 1);

function stream() {
  const out = [];
  for (let i = 0; i < OPS; i++) {
    out.push({
      type: 'TRANSFER',
      transactionId: `h-${i}`,
      timestamp: T0 + i * 1000,
      originUserId: `u-${i % USERS}`,
      destinationUserId: `r-${(i * 7) % USERS}`,
      originAmountDetails: { transactionAmount: 500 + (i % 100), transactionCurrency: 'EUR', country: 'DE' },
      destinationAmountDetails: { transactionAmount: 500 + (i % 100), transactionCurrency: 'EUR', country: 'FR' },
    });
  }
  return out;
}

/** Ten R-2 instances with a threshold every transaction passes (`hit`) or none does. */
function instances(hit) {
  return Array.from({ length: 10 }, (_, k) => ({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: hit ? 100 + k : 1_000_000 + k } } }));
}

async function run(hit, operations) {
  const engine = txmon.createEngine();
  for (const request of instances(hit)) await engine.createRuleInstance(request);
  const t0 = performance.now();
  for (const op of operations) await engine.createTransaction(op);
  return (performance.now() - t0) / operations.length;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const operations = stream();
// Warm-up: both shapes once.
await run(true, operations.slice(0, 5000));
await run(false, operations.slice(0, 5000));
const hits = [];
const misses = [];
for (let r = 0; r < Number(opts.rounds); r++) {
  hits.push(await run(true, operations));
  misses.push(await run(false, operations));
}
const perOp = { hit: median(hits) * 1000, miss: median(misses) * 1000 };
// Every transaction hits all ten instances on both sides: ten hits, twenty alert hits (sender, receiver).
const perHit = (perOp.hit - perOp.miss) / 10;
process.stdout.write(
  `${OPS} transactions, ${USERS} senders: no hit ${perOp.miss.toFixed(2)} µs per transaction, ten hits ${perOp.hit.toFixed(2)} µs → ${perHit.toFixed(2)} µs per hit (median of ${opts.rounds} rounds)\n`,
);
process.stdout.write(`${JSON.stringify({ node: process.version, ops: OPS, users: USERS, missUs: perOp.miss, hitUs: perOp.hit, perHitUs: perHit })}\n`);
