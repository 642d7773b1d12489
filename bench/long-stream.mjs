/**
 * The engine over a long stream, timed in segments: how the cost per operation moves as state
 * accumulates (more history per user, more rule hits, a larger heap). Over HTTP a 20 s run at 10
 * connections serves ~180,000 operations, so its later seconds run with this state.
 *
 *   npm run build && node bench/long-stream.mjs                     # 200,000 operations, segments of 20,000
 *   node bench/long-stream.mjs --ops 100000 --segment 10000 --dist node_modules/.cache/txmon-a/index.js
 *
 * Per segment: wall µs per operation, main-thread GC µs per operation, the share of operations
 * whose result hit a rule, and the heap in use after the segment (the parsed payloads of the
 * segment included). Engine only, memory repositories, the 20 instances of bench/workload.mjs;
 * each payload is parsed from its JSON text just before its segment.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { createInstanceConfigs, generateWorkload } from './workload.mjs';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: path.join('dist', 'index.js') },
    ops: { type: 'string', default: '200000' },
    segment: { type: 'string', default: '20000' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  console.log('node bench/long-stream.mjs [--dist dist/internals.js] [--ops 200000] [--segment 20000]');
  process.exit(0);
}
const total = Number(args.ops);
const size = Number(args.segment);
if (!(Number.isInteger(total) && total > 0 && Number.isInteger(size) && size > 0)) {
  console.error('--ops and --segment must be positive integers');
  process.exit(2);
}

const pkg = await import(pathToFileURL(path.resolve(args.dist)).href);
const texts = generateWorkload({ operations: total }).operations.map((o) => ({ kind: o.kind, text: JSON.stringify(o.payload) }));
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

let n = 0;
const engine = pkg.createEngine({ ids: { next: (kind) => `${kind}-${++n}` } });
for (const c of createInstanceConfigs()) await engine.createRuleInstance(c.request);
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

console.log(`node ${process.version}; ${args.dist}; ${total} operations in segments of ${size}`);
console.log(`${'operations'.padEnd(16)} ${'µs/op'.padStart(7)} ${'GC µs/op'.padStart(9)} ${'hit share'.padStart(9)} ${'heap MB'.padStart(8)}`);
for (let from = 0; from < total; from += size) {
  const segment = texts.slice(from, from + size).map((o) => ({ kind: o.kind, payload: JSON.parse(o.text) }));
  await settle();
  gcMs = 0;
  let hits = 0;
  const t0 = process.hrtime.bigint();
  for (const o of segment) {
    try {
      const r = o.kind === 'transaction' ? await engine.createTransaction(o.payload) : await engine.createTransactionEvent(o.payload);
      if (r.hitRules.length > 0) hits += 1;
    } catch {
      // Rejected operations are part of the stream (the same for every build).
    }
  }
  const us = Number(process.hrtime.bigint() - t0) / 1000 / segment.length;
  await settle();
  console.log(
    `${`${from}–${from + segment.length}`.padEnd(16)} ${us.toFixed(2).padStart(7)} ${((gcMs * 1000) / segment.length).toFixed(2).padStart(9)} ${`${Math.round((hits / segment.length) * 100)} %`.padStart(9)} ${(process.memoryUsage().heapUsed / 1e6).toFixed(0).padStart(8)}`,
  );
}
