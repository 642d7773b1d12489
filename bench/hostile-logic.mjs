#!/usr/bin/env node
/**
 * Worst-case cost of custom json-logic rules per transaction: as many custom instances as the
 * engine accepts (default limit `maxCustomLogicInstances`, 50), each with the most expensive logic
 * we know how to write within the expression limits, over the largest transaction the schema
 * accepts; timed through `createTransaction` (the whole engine).
 *
 *   npm run build && node bench/hostile-logic.mjs
 *   node bench/hostile-logic.mjs --dist /tmp/other/dist/index.js --instances 20   # another build
 *
 * The cases: `some` over the transaction's tags searching long periodic text with `in` (the input
 * that makes a plain substring search quadratic); `reduce` doubling a string with `cat`; `reduce`
 * doubling an array with `merge`. The transaction is the same for every build: 15 tags of 4,000
 * characters, within the default `maxTransactionSize`. Reported: ms per transaction (median and slowest of the
 * timed transactions) and the work units one evaluation may spend (`maxLogicWork`).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: '../dist/index.js' },
    instances: { type: 'string', default: '50' },
    transactions: { type: 'string', default: '5' },
  },
});
const { createEngine } = await import(new URL(args.dist, import.meta.url).href);
const instances = Number(args.instances);
const transactions = Number(args.transactions);

const TAGS = { var: 'transaction.tags' };
const CASES = {
  'some + in over periodic text': { some: [TAGS, { in: [`${'a'.repeat(600)}b${'a'.repeat(600)}`, { var: 'value' }] }] },
  'reduce doubling a string (cat)': { reduce: [TAGS, { cat: [{ var: 'accumulator' }, { var: 'accumulator' }, 'x'] }, 'y'] },
  'reduce doubling an array (merge)': { reduce: [TAGS, { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] },
};

const transaction = (i) => ({
  type: 'TRANSFER',
  transactionId: `t-${i}`,
  timestamp: Date.UTC(2025, 0, 15, 12) + i,
  originUserId: 'alice',
  destinationUserId: 'bob',
  originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR' },
  // Within the default maxTransactionSize (65,536): 15 tags of 4,000 characters.
  tags: Array.from({ length: 15 }, (_, t) => ({ key: `k${t}`, value: 'a'.repeat(4_000) })),
});

console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}; ${instances} instances per case; ${args.dist}`);
for (const [name, logic] of Object.entries(CASES)) {
  const engine = createEngine({ limits: { maxCustomLogicInstances: Math.max(instances, 1) } });
  let created = 0;
  try {
    for (let i = 0; i < instances; i++) {
      await engine.createRuleInstance({ logic });
      created += 1;
    }
  } catch (error) {
    console.log(`${name}: refused after ${created} instances (${error.code})`);
    continue;
  }
  await engine.createTransaction(transaction(-1));
  const times = [];
  for (let i = 0; i < transactions; i++) {
    const started = process.hrtime.bigint();
    await engine.createTransaction(transaction(i));
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`${name}: median ${times[Math.floor(times.length / 2)].toFixed(1)} ms, slowest ${times[times.length - 1].toFixed(1)} ms per transaction`);
}
