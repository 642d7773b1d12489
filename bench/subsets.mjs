/**
 * Cost attribution and A/B of builds: the engine on the benchmark stream with a SUBSET of the 20
 * instances, for one or more builds, rounds alternating between the builds in one process.
 *
 *   node bench/subsets.mjs                                   # every subset below, dist/internals.js
 *   node bench/subsets.mjs --subset none,stateful,16         # named subsets or instance numbers (1-based, '+'-joined)
 *   node bench/subsets.mjs --subset all --dist dist/internals.js --dist node_modules/.cache/txmon-a/index.js
 *
 * The difference between two subsets is what the extra instances cost per operation (e.g.
 * `none` → `17` is the first windowed instance: series upkeep plus the instance itself; `17` →
 * `17+18` is a second one on the same series). Builds given with `--dist` must sit inside the
 * repository (their runtime dependencies resolve from its node_modules). Engine only, no baseline;
 * wall and CPU µs per operation and main-thread GC µs per operation, median of the rounds.
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { createInstanceConfigs, generateWorkload } from './workload.mjs';
import { feed } from './workloads.mjs';

const { values: args } = parseArgs({
  options: {
    subset: { type: 'string', default: 'none,stateless,stateful,all' },
    dist: { type: 'string', multiple: true },
    ops: { type: 'string', default: '30000' },
    rounds: { type: 'string', default: '5' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  console.log('node bench/subsets.mjs [--subset none,stateless,stateful,all,R-2,R-14,custom,1+16] [--dist PATH]... [--ops 30000] [--rounds 5]');
  process.exit(0);
}

const configs = createInstanceConfigs();
const NAMED = {
  none: [],
  all: configs.map((_, i) => i),
  stateless: [...Array(15).keys()],
  stateful: [15, 16, 17, 18, 19],
  'R-2': [0, 1, 2, 3, 4],
  'R-14': [5, 6, 7, 8],
  custom: [9, 10, 11, 12, 13, 14],
  'R-1': [15],
  'R-30': [16, 17],
  'R-69': [18, 19],
};
function instancesOf(name) {
  if (NAMED[name]) return NAMED[name];
  const numbers = name.split('+').map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n < 1 || n > configs.length)) throw new Error(`unknown subset ${name}`);
  return numbers.map((n) => n - 1);
}

const dists = args.dist ?? [path.join('dist', 'index.js')];
const builds = [];
for (const d of dists) builds.push({ name: d, pkg: await import(pathToFileURL(path.resolve(d)).href) });
const ops = generateWorkload({ operations: Number(args.ops) }).operations;
const rounds = Number(args.rounds);

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

function sequentialIds() {
  let n = 0;
  return { next: (kind) => `${kind}-${++n}` };
}

let cleanHeapMb = Infinity;

async function once(pkg, indexes) {
  const engine = pkg.createEngine({ ids: sequentialIds() });
  for (const i of indexes) await engine.createRuleInstance(configs[i].request);
  const payloads = ops.map((o) => ({ kind: o.kind, payload: JSON.parse(JSON.stringify(o.payload)) }));
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 10));
  // A run should start on this run's own payloads and engine only: a previous run's engine still
  // alive would give this one its heap to mark (see run.mjs, timeFreshSubject).
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
  if (heapMb > cleanHeapMb + 20)
    console.warn(`warning: a run started with ${Math.round(heapMb)} MB live (lowest so far ${Math.round(cleanHeapMb)} MB): a previous engine was still alive`);
  cleanHeapMb = Math.min(cleanHeapMb, heapMb);
  gcMs = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await feed(engine, payloads);
  const wall = Number(process.hrtime.bigint() - t0) / 1000 / payloads.length;
  const cpu = process.cpuUsage(cpu0);
  await new Promise((resolve) => setTimeout(resolve, 10));
  return { wall, cpu: (cpu.user + cpu.system) / payloads.length, gc: (gcMs * 1000) / payloads.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`node ${process.version}; ${ops.length} operations; ${rounds} rounds; builds alternate within each round`);
console.log(`${'subset'.padEnd(12)} ${'build'.padEnd(44)} ${'wall µs/op'.padStart(10)} ${'cpu µs/op'.padStart(10)} ${'gc µs/op'.padStart(9)}`);
for (const name of args.subset.split(',')) {
  const indexes = instancesOf(name);
  const results = builds.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < builds.length; k++) {
      const b = (k + r) % builds.length;
      results[b].push(await once(builds[b].pkg, indexes));
    }
  }
  builds.forEach((build, b) => {
    const rs = results[b];
    console.log(
      `${name.padEnd(12)} ${build.name.slice(-44).padEnd(44)} ${median(rs.map((x) => x.wall))
        .toFixed(2)
        .padStart(10)} ${median(rs.map((x) => x.cpu))
        .toFixed(2)
        .padStart(10)} ${median(rs.map((x) => x.gc))
        .toFixed(2)
        .padStart(9)}`,
    );
  });
}
