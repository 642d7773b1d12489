/**
 * What the tuning parameters and case grouping cost: on the AML stream, the engine (memory
 * repositories, alerts and cases on) with the workload's stateless instances, then with one windowed
 * instance beside them in two configurations — R-41 without and with its minimums, R-8 over the
 * whole history and within 30 days, R-131 with an integer and a fractional factor — and the whole
 * AML set under case grouping USER and COUNTERPARTIES. Runs alternate round by round in one process
 * (order reversed every other round); µs per operation are medians, and a rule's cost is its run's
 * median minus the stateless run's.
 *
 *   node bench/tunable-rules.mjs [--ops 50000] [--rounds 5] [--dist dist/index.js]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createAmlInstanceConfigs, streamAmlWorkload } from './aml-workload.mjs';
import { feed, windowedInstances } from './workloads.mjs';

const { values: args } = parseArgs({
  options: {
    ops: { type: 'string', default: '50000' },
    rounds: { type: 'string', default: '5' },
    dist: { type: 'string', default: path.join('dist', 'index.js') },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  console.log('node bench/tunable-rules.mjs [--ops 50000] [--rounds 5] [--dist dist/index.js]');
  process.exit(0);
}

const pkg = await import(pathToFileURL(path.resolve(args.dist)).href);
const ops = [...streamAmlWorkload({ operations: Number(args.ops) })];
const configs = createAmlInstanceConfigs();
const windowed = windowedInstances(configs);
const stateless = configs.map((c) => c.request).filter((_, i) => !windowed.includes(i));
const all = configs.map((c) => c.request);
const DAY = (units) => ({ units, granularity: 'day', rollingBasis: true });
const r41 = configs.find((c) => c.request.ruleId === 'R-41').request;
const r131 = configs.find((c) => c.request.ruleId === 'R-131').request;
const r8 = { ruleId: 'R-8', parameters: { lowTransactionValues: { USD: { min: 9000, max: 10000 } }, lowTransactionCount: 3 } };

const runs = [
  { name: 'stateless only', requests: stateless },
  { name: 'R-41 (as the AML set)', requests: [...stateless, r41] },
  {
    name: 'R-41 + minimums (volumes 1,000 USD, 2 transactions each way)',
    requests: [
      ...stateless,
      {
        ...r41,
        parameters: { ...r41.parameters, minOutflowVolume: { USD: 1000 }, minInflowVolume: { USD: 1000 }, minOutflowTransactions: 2, minInflowTransactions: 2 },
      },
    ],
  },
  { name: 'R-8 (last 3, whole history)', requests: [...stateless, r8] },
  { name: 'R-8 + timeWindow 30 days', requests: [...stateless, { ...r8, parameters: { ...r8.parameters, timeWindow: DAY(30) } }] },
  { name: 'R-131 factor 3 (as the AML set)', requests: [...stateless, r131] },
  { name: 'R-131 factor 2.5', requests: [...stateless, { ...r131, parameters: { ...r131.parameters, multiplierThreshold: 2.5 } }] },
  { name: 'all 23, caseGrouping USER', requests: all, caseGrouping: 'USER' },
  { name: 'all 23, caseGrouping COUNTERPARTIES', requests: all, caseGrouping: 'COUNTERPARTIES' },
];

function sequentialIds() {
  let n = 0;
  return { next: (kind) => `${kind === 'alert' ? 'A' : kind === 'case' ? 'C' : 'X'}-${++n}` };
}

async function once(run) {
  const engine = pkg.createEngine({ ids: sequentialIds(), ...(run.caseGrouping ? { caseGrouping: run.caseGrouping } : {}) });
  for (const request of run.requests) await engine.createRuleInstance(request);
  globalThis.gc?.();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await feed(engine, ops);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / ops.length;
  const cpu = process.cpuUsage(cpu0);
  const cases = run.caseGrouping ? (await engine.listCases()).length : null;
  return { us, cpuUs: (cpu.user + cpu.system) / ops.length, cases };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

await once(runs[runs.length - 1]); // JIT warm-up with every instance
const samples = runs.map(() => []);
const cpuSamples = runs.map(() => []);
const cases = runs.map(() => null);
for (let r = 0; r < Number(args.rounds); r++) {
  const order = runs.map((_, i) => i);
  if (r % 2 === 1) order.reverse();
  for (const i of order) {
    const result = await once(runs[i]);
    samples[i].push(result.us);
    cpuSamples[i].push(result.cpuUs);
    cases[i] = result.cases;
  }
}
const base = median(samples[0]);
const cpuBase = median(cpuSamples[0]);
console.log(`AML stream, ${ops.length} operations, ${args.rounds} rounds, median µs/op wall and CPU (cost = minus the stateless run)`);
for (const [i, run] of runs.entries()) {
  const us = median(samples[i]);
  const cpu = median(cpuSamples[i]);
  const extra = cases[i] === null ? '' : `  cases ${cases[i]}`;
  const cost = `cost ${(us - base).toFixed(2).padStart(6)} / ${(cpu - cpuBase).toFixed(2).padStart(6)}`;
  console.log(`${run.name.padEnd(64)} ${us.toFixed(2).padStart(7)} / ${cpu.toFixed(2).padStart(7)}  ${cost}${extra}`);
}
