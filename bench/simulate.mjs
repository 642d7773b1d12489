#!/usr/bin/env node
/**
 * The backtest's speed: `txmon simulate` over an NDJSON history through a rule set of 20 instances
 * (the bench's "today" instances, alerts on), in a child process limited to one core (`taskset`)
 * and a 1 GB heap; and, for comparison in the same run, the same operations pushed through a live
 * engine (memory repositories, which keep all of it: its child gets an 8 GB heap), both read line
 * by line from the same file and parsed. `--compare-ops N` compares over the first N operations
 * instead (default: all of --ops).
 *
 * `--pairs N` runs the comparison N times, simulate and engine back to back, and reports each
 * pair's ratio and their median (the host's speed moves between runs).
 *
 *   node bench/simulate.mjs [--history file.ndjson] [--ops 1000000] [--compare-ops N] [--pairs N] [--candidate] [--json out.json]
 *
 * Without --history the bench's "long" stream (today's stream continued) is written to a
 * temporary NDJSON file first. Prints operations per second, the peak heap and RSS, and the
 * simulation's speed against the live engine's.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createInstanceConfigs, streamWorkload } from './workload.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const { values: opts } = parseArgs({
  options: {
    history: { type: 'string' },
    rules: { type: 'string' },
    ops: { type: 'string', default: '1000000' },
    'compare-ops': { type: 'string' },
    pairs: { type: 'string', default: '1' },
    candidate: { type: 'boolean', default: false },
    json: { type: 'string' },
    child: { type: 'string' },
  },
  strict: true,
});

const CLI = join(ROOT, 'dist', 'cli.js');
const INDEX = join(ROOT, 'dist', 'index.js');

/** The instances: today's 20, alerts on (the engine's default), as rule-instance requests. */
function instances() {
  return createInstanceConfigs().map((c) => c.request);
}

/** Writes the long stream's first `ops` operations as NDJSON. */
async function writeLongStream(file, ops) {
  const out = createWriteStream(file);
  for (const op of streamWorkload({ operations: ops })) {
    if (!out.write(`${JSON.stringify(op.payload)}\n`)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}

/** Child: one timed run of a subject over the history, printing one JSON line of figures. */
async function child(kind) {
  const txmon = await import(pathToFileURL(INDEX).href);
  const history = opts.history;
  const rules = opts.rules ? JSON.parse(readFileSync(opts.rules, 'utf8')) : instances();
  let peakHeap = 0;
  let peakRss = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const timer = setInterval(sample, 200);
  const started = performance.now();
  let operations = 0;
  if (kind === 'simulate') {
    const ops = Number(opts.ops);
    async function* lines() {
      for await (const line of createInterface({ input: createReadStream(history), crlfDelay: Infinity })) {
        if (operations >= ops) return;
        operations++;
        yield line;
      }
    }
    const report = await txmon.simulate({
      history: lines(),
      baseline: rules,
      ...(opts.candidate ? { candidate: rules } : {}),
      progressEvery: 50_000,
      onProgress: sample,
    });
    sample();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `${JSON.stringify({ kind, operations, seconds, peakHeap, peakRss, hits: report.baseline.hits, rejected: report.history.rejected })}\n`,
    );
  } else {
    const engine = txmon.createEngine({ repositories: txmon.createMemoryRepositories({ maxStoredBytes: 2 ** 34 }) });
    for (const request of rules) await engine.createRuleInstance(request);
    const limit = Number(opts['compare-ops']);
    // The same file read the same way: what a host pushing this history through an engine runs.
    const t0 = performance.now();
    for await (const line of createInterface({ input: createReadStream(history), crlfDelay: Infinity })) {
      if (operations >= limit) break;
      operations++;
      if (line.trim() === '') continue;
      try {
        const op = JSON.parse(line);
        if ('type' in op) await engine.createTransaction(op);
        else await engine.createTransactionEvent(op);
      } catch {
        // Rejected: simulate counts these too.
      }
    }
    sample();
    const seconds = (performance.now() - t0) / 1000;
    process.stdout.write(`${JSON.stringify({ kind, operations, seconds, peakHeap, peakRss })}\n`);
  }
  clearInterval(timer);
}

/** Runs a child on one core with a heap of `heapMb` (`--max-old-space-size`); its figures. */
function runChild(kind, extra, heapMb = 1024) {
  const args = [`--max-old-space-size=${heapMb}`, fileURLToPath(import.meta.url), '--child', kind, ...extra];
  const pin = existsSync('/usr/bin/taskset') ? ['taskset', ['-c', String(cpus().length - 1), process.execPath, ...args]] : [process.execPath, args];
  const out = execFileSync(pin[0], pin[1], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').pop());
}

async function main() {
  if (opts.child) return child(opts.child);
  if (!existsSync(CLI)) throw new Error('run npm run build first');
  const dir = mkdtempSync(join(tmpdir(), 'txmon-bench-simulate-'));
  try {
    const history = opts.history ?? join(dir, 'history.ndjson');
    if (opts.history === undefined) {
      process.stderr.write(`writing ${opts.ops} operations of the long stream…\n`);
      await writeLongStream(history, Number(opts.ops));
    }
    const rulesFile = opts.rules ?? join(dir, 'rules.json');
    if (opts.rules === undefined) writeFileSync(rulesFile, JSON.stringify(instances()));
    const common = ['--history', history, '--rules', rulesFile, ...(opts.candidate ? ['--candidate'] : [])];
    const sim = runChild('simulate', [...common, '--ops', opts.ops]);
    // Like for like: the same operations through simulate and through a live engine, back to back.
    const compareOps = opts['compare-ops'] ?? opts.ops;
    const pairs = [];
    for (let i = 0; i < Number(opts.pairs); i++) {
      const simSame = i === 0 && compareOps === opts.ops ? sim : runChild('simulate', [...common, '--ops', compareOps]);
      const live = runChild('engine', [...common, '--compare-ops', compareOps], 8192);
      const ratio = simSame.seconds > 0 ? live.seconds / simSame.seconds : Number.NaN;
      pairs.push({ simulate: simSame, engine: live, ratio: Number(ratio.toFixed(3)) });
      process.stderr.write(
        `pair ${i + 1}: simulate ${simSame.seconds.toFixed(1)} s, engine ${live.seconds.toFixed(1)} s (peak heap ${(live.peakHeap / 2 ** 20).toFixed(0)} MB): ${ratio.toFixed(2)}×\n`,
      );
    }
    const ratios = pairs.map((p) => p.ratio).sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)];
    const simRate = sim.operations / sim.seconds;
    const result = {
      node: process.version,
      cpu: cpus()[0]?.model,
      history: opts.history ?? `long stream, ${opts.ops} operations`,
      instances: 20,
      candidate: opts.candidate,
      simulate: { ...sim, opsPerSecond: Math.round(simRate) },
      comparedOperations: Number(compareOps),
      pairs,
      simulateOverEngineMedian: median,
    };
    process.stdout.write(
      `simulate: ${sim.operations} operations in ${sim.seconds.toFixed(1)} s (${Math.round(simRate)} ops/s), peak heap ${(sim.peakHeap / 2 ** 20).toFixed(0)} MB, RSS ${(sim.peakRss / 2 ** 20).toFixed(0)} MB\n` +
        `simulate / live engine over ${compareOps} operations (engine time over simulate time): ${ratios.join(', ')}; median ${median}×\n`,
    );
    if (opts.json) writeFileSync(opts.json, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
