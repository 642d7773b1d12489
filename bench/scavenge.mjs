#!/usr/bin/env node
/**
 * How the cost of V8's young-generation collections (scavenges) grows with the old generation,
 * whatever the program does: a heap of long-lived objects that is never touched again, grown step
 * by step, while a fixed loop allocates only short-lived garbage. At each step: the mean scavenge
 * pause and the time per loop iteration. The engine's long workload allocates ~20 KB per operation
 * (a scavenge every ~600 operations) while its history grows to ~2 GB, so this is the part of its
 * per-operation cost that grows with history without any algorithm reading more.
 *
 *   node --max-old-space-size=8192 bench/scavenge.mjs [--step-mb 256] [--steps 8]
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { 'step-mb': { type: 'string', default: '256' }, steps: { type: 'string', default: '8' } } });
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

/** Long-lived objects shaped like a stored transaction: a few small nested objects and strings. */
const history = [];
let serial = 0;
function grow(mb) {
  const target = process.memoryUsage().heapUsed + mb * 2 ** 20;
  while (process.memoryUsage().heapUsed < target) {
    for (let i = 0; i < 10_000; i++, serial++) {
      history.push({
        id: `tx-${serial}`,
        amount: { value: serial % 9973, currency: 'EUR' },
        origin: { userId: `u-${serial % 2000}`, country: 'DE' },
        tags: [{ key: 'channel', value: `c${serial % 7}` }],
      });
    }
  }
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
console.log(`node ${process.version}; each step: 200,000 iterations of garbage only (~15 KB each)`);
console.log('old generation MB   scavenges   ms per scavenge   µs per iteration');
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
  const heapMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  console.log(
    `${String(heapMb).padStart(18)}   ${String(n).padStart(9)}   ${((scavengeMs - ms0) / n).toFixed(2).padStart(15)}   ${us.toFixed(2).padStart(16)}`,
  );
}
if (sink < 0) console.log(history.length);
