#!/usr/bin/env node
/**
 * `npm run bench`: the engine against the hand-written baseline on five workloads (today's stream,
 * dense, AML, hits, long; see bench/workloads.mjs), instances with the engine's defaults (alerts and
 * cases on). Per workload: a verification pass (every response, the counters, the alerts and the
 * cases must be equal), timed rounds (each subject in a child process of its own, the order
 * alternating), the table and the ratio; the long workload is reported in segments, the AML one
 * with each windowed rule's cost per operation. Then the summary against the targets.
 *
 * Options (all optional):
 *   --workload LIST      comma-separated: today, dense, aml, hits, long (default all five)
 *   --ops N              operations per run (default per workload: 50,000; long 1,000,000)
 *   --rounds N           timed rounds per workload (default 3; long 1)
 *   --seed N             workload seed (default per workload)
 *   --engine-only        time the engine only (no verification, no baseline)
 *   --baseline-only      time the baseline only
 *   --baseline-logic L   custom logic in the baseline: inline (default, plain JavaScript) or
 *                        json-logic-js (then the ratio is against that)
 *   --no-comparison      skip the labelled json-logic-js baseline run of the today workload
 *   --no-rules           skip the AML per-rule costs
 *   --rule-rounds N      rounds of the AML per-rule costs (default 1)
 *   --alerts off         instances with alertCreationOnHit false, to compare with figures taken
 *                        without alerts (the baseline keeps no alerts then either)
 *   --no-verify          skip the verification pass
 *   --verify-only        the verification pass alone (exit code 1 on any difference): a
 *                        differential test of the engine against the baseline, as the test suite runs it
 *   --dist PATH          the built package to load (default ../dist/internals.js)
 *   --json PATH          where to write the results (default bench/results/latest.json; "-": none)
 *   --profile            CPU-profile the timed engine run of each workload (default workload:
 *                        today; implies --engine-only --rounds 1 --in-process --no-rules), print the
 *                        top functions mapped to src/ through the source map
 *   --in-process         time every subject in this process instead of one child process per run
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createBaseline } from './baseline.mjs';
import { summarizeProfile, formatProfileSummary } from './profile-summary.mjs';
import { DEFAULT_WORKLOADS, feed, WORKLOADS, windowedInstances } from './workloads.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const TARGETS = { ratio: 0.5, ratioGoal: 0.8, p99Us: 200, longDrift: 1.2 };

// ---- options --------------------------------------------------------------------------------

function parseArgs(argv) {
  const o = {
    workloads: null,
    ops: null,
    rounds: null,
    seed: null,
    engineOnly: false,
    baselineOnly: false,
    baselineLogic: 'inline',
    comparison: true,
    rules: true,
    ruleRounds: 1,
    alerts: true,
    verify: true,
    verifyOnly: false,
    dist: path.resolve(BENCH_DIR, '../dist/internals.js'),
    json: path.join(BENCH_DIR, 'results', 'latest.json'),
    profile: false,
    isolate: true,
    child: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--workload':
        o.workloads = value().split(',');
        break;
      case '--ops':
        o.ops = Number(value());
        break;
      case '--rounds':
        o.rounds = Number(value());
        break;
      case '--seed':
        o.seed = Number(value());
        break;
      case '--engine-only':
        o.engineOnly = true;
        break;
      case '--baseline-only':
        o.baselineOnly = true;
        break;
      case '--baseline-logic':
        o.baselineLogic = value();
        break;
      case '--no-comparison':
        o.comparison = false;
        break;
      case '--no-rules':
        o.rules = false;
        break;
      case '--rule-rounds':
        o.ruleRounds = Number(value());
        break;
      case '--alerts':
        o.alerts = value() !== 'off';
        break;
      case '--no-verify':
        o.verify = false;
        break;
      case '--verify-only':
        o.verifyOnly = true;
        break;
      case '--dist':
        o.dist = path.resolve(value());
        break;
      case '--json':
        o.json = value();
        break;
      case '--profile':
        o.profile = true;
        break;
      case '--in-process':
        o.isolate = false;
        break;
      // Internal: the child process of one isolated run (see runIsolated).
      case '--child':
        o.child = value();
        break;
      default:
        throw new Error(`unknown option ${a} (see the header of bench/run.mjs)`);
    }
  }
  o.workloads ??= o.profile ? ['today'] : DEFAULT_WORKLOADS;
  for (const w of o.workloads) if (!WORKLOADS[w]) throw new Error(`unknown workload ${w} (${Object.keys(WORKLOADS).join(', ')})`);
  for (const [name, v] of [
    ['--ops', o.ops],
    ['--rounds', o.rounds],
    ['--rule-rounds', o.ruleRounds],
  ]) {
    if (v !== null && !(v > 0 && Number.isInteger(v))) throw new Error(`${name} must be a positive integer`);
  }
  if (!['json-logic-js', 'inline'].includes(o.baselineLogic)) throw new Error('--baseline-logic must be inline or json-logic-js');
  if (o.engineOnly && o.baselineOnly) throw new Error('--engine-only and --baseline-only exclude each other');
  if (o.verifyOnly && (o.engineOnly || o.baselineOnly || o.profile || !o.verify)) {
    throw new Error('--verify-only compares both subjects: drop --engine-only, --baseline-only, --profile and --no-verify');
  }
  if (o.profile) {
    if (o.baselineOnly) throw new Error('--profile profiles the engine; drop --baseline-only');
    o.engineOnly = true;
    o.rounds = 1;
    o.isolate = false;
    o.rules = false;
    if (!argv.includes('--json')) o.json = '-';
  }
  if (o.engineOnly || o.baselineOnly) {
    o.verify = false;
    o.comparison = false;
  }
  return o;
}

/** The settings of one workload under the options. */
function settingsOf(w, o) {
  return { ops: o.ops ?? w.operations, rounds: o.rounds ?? w.rounds, seed: o.seed ?? w.seed, segment: w.segment };
}

/** A full garbage collection (between runs, never inside a timed loop). */
let gcNow = () => {};

/** A `gc()` function without needing `--expose-gc` on the command line. */
function exposeGc() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/** Live heap in MB (after whatever GC last ran). */
const liveHeapMb = () => process.memoryUsage().heapUsed / 2 ** 20;

/**
 * Waits until the live heap is back under `limitMb`: full GCs 50 ms apart, at most ~2 s (a
 * subject just let go of can stay reachable for a moment).
 */
async function settleHeap(limitMb) {
  await new Promise((resolve) => setImmediate(resolve));
  gcNow();
  for (let tries = 0; tries < 40 && liveHeapMb() > limitMb; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    gcNow();
  }
}

// ---- statistics -----------------------------------------------------------------------------

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function latencyStats(values) {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const us = (ns) => Math.round(ns / 10) / 100;
  return {
    count: sorted.length,
    meanUs: us(sum / sorted.length),
    p50Us: us(percentile(sorted, 0.5)),
    p99Us: us(percentile(sorted, 0.99)),
    p999Us: us(percentile(sorted, 0.999)),
    maxUs: us(sorted[sorted.length - 1] ?? NaN),
  };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

// ---- the subjects ---------------------------------------------------------------------------

function sequentialIds() {
  const counters = new Map();
  return {
    next(kind) {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      return kind === 'ruleInstance' ? `RI-${n}` : `${kind}-${n}`;
    },
  };
}

/** The engine as a host creates it: defaults everywhere, the memory repositories' budget raised where the workload needs it. */
async function createEngineSubject(pkg, w, configs, clock) {
  const options = { ids: sequentialIds() };
  if (w.maxStoredBytes !== null) options.repositories = pkg.createMemoryRepositories({ maxStoredBytes: w.maxStoredBytes });
  if (clock !== undefined) options.clock = { now: clock };
  let engine = pkg.createEngine(options);
  for (const { id, request } of configs) {
    const created = await engine.createRuleInstance(request);
    if (created.id !== id) throw new Error(`expected instance id ${id}, got ${created.id}`);
  }
  return {
    name: 'engine',
    createTransaction: (p) => engine.createTransaction(p),
    createTransactionEvent: (p) => engine.createTransactionEvent(p),
    async counters() {
      return (await engine.listRuleInstances()).map((i) => ({ id: i.id, runs: i.runCount, hits: i.hitCount }));
    },
    listAlerts: () => engine.listAlerts(),
    listCases: () => engine.listCases(),
    dispose() {
      engine = null;
    },
  };
}

function createBaselineSubject(pkg, configs, logic, clock) {
  const baseline = createBaseline(pkg, configs, { logic, ...(clock !== undefined ? { clock } : {}) });
  return {
    name: logic === 'inline' ? 'baseline' : 'baseline-jl',
    createTransaction: baseline.createTransaction,
    createTransactionEvent: baseline.createTransactionEvent,
    counters: async () => baseline.counters(),
    listAlerts: async () => baseline.listAlerts(),
    listCases: async () => baseline.listCases(),
    dispose: baseline.dispose,
  };
}

/** Subject names: `engine`, `baseline` (the --baseline-logic one) and `baseline-jl` (json-logic-js). */
function createSubject(name, pkg, w, configs, o, clock) {
  if (name === 'engine') return createEngineSubject(pkg, w, configs, clock);
  return createBaselineSubject(pkg, configs, name === 'baseline-jl' ? 'json-logic-js' : o.baselineLogic, clock);
}

/** What the alerts and cases add up to: counts, and the transactions listed in the alerts. */
async function alertTotals(subject) {
  const alerts = await subject.listAlerts();
  let listed = 0;
  for (const a of alerts) listed += a.entityDetails.transactionIds.length;
  return { alerts: alerts.length, listed, cases: (await subject.listCases()).length };
}

// ---- verification: the same answer for every operation ------------------------------------

async function outcomeOf(subject, op) {
  try {
    const r = op.kind === 'transaction' ? await subject.createTransaction(op.payload) : await subject.createTransactionEvent(op.payload);
    return { ok: true, value: r };
  } catch (error) {
    return { ok: false, code: error?.code ?? String(error) };
  }
}

/**
 * A monitoring result without `ruleHitMeta.evidence`: the baseline does not build evidence (the
 * evidence is pinned against a brute-force recount by test/rules/evidence-oracle.test.ts), so the
 * verification compares everything else.
 */
function withoutEvidence(outcome) {
  if (!outcome.ok) return outcome;
  const strip = (rules) =>
    rules.map((rule) => {
      if (rule.ruleHitMeta?.evidence === undefined) return rule;
      const { evidence: _evidence, ...meta } = rule.ruleHitMeta;
      return { ...rule, ruleHitMeta: meta };
    });
  const value = outcome.value;
  return { ok: true, value: { ...value, executedRules: strip(value.executedRules), hitRules: strip(value.hitRules) } };
}

/** The first place two JSON-like values differ, as `{ path, a, b }`, or null when deep-equal. */
function firstDifference(a, b, at = '') {
  if (isDeepStrictEqual(a, b)) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return { path: at || '/', a, b };
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const d = firstDifference(a[k], b[k], `${at}/${k}`);
    if (d) return d;
  }
  return { path: at || '/', a, b };
}

/**
 * Both subjects over the first `verifyOps` operations, side by side: every response deep-equal,
 * then the counters, the alerts and the cases (both stamped by one fixed clock).
 */
async function verify(pkg, w, s, o) {
  const configs = w.configs({ alerts: o.alerts });
  const clock = () => 1_750_000_000_000;
  const engine = await createSubject('engine', pkg, w, configs, o, clock);
  const baseline = await createSubject('baseline', pkg, w, configs, o, clock);
  const stream = w.stream({ seed: s.seed, operations: Math.min(s.ops, w.verifyOps) });
  let mismatches = 0;
  let errors = 0;
  let n = 0;
  const started = process.hrtime.bigint();
  for (const op of stream) {
    const a = withoutEvidence(await outcomeOf(engine, op));
    const b = await outcomeOf(baseline, op);
    if (!a.ok) errors += 1;
    if (!(a.ok === b.ok && (a.ok ? isDeepStrictEqual(a.value, b.value) : a.code === b.code))) {
      mismatches += 1;
      if (mismatches <= 3) {
        const d = firstDifference(a.ok ? a.value : { error: a.code }, b.ok ? b.value : { error: b.code });
        console.error(`  MISMATCH at operation ${n} (${op.kind} ${op.payload.transactionId}), first at ${d?.path}:`);
        console.error(`    engine:   ${JSON.stringify(d?.a)}`);
        console.error(`    baseline: ${JSON.stringify(d?.b)}`);
      }
    }
    n += 1;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const counters = { engine: await engine.counters(), baseline: await baseline.counters() };
  const alerts = [await engine.listAlerts(), await baseline.listAlerts()];
  const cases = [await engine.listCases(), await baseline.listCases()];
  const alertDiff = firstDifference(alerts[0], alerts[1]);
  const caseDiff = firstDifference(cases[0], cases[1]);
  if (alertDiff) console.error(`  alerts differ at ${alertDiff.path}: engine ${JSON.stringify(alertDiff.a)}, baseline ${JSON.stringify(alertDiff.b)}`);
  if (caseDiff) console.error(`  cases differ at ${caseDiff.path}: engine ${JSON.stringify(caseDiff.a)}, baseline ${JSON.stringify(caseDiff.b)}`);
  return {
    operations: n,
    mismatches,
    errors,
    seconds: Math.round(seconds * 10) / 10,
    countersEqual: isDeepStrictEqual(counters.engine, counters.baseline),
    alerts: alerts[0].length,
    cases: cases[0].length,
    alertsEqual: alertDiff === null,
    casesEqual: caseDiff === null,
    counters,
  };
}

// ---- timed runs ---------------------------------------------------------------------------

/** Sums the duration of garbage collections (perf_hooks 'gc' entries) while observing. */
function createGcMeter() {
  let totalMs = 0;
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      totalMs += entry.duration;
      count += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    /** Lets pending entries arrive; the totals so far. */
    async read() {
      // GC entries are queued from native code and delivered on a later turn of the event loop.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return { ms: totalMs, count };
    },
    stop() {
      observer.disconnect();
    },
  };
}

/** The next `n` operations of an iterator, as an array (untimed), with their kinds. */
function take(iterator, n) {
  const ops = [];
  for (let i = 0; i < n; i++) {
    const next = iterator.next();
    if (next.done) break;
    ops.push(next.value);
  }
  return { ops, kinds: Uint8Array.from(ops, (op) => (op.kind === 'transaction' ? 0 : 1)) };
}

/**
 * Feeds `subject` the whole stream, one awaited call per operation, a segment at a time (each
 * segment's payloads are made before its clock starts). Returns throughput, latencies, GC and
 * heap, per segment and overall.
 */
async function timedRun(subject, w, s, profiler = null) {
  const stats = {};
  const iterator = w.stream({ seed: s.seed, operations: s.ops }, stats)[Symbol.iterator]();
  const segmentSize = s.segment ?? s.ops;
  const latencies = new Float64Array(s.ops);
  const kindsAll = new Uint8Array(s.ops);
  const segments = [];
  let n = 0;
  let errors = 0;
  let totalNs = 0;
  const gcMeter = createGcMeter();
  let gcBefore = { ms: 0, count: 0 };
  let hitsBefore = 0;
  const heapBeforeRunMb = Math.round(liveHeapMb());
  if (profiler) await profiler.start();
  const cpu0 = process.cpuUsage();
  for (;;) {
    let { ops, kinds } = take(iterator, segmentSize);
    if (ops.length === 0) break;
    const from = n;
    const started = process.hrtime.bigint();
    for (let i = 0; i < ops.length; i++) {
      const t0 = process.hrtime.bigint();
      try {
        if (kinds[i] === 0) await subject.createTransaction(ops[i].payload);
        else await subject.createTransactionEvent(ops[i].payload);
      } catch {
        errors += 1;
      }
      latencies[n] = Number(process.hrtime.bigint() - t0);
      kindsAll[n] = kinds[i];
      n += 1;
    }
    const ns = Number(process.hrtime.bigint() - started);
    totalNs += ns;
    ops = null;
    kinds = null;
    const gc = await gcMeter.read();
    const hits = (await subject.counters()).reduce((sum, c) => sum + c.hits, 0);
    segments.push({
      from,
      to: n,
      hitsPerOp: Math.round(((hits - hitsBefore) * 1000) / (n - from)) / 1000,
      usPerOp: Math.round(ns / 10 / (n - from)) / 100,
      gcUsPerOp: Math.round(((gc.ms - gcBefore.ms) * 100_000) / (n - from)) / 100,
      p99Us: latencyStats(latencies.subarray(from, n)).p99Us,
      heapMb: Math.round(liveHeapMb()),
    });
    gcBefore = gc;
    hitsBefore = hits;
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const profileFile = profiler ? await profiler.stop() : null;
  const gc = await gcMeter.read();
  gcMeter.stop();
  gcNow();
  const retainedHeapMb = liveHeapMb();
  const tx = [];
  const ev = [];
  for (let i = 0; i < n; i++) (kindsAll[i] === 0 ? tx : ev).push(latencies[i]);
  return {
    subject: subject.name,
    operations: n,
    transactions: stats.transactions,
    errors,
    seconds: Math.round(totalNs / 1e6) / 1e3,
    opsPerSec: Math.round(n / (totalNs / 1e9)),
    cpuSeconds: Math.round(cpuSeconds * 1000) / 1000,
    opsPerCpuSec: Math.round(n / cpuSeconds),
    latency: latencyStats(latencies.subarray(0, n)),
    transactionLatency: latencyStats(tx),
    eventLatency: latencyStats(ev),
    gcMs: Math.round(gc.ms),
    gcCount: gc.count,
    gcShare: Math.round((gc.ms / (totalNs / 1e6)) * 1000) / 1000,
    heapBeforeRunMb,
    retainedHeapMb: Math.round(retainedHeapMb),
    segments,
    profileFile,
    counters: await subject.counters(),
    alertTotals: await alertTotals(subject),
  };
}

/**
 * One timed run of subject `name` on a fresh subject: an untimed pass over the first `warmupOps`
 * operations on a throw-away subject (JIT warm-up), the heap back to the clean state, a fresh
 * subject created and a full GC, then {@link timedRun}. Also the heap the subject retains after a
 * full GC, per stored transaction.
 */
async function timeFresh(name, pkg, w, s, o, profiler = null) {
  const configs = w.configs({ alerts: o.alerts });
  gcNow();
  const cleanMb = liveHeapMb();
  {
    const warm = await createSubject(name, pkg, w, configs, o);
    await feed(warm, take(w.stream({ seed: s.seed, operations: Math.min(s.ops, w.warmupOps) })[Symbol.iterator](), Infinity).ops);
    warm.dispose?.();
  }
  await settleHeap(cleanMb + 10);
  const baseMb = liveHeapMb();
  const subject = await createSubject(name, pkg, w, configs, o);
  gcNow();
  const result = await timedRun(subject, w, s, profiler);
  result.bytesPerTransaction = Math.round(((result.retainedHeapMb - baseMb) * 2 ** 20) / Math.max(1, result.transactions));
  subject.dispose?.();
  return result;
}

/**
 * The AML workload's per-rule costs: the engine with the stateless instances alone (`none`), then
 * with each windowed instance beside them, over the whole stream, the runs alternating round by
 * round in this process; each rule's cost is its run's µs per operation minus `none`'s.
 */
async function ruleCosts(pkg, w, s, o, rounds) {
  const configs = w.configs({ alerts: o.alerts });
  const windowed = windowedInstances(configs);
  const stateless = configs.map((_, i) => i).filter((i) => !windowed.includes(i));
  const { ops, kinds } = take(w.stream({ seed: s.seed, operations: s.ops })[Symbol.iterator](), Infinity);
  const subsets = [
    { name: 'none', indexes: stateless },
    ...windowed.map((i) => ({
      name: `${configs[i].id} ${configs[i].request.ruleId ?? 'CUSTOM'} ${configs[i].request.ruleNameAlias ?? ''}`.trim(),
      indexes: [...stateless, i].sort((a, b) => a - b),
    })),
  ];
  const once = async (indexes) => {
    // Ids follow the instances' positions in `configs`, whatever the subset.
    const engine = pkg.createEngine({ ids: sequentialIds() });
    for (const i of indexes) await engine.createRuleInstance(configs[i].request);
    gcNow();
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ops.length; i++) {
      try {
        if (kinds[i] === 0) await engine.createTransaction(ops[i].payload);
        else await engine.createTransactionEvent(ops[i].payload);
      } catch {
        // As in the timed runs.
      }
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1000 / ops.length;
    const cpu = process.cpuUsage(cpu0);
    return { wall, cpu: (cpu.user + cpu.system) / ops.length };
  };
  await once(configs.map((_, i) => i)); // JIT warm-up with every instance
  const samples = subsets.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = subsets.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) samples[i].push(await once(subsets[i].indexes));
  }
  const none = median(samples[0].map((x) => x.wall));
  const noneCpu = median(samples[0].map((x) => x.cpu));
  return subsets.map((subset, i) => ({
    name: subset.name,
    usPerOp: Math.round(median(samples[i].map((x) => x.wall)) * 100) / 100,
    costUs: i === 0 ? 0 : Math.round((median(samples[i].map((x) => x.wall)) - none) * 100) / 100,
    cpuCostUs: i === 0 ? 0 : Math.round((median(samples[i].map((x) => x.cpu)) - noneCpu) * 100) / 100,
  }));
}

// ---- child processes --------------------------------------------------------------------------

/** Prefix of the child's result line (anything else it prints is ignored). */
const RESULT_MARK = 'txmon-bench-result ';

/**
 * One run of `name` (a subject, or `rules`) on `workload` in a child process of its own, so that
 * no other subject (nor anything V8 keeps of one) shares its heap.
 */
function runIsolated(name, workload, o) {
  const s = settingsOf(WORKLOADS[workload], o);
  const args = [
    fileURLToPath(import.meta.url),
    '--child',
    name,
    '--workload',
    workload,
    '--ops',
    String(s.ops),
    '--seed',
    String(s.seed),
    '--dist',
    o.dist,
    '--baseline-logic',
    o.baselineLogic,
    '--rule-rounds',
    String(o.ruleRounds),
  ];
  if (!o.alerts) args.push('--alerts', 'off');
  // The parent's Node flags (heap sizes, --cpu-prof …) apply to the timed run too; the workload's
  // heap limit unless the parent sets one.
  const heap = WORKLOADS[workload].maxOldSpaceMb;
  const nodeFlags =
    heap !== null && !process.execArgv.some((f) => f.startsWith('--max-old-space-size'))
      ? [...process.execArgv, `--max-old-space-size=${heap}`]
      : process.execArgv;
  const out = execFileSync(process.execPath, [...nodeFlags, ...args], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (line === undefined) throw new Error(`the ${name} child printed no result`);
  return JSON.parse(line.slice(RESULT_MARK.length));
}

async function childMain(o) {
  gcNow = exposeGc();
  const pkg = await import(pathToFileURL(o.dist).href);
  const w = WORKLOADS[o.workloads[0]];
  const s = settingsOf(w, o);
  const result = o.child === 'rules' ? await ruleCosts(pkg, w, s, o, o.ruleRounds) : await timeFresh(o.child, pkg, w, s, o);
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(result)}\n`);
}

// ---- output -------------------------------------------------------------------------------

function pad(s, n, right = false) {
  const t = String(s);
  return right ? t.padStart(n) : t.padEnd(n);
}

function printTable(rows) {
  const header = [
    'subject',
    'ops/s',
    'ops/cpu-s',
    'mean µs',
    'p50 µs',
    'p99 µs',
    'p99.9 µs',
    'max µs',
    'tx p50/p99',
    'event p50/p99',
    'GC %',
    'heap MB',
    'B/tx',
  ];
  const widths = [12, 8, 9, 8, 8, 8, 9, 9, 16, 16, 5, 8, 7];
  console.log(header.map((h, i) => pad(h, widths[i], i > 0)).join('  '));
  for (const r of rows) {
    const cells = [
      r.subject,
      r.opsPerSec,
      r.opsPerCpuSec,
      r.latency.meanUs,
      r.latency.p50Us,
      r.latency.p99Us,
      r.latency.p999Us,
      r.latency.maxUs,
      `${r.transactionLatency.p50Us}/${r.transactionLatency.p99Us}`,
      `${r.eventLatency.p50Us}/${r.eventLatency.p99Us}`,
      Math.round(r.gcShare * 100),
      r.retainedHeapMb,
      r.bytesPerTransaction,
    ];
    console.log(cells.map((c, i) => pad(c, widths[i], i > 0)).join('  '));
  }
}

function printSegments(rows) {
  console.log(`${pad('segment', 18)} ${rows.map((r) => pad(`${r.subject} µs/op  GC µs/op  p99 µs  heap MB  hits/op`, 49, true)).join('  ')}`);
  const segments = rows[0].segments;
  for (let i = 0; i < segments.length; i++) {
    const cells = rows.map((r) => {
      const g = r.segments[i];
      return pad(
        `${g.usPerOp.toFixed(2)}  ${pad(g.gcUsPerOp.toFixed(2), 8, true)}  ${pad(g.p99Us, 6, true)}  ${pad(g.heapMb, 7, true)}  ${pad(g.hitsPerOp.toFixed(2), 7, true)}`,
        49,
        true,
      );
    });
    console.log(`${pad(`${segments[i].from}–${segments[i].to}`, 18)} ${cells.join('  ')}`);
  }
}

function printCounters(configs, engine, baseline) {
  console.log(`${pad('instance', 9)} ${pad('rule', 6)} ${pad('name', 38)} ${pad('engine hits', 12, true)} ${pad('baseline hits', 14, true)}`);
  for (let i = 0; i < configs.length; i++) {
    const c = configs[i];
    const e = engine?.[i];
    const b = baseline?.[i];
    const name = c.request.ruleNameAlias ?? c.request.ruleId ?? 'custom';
    const flag = e && b && (e.hits !== b.hits || e.runs !== b.runs) ? '  <-- DIFFERENT' : '';
    console.log(
      `${pad(c.id, 9)} ${pad(c.request.ruleId ?? 'CUSTOM', 6)} ${pad(name.slice(0, 38), 38)} ${pad(e?.hits ?? '-', 12, true)} ${pad(b?.hits ?? '-', 14, true)}${flag}`,
    );
  }
}

// ---- profile mode -------------------------------------------------------------------------

/** A CPU profiler on this process (node:inspector), so only the timed section is sampled. */
function createProfiler() {
  const session = new Session();
  session.connect();
  const post = (method, params = {}) =>
    new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  return {
    async start() {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
    },
    /** Stops and writes the profile; returns its path. */
    async stop() {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'txmon-bench-prof-')), 'engine.cpuprofile');
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

// ---- main ---------------------------------------------------------------------------------

async function runWorkload(pkg, w, o) {
  const s = settingsOf(w, o);
  const configs = w.configs({ alerts: o.alerts });
  const out = {
    name: w.name,
    title: w.title,
    instances: w.instances,
    settings: s,
    verification: null,
    rounds: [],
    median: {},
    ratio: null,
    comparison: null,
    ruleCosts: null,
  };
  console.log(`\n=== ${w.title}; ${s.ops} operations${s.segment ? ` in segments of ${s.segment}` : ''}, seed ${s.seed}`);
  console.log(`instances: ${w.instances}; alerts ${o.alerts ? 'on (the default)' : 'off'}`);

  if (o.verify) {
    const v = await verify(pkg, w, s, o);
    out.verification = { ...v, counters: undefined };
    const ok = v.mismatches === 0 && v.countersEqual && v.alertsEqual && v.casesEqual;
    console.log(
      `verification: ${v.operations} operations, ${v.mismatches} mismatches, ${v.errors} rejected operations (same on both), counters ${v.countersEqual ? 'equal' : 'DIFFERENT'}, ` +
        `${v.alerts} alerts ${v.alertsEqual ? 'equal' : 'DIFFERENT'}, ${v.cases} cases ${v.casesEqual ? 'equal' : 'DIFFERENT'} (${v.seconds} s)`,
    );
    if (!ok) {
      printCounters(configs, v.counters.engine, v.counters.baseline);
      console.error('verification FAILED: the comparison would not be honest; fix the baseline or the engine first.');
      process.exitCode = 1;
      return out;
    }
  }
  if (o.verifyOnly) return out;

  const subjects = o.engineOnly ? ['engine'] : o.baselineOnly ? ['baseline'] : ['engine', 'baseline'];
  const profiler = o.profile ? createProfiler() : null;
  for (let round = 1; round <= s.rounds; round++) {
    const order = round % 2 === 1 ? subjects : [...subjects].reverse();
    const row = {};
    for (const name of order) row[name] = o.isolate ? runIsolated(name, w.name, o) : await timeFresh(name, pkg, w, s, o, name === 'engine' ? profiler : null);
    out.rounds.push(row);
    console.log(`round ${round}: ${subjects.map((n) => `${n} ${row[n].opsPerSec} ops/s (p99 ${row[n].latency.p99Us} µs)`).join('; ')}`);
  }
  for (const name of subjects) {
    const m = median(out.rounds.map((r) => r[name].opsPerSec));
    out.median[name] = out.rounds.find((r) => r[name].opsPerSec === m)[name];
  }
  if (o.comparison && w.name === 'today') {
    out.comparison = o.isolate ? runIsolated('baseline-jl', w.name, o) : await timeFresh('baseline-jl', pkg, w, s, o);
  }
  const rows = subjects.map((n) => out.median[n]);
  if (out.comparison) rows.push(out.comparison);
  console.log(
    `median of ${s.rounds} round(s) (latency per awaited call, µs; heap after a full GC, subject alive; B/tx: that heap over the stored transactions, workload excluded):`,
  );
  printTable(rows);
  if (out.comparison) console.log('(baseline-jl: the same baseline with its custom rules through json-logic-js, one run — a comparison only)');
  if (s.segment) printSegments(subjects.map((n) => out.median[n]));

  const e = out.median.engine;
  const b = out.median.baseline;
  if (e && b) {
    out.ratio = Math.round((e.opsPerSec / b.opsPerSec) * 1000) / 1000;
    // Each round runs both subjects back to back: its own ratio is what host speed changes across
    // the run disturb least (the medians above may come from different rounds).
    out.roundRatios = out.rounds.map((r) => Math.round((r.engine.opsPerSec / r.baseline.opsPerSec) * 1000) / 1000);
    out.cpuRatio = Math.round((e.opsPerCpuSec / b.opsPerCpuSec) * 1000) / 1000;
    out.countersEqual = out.rounds.every((r) => isDeepStrictEqual(r.engine.counters, r.baseline.counters));
    out.alertsEqual = out.rounds.every((r) => isDeepStrictEqual(r.engine.alertTotals, r.baseline.alertTotals));
    console.log(
      `ratio engine / baseline: ${out.ratio.toFixed(3)}x wall clock, ${out.cpuRatio.toFixed(3)}x per CPU-second; ` +
        `hits per instance ${out.countersEqual ? 'equal' : 'DIFFERENT'} in every timed run; alerts ${e.alertTotals.alerts} (${e.alertTotals.listed} transactions listed), cases ${e.alertTotals.cases}: ${out.alertsEqual ? 'equal' : 'DIFFERENT'}`,
    );
    if (out.roundRatios.length > 1)
      console.log(`ratio of each round (engine and baseline back to back): ${out.roundRatios.map((r) => r.toFixed(3)).join(', ')}`);
    if (!out.countersEqual || !out.alertsEqual) {
      printCounters(configs, e.counters, b.counters);
      process.exitCode = 1;
    }
  }
  if (e && e.segments.length > 1) {
    out.drift = Math.round((e.segments[e.segments.length - 1].usPerOp / e.segments[0].usPerOp) * 1000) / 1000;
    console.log(`engine µs/op, last segment / first: ${out.drift.toFixed(3)}`);
    // The stream's first segments are its windows filling (few hits per operation); the first
    // segment with the last one's hit rate (within 10%) separates what history costs from that.
    const last = e.segments[e.segments.length - 1];
    const steady = e.segments.find((g) => g.hitsPerOp >= last.hitsPerOp * 0.9);
    if (steady && steady !== last) {
      out.steadyDrift = { from: steady.from, ratio: Math.round((last.usPerOp / steady.usPerOp) * 1000) / 1000 };
      console.log(
        `hits per operation: ${e.segments[0].hitsPerOp.toFixed(2)} in the first segment, ${last.hitsPerOp.toFixed(2)} in the last; ` +
          `last segment / first at that hit rate (${steady.from}–${steady.to}, ${steady.hitsPerOp.toFixed(2)}): ${out.steadyDrift.ratio.toFixed(3)}`,
      );
    }
  }
  if (o.rules && w.name === 'aml') {
    console.log(
      `\nper-rule cost (engine, ${o.ruleRounds} round(s), whole stream): each windowed instance beside the ${configs.length - windowedInstances(configs).length} stateless ones, minus those alone`,
    );
    out.ruleCosts = o.isolate ? runIsolated('rules', w.name, o) : await ruleCosts(pkg, w, s, o, o.ruleRounds);
    console.log(`${pad('instance', 44)} ${pad('µs/op', 8, true)} ${pad('cost µs/op', 11, true)} ${pad('cpu µs/op', 10, true)}`);
    for (const r of out.ruleCosts)
      console.log(`${pad(r.name, 44)} ${pad(r.usPerOp.toFixed(2), 8, true)} ${pad(r.costUs.toFixed(2), 11, true)} ${pad(r.cpuCostUs.toFixed(2), 10, true)}`);
  }
  if (o.profile && e?.profileFile) {
    console.log(`\nCPU profile of the timed engine run: ${e.profileFile}`);
    console.log(formatProfileSummary(summarizeProfile(e.profileFile, { top: 25 })));
  }
  return out;
}

function printSummary(results) {
  const met = (ok) => (ok ? 'met' : 'NOT met');
  console.log(
    `\n=== summary (targets: engine ≥ ${TARGETS.ratio}x the baseline, goal ${TARGETS.ratioGoal}x; p99 ≤ ${TARGETS.p99Us} µs; long: last segment ≤ ${TARGETS.longDrift}x the first)`,
  );
  console.log(
    `${pad('workload', 9)} ${pad('engine ops/s', 13, true)} ${pad('baseline ops/s', 15, true)} ${pad('ratio', 7, true)} ${pad('p99 µs', 8, true)} ${pad('B/tx', 7, true)}  targets`,
  );
  for (const r of results) {
    const e = r.median.engine;
    const b = r.median.baseline;
    if (!e) continue;
    const checks = [];
    if (r.ratio !== null) checks.push(`ratio ${met(r.ratio >= TARGETS.ratio)}${r.ratio >= TARGETS.ratioGoal ? ' (goal met)' : ''}`);
    checks.push(`p99 ${met(e.latency.p99Us <= TARGETS.p99Us)}`);
    if (r.drift !== undefined) checks.push(`drift ${r.drift.toFixed(2)} ${met(r.drift <= TARGETS.longDrift)}`);
    console.log(
      `${pad(r.name, 9)} ${pad(e.opsPerSec, 13, true)} ${pad(b?.opsPerSec ?? '-', 15, true)} ${pad(r.ratio?.toFixed(2) ?? '-', 7, true)} ${pad(e.latency.p99Us, 8, true)} ${pad(e.bytesPerTransaction, 7, true)}  ${checks.join(', ')}`,
    );
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.child !== null) return childMain(o);
  gcNow = exposeGc();
  const pkg = await import(pathToFileURL(o.dist).href);
  const env = {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    dist: path.relative(process.cwd(), o.dist) || o.dist,
  };
  console.log(`txmon benchmark — ${env.date}`);
  console.log(`node ${env.node} (V8 ${env.v8}), ${env.cpu}, ${env.cores} cores, ${env.memoryGb} GB, ${env.platform}`);
  console.log(`load average at start: ${env.loadAverage.join(' ')} (other processes on the machine add noise)`);
  console.log(
    `baseline: hand-written, custom logic ${o.baselineLogic === 'inline' ? 'as plain JavaScript' : 'through json-logic-js'}; timed runs ${o.isolate ? 'each in a child process of its own' : 'in this process'}`,
  );
  const started = Date.now();
  const results = [];
  for (const name of o.workloads) {
    results.push(await runWorkload(pkg, WORKLOADS[name], o));
    if (process.exitCode === 1) break;
  }
  printSummary(results);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  console.log(`\ntotal ${seconds} s`);
  if (o.json !== '-') {
    mkdirSync(path.dirname(path.resolve(o.json)), { recursive: true });
    writeFileSync(path.resolve(o.json), `${JSON.stringify({ env, options: { ...o, json: undefined }, workloads: results, totalSeconds: seconds }, null, 2)}\n`);
    console.log(`results written to ${path.relative(process.cwd(), path.resolve(o.json))}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
