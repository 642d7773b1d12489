/**
 * The five workloads of `npm run bench` (bench/run.mjs): each a deterministic, lazy stream of
 * operations and the instance requests both subjects run. Instances keep the engine's defaults,
 * alerts and cases on, unless `alerts: false` is asked for.
 */
import { createDenseInstanceConfigs, createHitHeavyInstanceConfigs, createInstanceConfigs, streamWorkload, WORKLOAD_DEFAULTS } from './workload.mjs';
import { AML_DEFAULTS, createAmlInstanceConfigs, streamAmlWorkload } from './aml-workload.mjs';

/**
 * @typedef {object} Workload
 * @property {string} name
 * @property {string} title  one line for the output
 * @property {number} operations  default operations
 * @property {number} rounds  default timed rounds
 * @property {number} seed  default seed
 * @property {number | null} segment  operations per reported segment (`null`: one segment)
 * @property {number} verifyOps  operations of the verification pass (the first ones of the stream)
 * @property {number} warmupOps  operations of the untimed warm-up on a throw-away subject
 * @property {number | null} maxStoredBytes  the memory repositories' byte budget (`null`: the default, 256 MiB)
 * @property {number | null} maxOldSpaceMb  V8's old-space limit of each timed child process (`null`: Node's default)
 * @property {(o: { seed: number, operations: number }, stats?: Record<string, number>) => Iterable<import('./workload.mjs').Operation>} stream
 * @property {(o?: { alerts?: boolean }) => { id: string, request: Record<string, unknown> }[]} configs
 * @property {string} instances  one line describing the instances
 */

/** @type {Record<string, Workload>} */
export const WORKLOADS = {
  today: {
    name: 'today',
    title: "today's stream: 2,000 users, 3.75 simulated hours",
    operations: WORKLOAD_DEFAULTS.operations,
    rounds: 3,
    seed: WORKLOAD_DEFAULTS.seed,
    segment: null,
    verifyOps: Infinity,
    warmupOps: Infinity,
    maxStoredBytes: null,
    maxOldSpaceMb: null,
    stream: (o, stats) => streamWorkload({ seed: o.seed, operations: o.operations }, stats),
    configs: createInstanceConfigs,
    instances: '20 instances: 15 stateless (R-2 ×5, R-14 ×4, custom ×6), 5 windowed (R-1, R-30 1 h / 1 day, R-69 1 day / calendar month)',
  },
  dense: {
    name: 'dense',
    title: 'dense: 300 users, 27 simulated days (a transaction every 70 s)',
    operations: 50_000,
    rounds: 3,
    seed: WORKLOAD_DEFAULTS.seed,
    segment: null,
    verifyOps: Infinity,
    warmupOps: Infinity,
    maxStoredBytes: null,
    maxOldSpaceMb: null,
    stream: (o, stats) => streamWorkload({ seed: o.seed, operations: o.operations, users: 300, meanGapMs: 70_000 }, stats),
    configs: createDenseInstanceConfigs,
    instances: '22 instances: the 15 stateless ones, R-1, R-30 1 h / 1 day / 30 days, R-69 1 day / 30 days / calendar month, limits hit often',
  },
  aml: {
    name: 'aml',
    title: 'aml: 1,500 accounts paying 10–150 counterparties each, 35 simulated days',
    operations: AML_DEFAULTS.operations,
    rounds: 3,
    seed: AML_DEFAULTS.seed,
    segment: null,
    verifyOps: Infinity,
    warmupOps: Infinity,
    maxStoredBytes: null,
    maxOldSpaceMb: null,
    stream: (o, stats) => streamAmlWorkload({ seed: o.seed, operations: o.operations }, stats),
    configs: createAmlInstanceConfigs,
    instances:
      '23 instances: 4 stateless (R-2 ×2, R-14 ×2), 19 windowed (R-1, R-30 ×2, R-69 ×2, R-10 ×2, R-9 ×2, R-123, R-119, R-126, R-27, R-131, R-41, custom logic over aggregation variables ×4)',
  },
  hits: {
    name: 'hits',
    title: "hits: today's stream through a loose rule set (most transactions hit at least one instance)",
    operations: WORKLOAD_DEFAULTS.operations,
    rounds: 3,
    seed: WORKLOAD_DEFAULTS.seed,
    segment: null,
    verifyOps: Infinity,
    warmupOps: Infinity,
    maxStoredBytes: null,
    maxOldSpaceMb: null,
    stream: (o, stats) => streamWorkload({ seed: o.seed, operations: o.operations }, stats),
    configs: createHitHeavyInstanceConfigs,
    instances: "today's 20 with the five R-2 thresholds lowered (EUR 400, USD 200, GBP 100 / EUR 120, USD 1,000, EUR 50 / USD 60)",
  },
  long: {
    name: 'long',
    title: "long: today's stream continued to 1,000,000 operations (2,000 users, 3 simulated days)",
    operations: 1_000_000,
    rounds: 1,
    seed: WORKLOAD_DEFAULTS.seed,
    segment: 100_000,
    verifyOps: 100_000,
    warmupOps: 100_000,
    // 1,000,000 operations hold ~670,000 transactions: past the default budget of 256 MiB.
    maxStoredBytes: 2 ** 34,
    // Node's default old-space limit here is 4 GB: the baseline's history of 1,000,000 operations
    // does not fit, and near the limit V8 collects ever more often. Both subjects get 12 GB.
    maxOldSpaceMb: 12_288,
    stream: (o, stats) => streamWorkload({ seed: o.seed, operations: o.operations }, stats),
    configs: createInstanceConfigs,
    instances: "today's 20 instances",
  },
};

/** The workloads `npm run bench` runs, in order. */
export const DEFAULT_WORKLOADS = ['today', 'dense', 'aml', 'hits', 'long'];

/**
 * The windowed instances of a workload whose cost per operation `run.mjs` reports one by one
 * (each alone beside the stateless ones), as indexes into its configs; the stateless ones are the rest.
 */
export function windowedInstances(configs) {
  const stateless = new Set(['R-2', 'R-14']);
  const out = [];
  configs.forEach((c, i) => {
    if (c.request.ruleId !== undefined ? !stateless.has(c.request.ruleId) : c.request.logicAggregationVariables !== undefined) out.push(i);
  });
  return out;
}

/**
 * Feeds `subject` the operations one awaited call at a time, as a client would. A rejected
 * operation is part of the stream (the same for every subject and build) and is passed over.
 * @param {{ createTransaction(p: unknown): Promise<unknown>, createTransactionEvent(p: unknown): Promise<unknown> }} subject
 * @param {readonly import('./workload.mjs').Operation[]} operations
 */
export async function feed(subject, operations) {
  for (const op of operations) {
    try {
      if (op.kind === 'transaction') await subject.createTransaction(op.payload);
      else await subject.createTransactionEvent(op.payload);
    } catch {
      // Rejected by design of the stream.
    }
  }
}
