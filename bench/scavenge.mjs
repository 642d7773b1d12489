#!/usr/bin/env node
/**
 * How the cost of V8's young-generation collections (scavenges) grows with the old generation,
 * whatever the program does: long-lived data that is never touched again, grown step by step,
 * while a fixed loop allocates only short-lived garbage. At each step: the mean scavenge pause and
 * the time per loop iteration. The engine's long workload allocates ~21 KB per operation (a
 * scavenge every ~600 operations) while its history grows to ~2 GB, so this is the part of its
 * per-operation cost that grows with history without any algorithm reading more.
 *
 * `--shape` is how that data is held, the same records each time:
 *   objects  small objects (what the memory repositories keep: a stored transaction is ~20 of them)
 *   json     each record as one JSON string
 *   doubles  the records' numbers in a few large arrays of doubles (one per 8M values)
 *   bytes    each record's JSON text in 16 MB buffers, outside the JavaScript heap
 *
 *   node --max-old-space-size=8192 bench/scavenge.mjs [--shape objects] [--step-mb 256] [--steps 8]
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { shape: { type: 'string', default: 'objects' }, 'step-mb': { type: 'string', default: '256' }, steps: { type: 'string', default: '8' } },
});
const SHAPES = ['objects', 'json', 'doubles', 'bytes'];
if (!SHAPES.includes(args.shape)) throw new Error(`--shape must be one of ${SHAPES.join(', ')}`);
const stepMb = Number(args['step-mb']);
const steps = Number(args.steps);

let scavengeMs = 0;
let scavenges = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      scavengeMs += entry.duration;
      scavenges += 1;
    }
  }
}).observe({ entryTypes: ['gc'] });

/** One long-lived record shaped like a stored transaction: a few small nested objects and strings. */
const record = (serial) => ({
  id: `tx-${serial}`,
  amount: { value: serial % 9973, currency: 'EUR' },
  origin: { userId: `u-${serial % 2000}`, country: 'DE' },
  tags: [{ key: 'channel', value: `c${serial % 7}` }],
});

const history = [];
let serial = 0;
let doubles = null;
let doublesUsed = 0;
let bytes = null;
let bytesUsed = 0;
/** Keeps one more record in the chosen shape. */
function keep(n) {
  if (args.shape === 'objects') history.push(record(n));
  else if (args.shape === 'json') history.push(JSON.stringify(record(n)));
  else if (args.shape === 'doubles') {
    if (doubles === null || doublesUsed + 3 > doubles.length) {
      doubles = new Array(8_000_000).fill(0.5);
      doublesUsed = 0;
      history.push(doubles);
    }
    doubles[doublesUsed++] = n + 0.5;
    doubles[doublesUsed++] = (n % 9973) + 0.25;
    doubles[doublesUsed++] = (n % 2000) + 0.125;
  } else {
    const text = JSON.stringify(record(n));
    if (bytes === null || bytesUsed + text.length * 3 > bytes.length) {
      bytes = Buffer.allocUnsafeSlow(16 * 2 ** 20);
      bytesUsed = 0;
      history.push(bytes);
    }
    bytesUsed += bytes.write(text, bytesUsed);
  }
}

/** Bytes held, on the JavaScript heap and in buffers outside it. */
const held = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

function grow(mb) {
  const target = held() + mb * 2 ** 20;
  while (held() < target) for (let i = 0; i < 10_000; i++) keep(serial++);
}

/** Garbage only: ~15 KB of short-lived objects per iteration. */
// A small ring keeps each object alive for a moment, so the allocations cannot be optimised away.
const ring = new Array(1024).fill(null);
let sink = 0;
function iteration(k) {
  for (let j = 0; j < 100; j++) {
    const o = { a: k, b: j, c: [k, j], d: { e: `${j}` } };
    ring[(k * 100 + j) & 1023] = o;
    sink += o.c.length;
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
console.log(`node ${process.version}; data held as ${args.shape}; each step: 200,000 iterations of garbage only (~15 KB each)`);
console.log('data held MB   scavenges   ms per scavenge   µs per iteration');
for (let step = 0; step <= steps; step++) {
  if (step > 0) grow(stepMb);
  await settle();
  const ms0 = scavengeMs;
  const n0 = scavenges;
  const t0 = performance.now();
  for (let k = 0; k < 200_000; k++) iteration(k);
  const us = ((performance.now() - t0) * 1000) / 200_000;
  await settle();
  const n = scavenges - n0;
  const heldMb = Math.round(held() / 2 ** 20);
  console.log(
    `${String(heldMb).padStart(12)}   ${String(n).padStart(9)}   ${((scavengeMs - ms0) / n).toFixed(2).padStart(15)}   ${us.toFixed(2).padStart(16)}`,
  );
}
if (sink < 0) console.log(history.length);
