/**
 * Allocation profile of the hot path: bytes allocated per operation, by allocating function, for
 * the engine or the hand-written baseline, over one workload of bench/workloads.mjs (default
 * today: 20 instances, alerts on). Uses V8's
 * sampling heap profiler with collected objects kept (`includeObjectsCollectedByMinorGC` /
 * `…MajorGC`), so short-lived garbage counts too — what the scavenger has to sweep, not what stays.
 *
 *   node bench/alloc.mjs                      # engine, dist/internals.js, 30,000 operations, top 25
 *   node bench/alloc.mjs --subject baseline
 *   node bench/alloc.mjs --workload aml
 *   node bench/alloc.mjs --dist node_modules/.cache/other/index.js --ops 20000 --top 40
 *
 * A warm-up pass over the same stream runs first (not sampled), so the figures are for optimized
 * code. Native frames (array growth, Map inserts …) are listed with the JS function that called
 * them. Sampling interval 512 bytes: figures are estimates (±a few %).
 */
import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBaseline } from './baseline.mjs';
import { locate } from './profile-summary.mjs';
import { WORKLOADS } from './workloads.mjs';

const { values: args } = parseArgs({
  options: {
    subject: { type: 'string', default: 'engine' },
    workload: { type: 'string', default: 'today' },
    dist: { type: 'string', default: path.join('dist', 'index.js') },
    ops: { type: 'string', default: '30000' },
    top: { type: 'string', default: '25' },
    retained: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help || !['engine', 'baseline'].includes(args.subject) || !WORKLOADS[args.workload]) {
  console.log(`node bench/alloc.mjs [--subject engine|baseline] [--workload ${Object.keys(WORKLOADS).join('|')}] [--dist PATH] [--ops 30000] [--top 25]`);
  process.exit(args.help ? 0 : 2);
}

const pkg = await import(pathToFileURL(path.resolve(args.dist)).href);
const workload = WORKLOADS[args.workload];
const configs = workload.configs();
const stats = {};
const payloads = () => [...workload.stream({ seed: workload.seed, operations: Number(args.ops) }, stats)];

let sequence = 0;
async function subject() {
  if (args.subject === 'baseline') return createBaseline(pkg, configs, { logic: 'inline' });
  const repositories = workload.maxStoredBytes === null ? undefined : pkg.createMemoryRepositories({ maxStoredBytes: workload.maxStoredBytes });
  const engine = pkg.createEngine({ ids: { next: (kind) => `${kind}-${++sequence}` }, ...(repositories ? { repositories } : {}) });
  for (const c of configs) await engine.createRuleInstance(c.request);
  return engine;
}
async function run(target, operations) {
  for (const o of operations) {
    if (o.kind === 'transaction') await target.createTransaction(o.payload);
    else await target.createTransactionEvent(o.payload);
  }
}

await run(await subject(), payloads()); // warm-up, not sampled
const target = await subject();
const operations = payloads();
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 512,
  includeObjectsCollectedByMajorGC: !args.retained,
  includeObjectsCollectedByMinorGC: !args.retained,
});
await run(target, operations);
if (args.retained) {
  v8.setFlagsFromString('--expose-gc');
  vm.runInNewContext('gc')();
}
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

const bySite = new Map();
const label = (frame) => `${frame.functionName || '(anonymous)'} (${locate(frame)})`;
function walk(node, caller) {
  const frame = node.callFrame;
  const site = frame.url === '' && caller ? `${label(frame)} ← ${caller}` : label(frame);
  bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child, frame.url === '' ? caller : label(frame));
}
walk(profile.head, null);

const n = args.retained ? stats.transactions : operations.length;
const total = [...bySite.values()].reduce((a, b) => a + b, 0);
const what = args.retained ? 'retained' : 'allocated';
const per = args.retained ? 'stored transaction' : 'operation';
console.log(
  `${args.subject} (${args.dist}), ${args.workload}, ${operations.length} operations, node ${process.version}: ${(total / 1e6).toFixed(1)} MB ${what}, ${Math.round(total / n)} bytes per ${per}`,
);
console.log(`${args.retained ? 'bytes/tx' : 'bytes/op'}  share  allocating function`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) {
  console.log(`${String(Math.round(bytes / n)).padStart(8)}  ${((100 * bytes) / total).toFixed(1).padStart(4)} %  ${site}`);
}
