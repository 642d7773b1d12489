#!/usr/bin/env node
/**
 * `npm run bench`: the hot-path benchmark. Runs the same deterministic stream of transactions and
 * events through the engine (memory repositories, 20 live instances) and through the hand-written
 * baseline, checks that both give the same answers, then times both in alternating rounds and
 * prints throughput, latency percentiles and the ratio engine / baseline.
 *
 * Options (all optional):
 *   --ops N              operations per run (default 50000)
 *   --rounds N           timed rounds, each running engine and baseline once (default 3)
 *   --seed N             workload seed (default 20250131)
 *   --engine-only        time the engine only (no verification, no baseline), e.g. for --cpu-prof
 *                        (Node flags reach the timed runs' child processes: each writes its own
 *                        profile; with --in-process there is one)
 *   --baseline-only      time the baseline only
 *   --baseline-logic L   custom rules in the baseline: json-logic-js (default) or inline
 *   --alerts             instances create alerts and cases on hits (default off; see README)
 *   --no-verify          skip the response-by-response comparison pass
 *   --no-breakdown       skip the per-stage breakdown
 *   --dist PATH          the built package to load (default ../dist/internals.js)
 *   --json PATH          where to write the results (default bench/results/latest.json; "-" for none)
 *   --profile            CPU-profile the timed engine round only (implies --engine-only --rounds 1
 *                        --no-breakdown --in-process), write the .cpuprofile to the temp dir and print
 *                        the top self-time and inclusive-time functions (mapped to src/ through the
 *                        source map)
 *   --in-process         time every subject in this process instead of one child process per timed
 *                        run (faster; a subject kept alive by V8 can then skew the next run, which
 *                        the run detects and reports)
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
import { createInstanceConfigs, generateWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

// ---- options --------------------------------------------------------------------------------

function parseArgs(argv) {
  const o = {
    ops: WORKLOAD_DEFAULTS.operations,
    rounds: 3,
    seed: WORKLOAD_DEFAULTS.seed,
    engineOnly: false,
    baselineOnly: false,
    baselineLogic: 'json-logic-js',
    alerts: false,
    verify: true,
    breakdown: true,
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
      case '--ops': o.ops = Number(value()); break;
      case '--rounds': o.rounds = Number(value()); break;
      case '--seed': o.seed = Number(value()); break;
      case '--engine-only': o.engineOnly = true; break;
      case '--baseline-only': o.baselineOnly = true; break;
      case '--baseline-logic': o.baselineLogic = value(); break;
      case '--alerts': o.alerts = true; break;
      case '--no-verify': o.verify = false; break;
      case '--no-breakdown': o.breakdown = false; break;
      case '--dist': o.dist = path.resolve(value()); break;
      case '--json': o.json = value(); break;
      case '--profile': o.profile = true; break;
      case '--in-process': o.isolate = false; break;
      // Internal: the child process of one isolated timed run (see runIsolated).
      case '--child': o.child = value(); break;
      default: throw new Error(`unknown option ${a} (see the header of bench/run.mjs)`);
    }
  }
  if (!(o.ops > 0 && Number.isInteger(o.ops))) throw new Error('--ops must be a positive integer');
  if (!(o.rounds > 0 && Number.isInteger(o.rounds))) throw new Error('--rounds must be a positive integer');
  if (!['json-logic-js', 'inline'].includes(o.baselineLogic)) throw new Error('--baseline-logic must be json-logic-js or inline');
  if (o.engineOnly && o.baselineOnly) throw new Error('--engine-only and --baseline-only exclude each other');
  if (o.profile) {
    if (o.baselineOnly) throw new Error('--profile profiles the engine; drop --baseline-only');
    o.engineOnly = true;
    o.rounds = 1;
    o.breakdown = false;
    o.isolate = false;
    if (!argv.includes('--json')) o.json = '-';
  }
  if (o.engineOnly || o.baselineOnly) o.verify = false;
  if (o.child !== null && o.child !== 'engine' && o.child !== 'baseline') throw new Error('--child must be engine or baseline');
  return o;
}

/** A full garbage collection (between runs, never inside a timed loop). */
let gcNow = () => {};

/** A `gc()` function without needing `--expose-gc` on the command line. */
function exposeGc() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
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

// ---- the two subjects ---------------------------------------------------------------------

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

async function createEngineSubject(pkg, configs) {
  let engine = pkg.createEngine({ ids: sequentialIds() });
  for (const { id, request } of configs) {
    const created = await engine.createRuleInstance(request);
    if (created.id !== id) throw new Error(`expected instance id ${id}, got ${created.id}`);
  }
  return {
    name: 'engine',
    engine,
    createTransaction: (p) => engine.createTransaction(p),
    createTransactionEvent: (p) => engine.createTransactionEvent(p),
    async counters() {
      return (await engine.listRuleInstances()).map((i) => ({ id: i.id, runs: i.runCount, hits: i.hitCount }));
    },
    /** Lets go of the engine (the harness calls it after a timed run). */
    dispose() {
      engine = null;
    },
  };
}

function createBaselineSubject(pkg, configs, logic) {
  const baseline = createBaseline(pkg, configs, { logic });
  return {
    name: 'baseline',
    createTransaction: baseline.createTransaction,
    createTransactionEvent: baseline.createTransactionEvent,
    async counters() {
      return baseline.counters();
    },
    dispose: baseline.dispose,
  };
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

/** The first place two JSON-like values differ, as `{ path, a, b }`, or null when deep-equal. */
function firstDifference(a, b, path = '') {
  if (isDeepStrictEqual(a, b)) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return { path: path || '/', a, b };
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const d = firstDifference(a[k], b[k], `${path}/${k}`);
    if (d) return d;
  }
  return { path: path || '/', a, b };
}

async function verify(pkg, configs, operations, logic) {
  const engine = await createEngineSubject(pkg, configs);
  const baseline = createBaselineSubject(pkg, configs, logic);
  let mismatches = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < operations.length; i++) {
    const op = operations[i];
    const a = await outcomeOf(engine, op);
    const b = await outcomeOf(baseline, op);
    if (!a.ok) errors += 1;
    const same = a.ok === b.ok && (a.ok ? isDeepStrictEqual(a.value, b.value) : a.code === b.code);
    if (!same) {
      mismatches += 1;
      if (mismatches <= 3) {
        const d = firstDifference(a.ok ? a.value : { error: a.code }, b.ok ? b.value : { error: b.code });
        console.error(`  MISMATCH at operation ${i} (${op.kind} ${op.payload.transactionId}), first at ${d?.path}:`);
        console.error(`    engine:   ${JSON.stringify(d?.a)}`);
        console.error(`    baseline: ${JSON.stringify(d?.b)}`);
      }
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const counters = { engine: await engine.counters(), baseline: await baseline.counters() };
  return { operations: operations.length, mismatches, errors, seconds, counters };
}

// ---- timed runs ---------------------------------------------------------------------------

/** Sums the duration of garbage collections (perf_hooks 'gc' entries) between start and stop. */
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
    /** Lets pending entries arrive, disconnects and returns the totals. */
    async stop() {
      // GC entries are queued from native code and delivered on a later turn of the event loop.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      observer.disconnect();
      return { ms: Math.round(totalMs), count };
    },
  };
}

async function timedRun(subject, operations, kinds, profiler = null) {
  const n = operations.length;
  const latencies = new Float64Array(n);
  let errors = 0;
  if (profiler) await profiler.start();
  const heapBeforeRunMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  const gcMeter = createGcMeter();
  const cpu0 = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const op = operations[i];
    const t0 = process.hrtime.bigint();
    try {
      if (kinds[i] === 0) await subject.createTransaction(op.payload);
      else await subject.createTransactionEvent(op.payload);
    } catch {
      errors += 1;
    }
    latencies[i] = Number(process.hrtime.bigint() - t0);
  }
  const totalNs = Number(process.hrtime.bigint() - started);
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const gcTime = await gcMeter.stop();
  const profileFile = profiler ? await profiler.stop() : null;
  const heapAfterRunMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  gcNow();
  const retainedHeapMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  const tx = [];
  const ev = [];
  for (let i = 0; i < n; i++) (kinds[i] === 0 ? tx : ev).push(latencies[i]);
  return {
    subject: subject.name,
    operations: n,
    errors,
    seconds: Math.round(totalNs / 1e6) / 1e3,
    opsPerSec: Math.round(n / (totalNs / 1e9)),
    cpuSeconds: Math.round(cpuSeconds * 1000) / 1000,
    opsPerCpuSec: Math.round(n / cpuSeconds),
    latency: latencyStats(latencies),
    transactions: latencyStats(tx),
    events: latencyStats(ev),
    gcMs: gcTime.ms,
    gcCount: gcTime.count,
    gcShare: Math.round((gcTime.ms / (totalNs / 1e6)) * 1000) / 1000,
    heapBeforeRunMb,
    heapAfterRunMb,
    retainedHeapMb,
    profileFile,
    counters: await subject.counters(),
  };
}

// ---- breakdown: the engine's exported pure stages in a micro-loop -----------------------------

function createStageClock(names) {
  const totals = new Map(names.map((n) => [n, 0n]));
  return {
    add(name, since) {
      const now = process.hrtime.bigint();
      totals.set(name, totals.get(name) + (now - since));
      return now;
    },
    totals,
  };
}

async function breakdown(pkg, configs, operations) {
  const probe = await createEngineSubject(pkg, configs);
  const stored = await probe.engine.listRuleInstances();
  const registry = pkg.createRuleRegistry();
  const instances = stored.map((instance) => ({
    instance,
    rule: instance.ruleId === 'CUSTOM' ? null : registry.get(instance.ruleId),
    logic: instance.ruleId === 'CUSTOM' ? pkg.compileLogic(instance.logic, { basePath: '/logic', aggregationVariableKeys: [] }) : null,
    filter: null,
  }));
  const money = { rates: pkg.createFixedRateProvider(), baseCurrency: 'USD' };
  // The series the engine keeps for these instances (D-125): those their rules read.
  const allSeries = new Set(instances.flatMap((i) => i.rule?.series ?? []));
  const validate = pkg.createValidator(pkg.TransactionSchema, { what: 'transaction' });
  const payloads = operations.filter((o) => o.kind === 'transaction').map((o) => o.payload);
  const stages = ['assertSafeJson', 'validate (ajv + safe-json)', 'contributionsOf', 'collectAggregateNeeds', 'aggregate queries', 'snapshot + merge', 'evaluateRuleInstances', 'aggregate apply'];

  const pass = () => {
    const store = pkg.createAggregateStore();
    const clock = createStageClock(stages);
    for (const payload of payloads) {
      let t = process.hrtime.bigint();
      pkg.assertSafeJson(payload);
      t = clock.add(stages[0], t);
      const transaction = validate(payload);
      t = clock.add(stages[1], t);
      const current = pkg.contributionsOf(transaction, allSeries, money);
      t = clock.add(stages[2], t);
      const input = { transaction, instances, originUser: null, destinationUser: null, money, defaultRiskLevel: 'VERY_HIGH' };
      const needs = pkg.collectAggregateNeeds(input);
      t = clock.add(stages[3], t);
      const queries = [];
      for (const need of needs) {
        if (need.key === null) continue;
        const q = { series: need.series, key: need.key, start: need.start, end: need.end, fn: need.fn, excludeId: transaction.transactionId };
        if (need.field !== undefined) q.field = need.field;
        queries.push(q);
      }
      const values = store.queryMany(queries);
      t = clock.add(stages[4], t);
      const snapshot = new Map();
      let qi = 0;
      for (const need of needs) {
        if (need.key === null) continue;
        snapshot.set(pkg.aggregateNeedKey(need), pkg.mergeCurrentContribution(need, values[qi++] ?? null, current));
      }
      t = clock.add(stages[5], t);
      pkg.evaluateRuleInstances(input, snapshot);
      t = clock.add(stages[6], t);
      store.apply([], current);
      clock.add(stages[7], t);
    }
    return clock.totals;
  };
  pass(); // warm-up
  const totals = pass();
  const out = {};
  for (const [name, ns] of totals) out[name] = Math.round(Number(ns) / payloads.length / 10) / 100;
  return { transactions: payloads.length, meanUsPerTransaction: out };
}

// ---- output -------------------------------------------------------------------------------

function pad(s, n, right = false) {
  const t = String(s);
  return right ? t.padStart(n) : t.padEnd(n);
}

function printTable(rows) {
  const header = ['subject', 'ops/s', 'ops/cpu-s', 'mean µs', 'p50 µs', 'p99 µs', 'p99.9 µs', 'max µs', 'tx p50/p99', 'event p50/p99', 'GC %', 'heap MB'];
  const widths = [10, 8, 9, 8, 8, 8, 9, 9, 16, 16, 5, 8];
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
      `${r.transactions.p50Us}/${r.transactions.p99Us}`,
      `${r.events.p50Us}/${r.events.p99Us}`,
      Math.round(r.gcShare * 100),
      r.retainedHeapMb,
    ];
    console.log(cells.map((c, i) => pad(c, widths[i], i > 0)).join('  '));
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
    console.log(`${pad(c.id, 9)} ${pad(c.request.ruleId ?? 'CUSTOM', 6)} ${pad(name.slice(0, 38), 38)} ${pad(e?.hits ?? '-', 12, true)} ${pad(b?.hits ?? '-', 14, true)}${flag}`);
  }
}

function sameCounters(a, b) {
  return isDeepStrictEqual(a, b);
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

/** Live heap in MB (after whatever GC last ran). */
const liveHeapMb = () => process.memoryUsage().heapUsed / 2 ** 20;

/**
 * Waits until the live heap is back under `limitMb`: full GCs 50 ms apart, at most ~2 s. A
 * subject just disposed can stay reachable for a moment (it was seen to survive a GC right after
 * its run and to be gone after a 100 ms pause), and its 100–200 MB would otherwise be marked by
 * every GC of the next timed run.
 */
async function settleHeap(limitMb) {
  await new Promise((resolve) => setImmediate(resolve));
  gcNow();
  for (let tries = 0; tries < 40 && liveHeapMb() > limitMb; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    gcNow();
  }
}

/**
 * One timed run of `name` in a child process of its own, so that no other subject (nor anything
 * V8 keeps of one) shares its heap: the child builds the same workload, runs the whole stream once
 * on a throw-away subject (JIT warm-up), then times a fresh subject exactly as in-process rounds do.
 */
function runIsolated(name, o) {
  const args = [fileURLToPath(import.meta.url), '--child', name, '--ops', String(o.ops), '--seed', String(o.seed), '--dist', o.dist, '--baseline-logic', o.baselineLogic];
  if (o.alerts) args.push('--alerts');
  // The parent's Node flags (heap sizes, --cpu-prof …) apply to the timed run too.
  const out = execFileSync(process.execPath, [...process.execArgv, ...args], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (line === undefined) throw new Error(`the ${name} child printed no result`);
  return JSON.parse(line.slice(RESULT_MARK.length));
}

/** Prefix of the child's result line (anything else it prints is ignored). */
const RESULT_MARK = 'txmon-bench-result ';

/** The child side of {@link runIsolated}: prints the timed run's results as one JSON line. */
async function childMain(o) {
  const gc = exposeGc();
  gcNow = gc;
  const pkg = await import(pathToFileURL(o.dist).href);
  const { operations } = generateWorkload({ seed: o.seed, operations: o.ops });
  const kinds = Uint8Array.from(operations, (op) => (op.kind === 'transaction' ? 0 : 1));
  const configs = createInstanceConfigs({ alerts: o.alerts });
  gc();
  const cleanMb = liveHeapMb();
  const run = () => timeFresh(o.child, { pkg, configs, logic: o.baselineLogic, operations, kinds, cleanMb });
  await run(); // JIT warm-up on a throw-away subject
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(await run())}\n`);
}

/**
 * Times a fresh subject `name` over the whole stream: waits until the live heap is back to
 * `cleanMb` (the workload's), creates the subject (not timed), runs a full GC, times it, and
 * disposes it. The subject lives in this call's frame only, so nothing else holds it afterwards.
 */
async function timeFresh(name, { pkg, configs, logic, operations, kinds, cleanMb, profiler = null }) {
  await settleHeap(cleanMb + 20);
  const subject = name === 'engine' ? await createEngineSubject(pkg, configs) : createBaselineSubject(pkg, configs, logic);
  gcNow();
  const result = await timedRun(subject, operations, kinds, profiler);
  subject.dispose?.();
  return result;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.child !== null) return childMain(o);
  const gc = exposeGc();
  gcNow = gc;
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
  console.log(`txmon hot-path benchmark — ${env.date}`);
  console.log(`node ${env.node} (V8 ${env.v8}), ${env.cpu}, ${env.cores} cores, ${env.memoryGb} GB, ${env.platform}`);
  console.log(`load average at start: ${env.loadAverage.join(' ')} (other processes on the machine add noise)`);

  const started = Date.now();
  const { operations, stats } = generateWorkload({ seed: o.seed, operations: o.ops });
  const kinds = Uint8Array.from(operations, (op) => (op.kind === 'transaction' ? 0 : 1));
  const configs = createInstanceConfigs({ alerts: o.alerts });
  gc();
  // The live heap of the workload alone: every timed run should start on it (settleHeap).
  const cleanMb = liveHeapMb();
  console.log(
    `workload: ${stats.operations} operations = ${stats.transactions} transactions + ${stats.events} events (${stats.amountUpdates} amount updates), ` +
      `${stats.users} users, ${Math.round(stats.simulatedSeconds / 360) / 10} h simulated; seed ${o.seed}`,
  );
  if (o.alerts && !o.engineOnly) console.log('note: --alerts makes the engine create alerts and cases, which the baseline does not: the ratio is then not like-for-like');
  console.log(`instances: ${configs.length} live (15 stateless: R-2 ×5, R-14 ×4, custom ×6; 5 windowed: R-1, R-30 1h/1d, R-69 1d/calendar month); alerts ${o.alerts ? 'on' : 'off'}; baseline logic: ${o.baselineLogic}`);

  console.log(
    o.isolate
      ? 'timed runs: each in a child process of its own (same workload; one untimed pass on a throw-away subject first, then a fresh subject timed)'
      : 'timed runs: in this process, each subject created, timed and disposed in turn',
  );
  const results = { env, options: { ...o, json: undefined }, workload: stats, verification: null, rounds: [], median: {}, ratio: null, breakdown: null };

  // 1. Verification pass (also the JIT warm-up of both subjects).
  if (o.verify) {
    console.log('\nverification: every response of the engine and the baseline must be deep-equal …');
    const v = await verify(pkg, configs, operations, o.baselineLogic);
    results.verification = { operations: v.operations, mismatches: v.mismatches, errors: v.errors, seconds: Math.round(v.seconds * 10) / 10 };
    const countersEqual = sameCounters(v.counters.engine, v.counters.baseline);
    console.log(`  ${v.operations} operations, ${v.mismatches} mismatches, ${v.errors} rejected operations (same on both), counters ${countersEqual ? 'equal' : 'DIFFERENT'} (${results.verification.seconds} s)`);
    if (v.mismatches > 0 || !countersEqual) {
      printCounters(configs, v.counters.engine, v.counters.baseline);
      console.error('verification FAILED: the comparison would not be honest; fix the baseline or the engine first.');
      process.exitCode = 1;
      return;
    }
  } else if (!o.isolate) {
    // Warm-up without comparison: a shorter run of each subject on the same stream.
    const warm = operations.slice(0, Math.min(operations.length, 10_000));
    const warmKinds = kinds.subarray(0, warm.length);
    if (!o.baselineOnly) await timedRun(await createEngineSubject(pkg, configs), warm, warmKinds);
    if (!o.engineOnly) await timedRun(createBaselineSubject(pkg, configs, o.baselineLogic), warm, warmKinds);
  }

  /** A new subject of `name`, timed over the whole stream after a full GC (heap: the workload only). */
  const timeFreshSubject = (name) =>
    timeFresh(name, { pkg, configs, logic: o.baselineLogic, operations, kinds, cleanMb, profiler: o.profile && name === 'engine' ? createProfiler() : null });

  // 2. Timed rounds, alternating which subject goes first.
  const subjects = o.engineOnly ? ['engine'] : o.baselineOnly ? ['baseline'] : ['engine', 'baseline'];
  for (let round = 1; round <= o.rounds; round++) {
    const order = round % 2 === 1 ? subjects : [...subjects].reverse();
    const row = {};
    for (const name of order) {
      // The subject lives in its own async frame and drops its state after its run: a subject
      // still alive during the next subject's timed run (as a local of this loop, or through
      // V8 keeping a closure reachable) gave that run 108–215 MB of foreign live heap to mark.
      // Default: each timed run in a child process of its own (runIsolated).
      row[name] = o.isolate ? runIsolated(name, o) : await timeFreshSubject(name);
    }
    gc();
    results.rounds.push(row);
    console.log(`round ${round}: ${subjects.map((s) => `${s} ${row[s].opsPerSec} ops/s, ${row[s].opsPerCpuSec} ops/cpu-s (p99 ${row[s].latency.p99Us} µs)`).join('; ')}`);
  }
  // Every timed run should start on the workload's heap alone (see timeFreshSubject).
  const startHeaps = results.rounds.flatMap((r) => subjects.map((s) => r[s].heapBeforeRunMb));
  const cleanHeap = Math.min(...startHeaps);
  results.rounds.forEach((r, i) => {
    for (const s of subjects) {
      if (r[s].heapBeforeRunMb > cleanHeap + 20) console.warn(`warning: round ${i + 1}, ${s} started with ${r[s].heapBeforeRunMb} MB live (others ${cleanHeap} MB): a previous subject was still alive`);
    }
  });
  for (const name of subjects) {
    const m = median(results.rounds.map((r) => r[name].opsPerSec));
    results.median[name] = results.rounds.find((r) => r[name].opsPerSec === m)[name];
  }

  console.log(`\nmedian of ${o.rounds} round(s), ${o.ops} operations each (latency per awaited call, µs):`);
  printTable(subjects.map((s) => results.median[s]));
  if (results.median.engine && results.median.baseline) {
    const e = results.median.engine;
    const b = results.median.baseline;
    results.ratio = Math.round((e.opsPerSec / b.opsPerSec) * 1000) / 1000;
    results.cpuRatio = Math.round((e.opsPerCpuSec / b.opsPerCpuSec) * 1000) / 1000;
    console.log(`\nratio engine / baseline (throughput): ${results.ratio.toFixed(3)}x wall clock, ${results.cpuRatio.toFixed(3)}x per CPU-second`);
    const met = (ok) => (ok ? 'met' : 'NOT met');
    console.log(
      `targets: engine ≥ 40000 ops/s per core: ${met(e.opsPerSec >= 40_000)} (${e.opsPerSec} wall, ${e.opsPerCpuSec} per CPU-s); ` +
        `p99 ≤ 100 µs: ${met(e.latency.p99Us <= 100)} (${e.latency.p99Us}); ≥ 0.8x baseline: ${met(results.ratio >= 0.8)} (${results.ratio})`,
    );
    console.log('\nhit counts of the timed runs (must be equal):');
    printCounters(configs, e.counters, b.counters);
    const equal = sameCounters(e.counters, b.counters);
    results.countersEqual = equal;
    console.log(`runs and hits per instance: ${equal ? 'EQUAL' : 'DIFFERENT'}`);
    if (!equal) process.exitCode = 1;
  } else {
    const only = results.median[subjects[0]];
    console.log('\nhit counts:');
    printCounters(configs, subjects[0] === 'engine' ? only.counters : null, subjects[0] === 'baseline' ? only.counters : null);
  }
  const errorsSeen = subjects.some((s) => results.median[s].errors > 0);
  if (errorsSeen) console.log(`note: rejected operations in the timed runs: ${subjects.map((s) => `${s} ${results.median[s].errors}`).join(', ')}`);

  // 3. Breakdown of the engine's pure stages.
  if (o.breakdown && !o.baselineOnly) {
    gc();
    results.breakdown = await breakdown(pkg, configs, operations);
    const stages = results.breakdown.meanUsPerTransaction;
    const engineTx = results.median.engine.transactions.meanUs;
    let sum = 0;
    console.log(`\nbreakdown: mean µs per transaction of the engine's exported stages, in a micro-loop over the ${results.breakdown.transactions} transactions:`);
    for (const [name, us] of Object.entries(stages)) {
      sum += us;
      console.log(`  ${pad(name, 28)} ${pad(us.toFixed(2), 7, true)} µs  ${pad(((us / engineTx) * 100).toFixed(1), 5, true)} %`);
    }
    const rest = Math.max(0, engineTx - sum);
    results.breakdown.restUs = Math.round(rest * 100) / 100;
    console.log(`  ${pad('rest of createTransaction', 28)} ${pad(rest.toFixed(2), 7, true)} µs  ${pad(((rest / engineTx) * 100).toFixed(1), 5, true)} %  (timed mean ${engineTx} µs − stages: clone, locks, async, repositories, result copies)`);
  }

  if (o.profile) {
    const file = results.median.engine.profileFile;
    console.log(`\nCPU profile of the timed engine run: ${file}`);
    console.log(formatProfileSummary(summarizeProfile(file, { top: 25 })));
  }

  const seconds = Math.round((Date.now() - started) / 100) / 10;
  results.totalSeconds = seconds;
  console.log(`\ntotal ${seconds} s`);
  if (o.json !== '-') {
    mkdirSync(path.dirname(path.resolve(o.json)), { recursive: true });
    writeFileSync(path.resolve(o.json), `${JSON.stringify(results, null, 2)}\n`);
    console.log(`results written to ${path.relative(process.cwd(), path.resolve(o.json))}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
