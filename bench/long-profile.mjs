#!/usr/bin/env node
/**
 * Where the long run's growth goes: the engine alone on the long workload (in this process, alerts
 * on), each segment's µs per operation, GC by kind (scavenges / mark-compact), heap and hits per
 * operation; the first and the last segment CPU-profiled, then the functions whose self time per
 * operation grew the most between the two (through the build's source map).
 *
 *   node --max-old-space-size=12288 bench/long-profile.mjs [--ops 1000000] [--segment 100000] [--dist PATH]
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { summarizeProfile } from './profile-summary.mjs';
import { feed, WORKLOADS } from './workloads.mjs';

const { values: args } = parseArgs({
  options: {
    ops: { type: 'string', default: '1000000' },
    segment: { type: 'string', default: '100000' },
    dist: { type: 'string', default: path.join('dist', 'internals.js') },
    top: { type: 'string', default: '15' },
  },
});
const OPS = Number(args.ops);
const SEGMENT = Number(args.segment);
const pkg = await import(pathToFileURL(path.resolve(args.dist)).href);
const w = WORKLOADS.long;

let sequence = 0;
const engine = pkg.createEngine({
  ids: { next: (kind) => `${kind}-${++sequence}` },
  repositories: pkg.createMemoryRepositories({ maxStoredBytes: w.maxStoredBytes }),
});
for (const { request } of w.configs()) await engine.createRuleInstance(request);

const gcMs = { minor: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) gcMs.minor += entry.duration;
    else gcMs.major += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

const session = new Session();
session.connect();
await session.post('Profiler.enable');
const dir = mkdtempSync(path.join(os.tmpdir(), 'txmon-long-prof-'));
const hitsSoFar = async () => (await engine.listRuleInstances()).reduce((sum, i) => sum + i.hitCount, 0);
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

const iterator = w.stream({ seed: w.seed, operations: OPS })[Symbol.iterator]();
const profiles = [];
console.log(`node ${process.version}; long workload, engine only, ${OPS} operations in segments of ${SEGMENT}`);
console.log('segment              µs/op  scavenge µs/op  mark-compact µs/op  heap MB  hits/op');
let hitsBefore = 0;
for (let from = 0; from < OPS; from += SEGMENT) {
  const ops = [];
  for (let i = 0; i < SEGMENT; i++) {
    const next = iterator.next();
    if (next.done) break;
    ops.push(next.value);
  }
  if (ops.length === 0) break;
  const profiled = from === 0 || from + SEGMENT >= OPS;
  await settle();
  const gc0 = { ...gcMs };
  if (profiled) await session.post('Profiler.start');
  const t0 = process.hrtime.bigint();
  await feed(engine, ops);
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / ops.length;
  if (profiled) {
    const { profile } = await session.post('Profiler.stop');
    const file = path.join(dir, `segment-${from}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    profiles.push({ from, file, ops: ops.length });
  }
  await settle();
  const hits = await hitsSoFar();
  const per = (ms) => ((ms * 1000) / ops.length).toFixed(2);
  console.log(
    `${`${from}–${from + ops.length}`.padEnd(18)} ${us.toFixed(2).padStart(7)}  ${per(gcMs.minor - gc0.minor).padStart(14)}  ${per(gcMs.major - gc0.major).padStart(18)}  ${String(Math.round(process.memoryUsage().heapUsed / 2 ** 20)).padStart(7)}  ${((hits - hitsBefore) / ops.length).toFixed(2).padStart(7)}`,
  );
  hitsBefore = hits;
}

if (profiles.length === 2) {
  const [first, last] = profiles.map((p) => {
    const summary = summarizeProfile(p.file, { top: 100_000 });
    return new Map(summary.self.map((r) => [`${r.name} (${r.where})`, (r.ms * 1000) / p.ops]));
  });
  const rows = [...new Set([...first.keys(), ...last.keys()])]
    .map((key) => ({ key, a: first.get(key) ?? 0, b: last.get(key) ?? 0 }))
    .sort((x, y) => y.b - y.a - (x.b - x.a))
    .slice(0, Number(args.top));
  console.log(`\nself time, µs per operation: first segment → last segment (profiles in ${dir})`);
  for (const r of rows) console.log(`${r.a.toFixed(2).padStart(7)} → ${r.b.toFixed(2).padStart(6)}  ${r.key}`);
}
