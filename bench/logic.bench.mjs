#!/usr/bin/env node
/**
 * Micro-benchmark of the custom-rule (json-logic) evaluators, side by side in one run:
 *
 *   (a) json-logic-js `apply` (+ `truthy`), the reference semantics;
 *   (b) txmon's compiled evaluator: `compileLogic(expression, …).evaluate(data)`;
 *   (c) json-logic-engine `LogicEngine#build()` (+ `engine.truthy`), its compiled form.
 *
 * The expressions are the 6 custom-rule instances of `createInstanceConfigs()` (bench/workload.mjs)
 * and the data are the workload's transactions (`generateWorkload()`, events left out), each wrapped
 * once as `{ transaction, originUser: null, destinationUser: null, agg: {} }`, the data an engine
 * evaluation gets. Every evaluator must give the same truthiness on every (expression, transaction)
 * before anything is timed, and json-logic-js and json-logic-engine must return deep-equal raw
 * values; a mismatch is printed and the run exits with code 1.
 *
 *   npm run build && node bench/logic.bench.mjs
 *
 * Options (all optional):
 *   --ops N      workload operations (default 50000, about 2/3 of them transactions)
 *   --seed N     workload seed (default 20250131)
 *   --rounds N   timed rounds (default 5); the median round is reported
 *   --passes N   passes over the transactions per (evaluator, expression) cell in a round (default 5)
 *   --dist PATH  the built ESM entry to load (default ../dist/internals.js)
 *
 * Timing: one warm-up round (not reported) after the verification pass, then `--rounds` rounds. In
 * a round every expression is timed for each evaluator, the evaluators in a rotated order (round r
 * starts with evaluator r mod 3), with a full GC before each cell. Each evaluator has its own timing
 * loop so that their call sites do not share type feedback. Reported: ns per evaluation (wall clock,
 * `process.hrtime.bigint()`), median over the rounds, per expression and overall (all 6 cells of the
 * round summed ÷ all evaluations of the round).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import jsonLogic from 'json-logic-js';
import { createInstanceConfigs, generateWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const o = {
    ops: WORKLOAD_DEFAULTS.operations,
    seed: WORKLOAD_DEFAULTS.seed,
    rounds: 5,
    passes: 5,
    dist: path.resolve(BENCH_DIR, '../dist/internals.js'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const positive = () => {
      const n = Number(value());
      if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    switch (a) {
      case '--ops':
        o.ops = positive();
        break;
      case '--seed':
        o.seed = Number(value());
        break;
      case '--rounds':
        o.rounds = positive();
        break;
      case '--passes':
        o.passes = positive();
        break;
      case '--dist':
        o.dist = path.resolve(value());
        break;
      default:
        throw new Error(`unknown option ${a}`);
    }
  }
  return o;
}

/** A `gc()` function without needing `--expose-gc` on the command line. */
function exposeGc() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function printTable(header, rows, align) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`);
  for (const r of rows) console.log(line(r));
}

// ---- the three timing loops: same shape, separate functions (no shared type feedback) ------

/** (a) json-logic-js: `apply` on the raw expression, then json-logic truthiness. */
function loopJsonLogicJs(logic, datas, passes) {
  let hits = 0;
  for (let p = 0; p < passes; p++) {
    for (let i = 0; i < datas.length; i++) {
      if (jsonLogic.truthy(jsonLogic.apply(logic, datas[i]))) hits++;
    }
  }
  return hits;
}

/** (b) txmon: the compiled evaluator (returns json-logic truthiness itself). */
function loopTxmon(compiled, datas, passes) {
  let hits = 0;
  for (let p = 0; p < passes; p++) {
    for (let i = 0; i < datas.length; i++) {
      if (compiled.evaluate(datas[i])) hits++;
    }
  }
  return hits;
}

/** (c) json-logic-engine: the function from `build()`, then the engine's truthiness. */
function loopEngineBuild(built, datas, passes) {
  const engine = built.engine;
  const fn = built.fn;
  let hits = 0;
  for (let p = 0; p < passes; p++) {
    for (let i = 0; i < datas.length; i++) {
      if (engine.truthy(fn(datas[i]))) hits++;
    }
  }
  return hits;
}

// ---- main -----------------------------------------------------------------------------------

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const gc = exposeGc();
  const pkg = await import(pathToFileURL(o.dist).href);
  if (typeof pkg.compileLogic !== 'function') {
    console.error(`${o.dist} does not export compileLogic; run \`npm run build\` first.`);
    process.exit(1);
  }

  /** json-logic-engine is optional: without it, evaluator (c) is skipped. */
  let engineModule = null;
  try {
    engineModule = await import('json-logic-engine');
  } catch {
    engineModule = null;
  }

  const started = new Date();
  console.log(`txmon custom-logic evaluators benchmark — ${started.toISOString()}`);
  console.log(
    `node ${process.version} (V8 ${process.versions.v8}), ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ` +
      `${os.platform()} ${os.release()} ${os.arch()}`,
  );
  console.log(
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `json-logic-js ${packageVersion('json-logic-js')}; json-logic-engine ${engineModule ? packageVersion('json-logic-engine') : 'not installed (evaluator (c) skipped)'}; txmon ${path.relative(process.cwd(), o.dist) || o.dist}`,
  );

  const { operations, stats } = generateWorkload({ seed: o.seed, operations: o.ops });
  const datas = operations
    .filter((op) => op.kind === 'transaction')
    .map((op) => ({ transaction: op.payload, originUser: null, destinationUser: null, agg: {} }));
  const customs = createInstanceConfigs()
    .filter(({ request }) => request.logic !== undefined)
    .map(({ id, request }) => ({ id, name: request.ruleNameAlias, logic: request.logic }));
  console.log(
    `workload: ${stats.transactions} transactions (of ${stats.operations} operations, seed ${o.seed}); ` +
      `${customs.length} custom-rule expressions; ${o.rounds} rounds × ${o.passes} passes per cell`,
  );

  // ---- the subjects ----
  const subjects = [
    { key: 'js', label: 'json-logic-js apply', loop: loopJsonLogicJs, prepare: (logic) => logic },
    {
      key: 'txmon',
      label: 'txmon compileLogic',
      loop: loopTxmon,
      prepare: (logic) => pkg.compileLogic(logic, { basePath: '/logic', aggregationVariableKeys: [] }),
    },
  ];
  if (engineModule) {
    const engine = new engineModule.LogicEngine();
    subjects.push({
      key: 'engine',
      label: 'json-logic-engine build()',
      loop: loopEngineBuild,
      prepare: (logic) => ({ engine, fn: engine.build(structuredClone(logic)) }),
    });
  }
  const prepared = customs.map((c) => subjects.map((s) => s.prepare(c.logic)));

  // ---- verification: same truthiness everywhere; raw values of js and engine deep-equal ----
  const hitCounts = customs.map(() => 0);
  let mismatches = 0;
  const report = (c, data, what) => {
    mismatches++;
    if (mismatches <= 20) {
      console.error(`MISMATCH ${c.id} "${c.name}" on transaction ${data.transaction.transactionId}: ${what}`);
    }
  };
  const safe = (f) => {
    try {
      return { ok: true, value: f() };
    } catch (error) {
      return { ok: false, value: String(error) };
    }
  };
  customs.forEach((c, e) => {
    const [, compiled, built] = prepared[e];
    for (const data of datas) {
      const raw = safe(() => jsonLogic.apply(c.logic, data));
      const expected = raw.ok && jsonLogic.truthy(raw.value);
      const got = compiled.evaluate(data);
      if (got !== expected) report(c, data, `json-logic-js ${expected}, txmon ${got}`);
      if (built) {
        const rawEngine = safe(() => built.fn(data));
        const engineTruthy = rawEngine.ok && Boolean(built.engine.truthy(rawEngine.value));
        if (engineTruthy !== expected) report(c, data, `json-logic-js ${expected}, json-logic-engine ${engineTruthy}`);
        if (raw.ok !== rawEngine.ok || !isDeepStrictEqual(raw.value, rawEngine.value)) {
          report(c, data, `raw values differ: json-logic-js ${JSON.stringify(raw)}, json-logic-engine ${JSON.stringify(rawEngine)}`);
        }
      }
      if (expected) hitCounts[e]++;
    }
  });
  if (mismatches > 0) {
    console.error(`${mismatches} mismatch(es) over ${customs.length} × ${datas.length} evaluations; nothing timed.`);
    process.exit(1);
  }
  console.log(
    `verification: ${customs.length} × ${datas.length} = ${fmt(customs.length * datas.length)} (expression, transaction) pairs, ` +
      `all ${subjects.length} evaluators agree (truthiness${engineModule ? '; json-logic-js and json-logic-engine raw values deep-equal' : ''}); ` +
      `hits per expression: ${hitCounts.join(' / ')}`,
  );

  // ---- timed rounds (round 0 is the warm-up) ----
  /** ns[subject][expression] = per-round ns/evaluation; overall[subject] = per-round ns/evaluation. */
  const ns = subjects.map(() => customs.map(() => []));
  const overall = subjects.map(() => []);
  for (let round = 0; round <= o.rounds; round++) {
    const totals = subjects.map(() => 0n);
    const order = subjects.map((_, i) => (i + round) % subjects.length);
    for (let e = 0; e < customs.length; e++) {
      for (const s of order) {
        const subject = subjects[s];
        const target = prepared[e][s];
        gc();
        const t0 = process.hrtime.bigint();
        const hits = subject.loop(target, datas, o.passes);
        const elapsed = process.hrtime.bigint() - t0;
        if (hits !== hitCounts[e] * o.passes) {
          console.error(`MISMATCH in a timed run: ${subject.label} on ${customs[e].id} gave ${hits} hits, expected ${hitCounts[e] * o.passes}`);
          process.exit(1);
        }
        totals[s] += elapsed;
        if (round > 0) ns[s][e].push(Number(elapsed) / (datas.length * o.passes));
      }
    }
    if (round > 0) {
      for (let s = 0; s < subjects.length; s++) overall[s].push(Number(totals[s]) / (datas.length * o.passes * customs.length));
      console.log(
        `round ${round}/${o.rounds} (first: ${subjects[order[0]].label}): ` +
          subjects.map((subject, s) => `${subject.label} ${fmt(overall[s].at(-1), 1)}`).join(', ') +
          ' ns/eval',
      );
    } else {
      console.log('warm-up round done');
    }
  }

  // ---- report ----
  const ix = Object.fromEntries(subjects.map((s, i) => [s.key, i]));
  const med = (s, e) => median(ns[s][e]);
  const header = ['#', 'expression', ...subjects.map((s) => `${s.label} ns`), 'txmon speed-up vs js'];
  if (engineModule) header.push('engine speed-up vs js', 'txmon time ÷ engine time');
  const row = (id, name, values) => {
    const cells = [id, name, ...values.map((v) => fmt(v, 1)), `${fmt(values[ix.js] / values[ix.txmon], 1)}×`];
    if (engineModule) {
      cells.push(`${fmt(values[ix.js] / values[ix.engine], 1)}×`, `${fmt(values[ix.txmon] / values[ix.engine], 2)}`);
    }
    return cells;
  };
  const rows = customs.map((c, e) =>
    row(
      c.id,
      `${c.name} (${hitCounts[e]} hits)`,
      subjects.map((_, s) => med(s, e)),
    ),
  );
  rows.push(
    row(
      'all',
      'overall (6 expressions)',
      subjects.map((_, s) => median(overall[s])),
    ),
  );
  console.log('');
  console.log(`ns per evaluation, median of ${o.rounds} rounds (each cell: ${fmt(datas.length * o.passes)} evaluations):`);
  printTable(
    header,
    rows,
    header.map((_, i) => (i < 2 ? 'l' : 'r')),
  );
  console.log('');
  console.log(`overall per round: ${subjects.map((s, i) => `${s.label} ${overall[i].map((v) => fmt(v, 1)).join(' / ')}`).join('; ')}`);
  console.log(
    `load average at end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

/** The installed version of a dependency (its package.json is read directly: not every package exports it). */
function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(path.resolve(BENCH_DIR, '../node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown version';
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
