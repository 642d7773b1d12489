/**
 * The exactness property of batches, on any repositories: the 20-instance benchmark workload's
 * transactions sent as one batch store exactly what they store sent one by one — every result,
 * series entry, counter, alert and case.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEngine, SERIES_NAMES, type Engine, type EngineOptions, type Repositories } from '../../../src/index.js';
import { fixedClock, sequentialIds } from '../../helpers.js';

interface WorkloadModule {
  streamWorkload(options: {
    seed?: number;
    operations?: number;
    users?: number;
  }): Iterable<{ kind: 'transaction' | 'event'; payload: Record<string, unknown> }>;
  createInstanceConfigs(): { id: string; request: Record<string, unknown> }[];
}

const WORKLOAD = pathToFileURL(join(import.meta.dirname, '../../../bench/workload.mjs')).href;

/** The benchmark workload's first `count` transactions (events left out), over `users` users, and its 20 instance requests. */
export async function workloadTransactions(
  count: number,
  users = 60,
): Promise<{ transactions: Record<string, unknown>[]; instances: Record<string, unknown>[] }> {
  const workload = (await import(WORKLOAD)) as WorkloadModule;
  const transactions: Record<string, unknown>[] = [];
  for (const op of workload.streamWorkload({ seed: 7, operations: count * 2, users })) {
    if (op.kind === 'transaction') transactions.push(op.payload);
    if (transactions.length === count) break;
  }
  return { transactions, instances: workload.createInstanceConfigs().map((c) => c.request) };
}

/** The benchmark workload's first `count` operations over `users` users: its transactions and the events on them, each in stream order. */
export async function workloadHistory(count: number, users = 40): Promise<{ transactions: Record<string, unknown>[]; events: Record<string, unknown>[] }> {
  const workload = (await import(WORKLOAD)) as WorkloadModule;
  const transactions: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  for (const op of workload.streamWorkload({ seed: 7, operations: count, users })) (op.kind === 'transaction' ? transactions : events).push(op.payload);
  return { transactions, events };
}

export async function engineWith(repositories: Repositories, instances: readonly object[], options: EngineOptions = {}): Promise<Engine> {
  const engine = createEngine({ ...options, repositories, clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(7) });
  for (const request of instances) await engine.createRuleInstance(request as never);
  return engine;
}

/** Everything the transactions left in the store: results, series entries of their users, counters, alerts, cases. */
export async function stateOf(engine: Engine, transactions: readonly Record<string, unknown>[]): Promise<unknown> {
  const repos = engine.repositories;
  const users = [...new Set(transactions.flatMap((t) => [t.originUserId, t.destinationUserId]).filter((u): u is string => typeof u === 'string'))].sort();
  const entries: Record<string, unknown> = {};
  for (const series of SERIES_NAMES) {
    for (const user of users) {
      const list = await repos.aggregates.listEntries(series, user);
      if (list.length > 0) entries[`${series}/${user}`] = list;
    }
  }
  const results = [];
  for (const t of transactions) results.push(await engine.getTransaction(t.transactionId as string));
  const byId = <T>(items: T[], id: (x: T) => string) => [...items].sort((a, b) => id(a).localeCompare(id(b)));
  return {
    results,
    entries,
    counters: (await engine.listRuleInstances()).map((i) => [i.id, i.runCount, i.hitCount]),
    alerts: byId(await engine.listAlerts(), (a) => a.alertId),
    cases: byId(await engine.listCases(), (c) => c.caseId),
    users: await repos.users.getUsers(users),
  };
}

/** Risk factors that move users' CRA levels as the chunk runs (amounts over 1,000 EUR are VERY_HIGH). */
export const RISK: Pick<EngineOptions, 'riskFactors'> = {
  riskFactors: [
    {
      id: 'origin-amount',
      parameter: 'originAmount',
      weight: 1,
      mapping: [
        { min: 0, max: 200, currency: 'EUR', riskLevel: 'VERY_LOW' },
        { min: 200, max: 1000, currency: 'EUR', riskLevel: 'MEDIUM' },
        { min: 1000, currency: 'EUR', riskLevel: 'VERY_HIGH' },
      ],
    },
  ],
};

/** A velocity rule whose window and limit depend on the sender's risk level. */
export const RISK_LEVEL_VELOCITY = {
  ruleId: 'R-30',
  ruleNameAlias: 'Velocity by risk level',
  parameters: { transactionsLimit: 6, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
  riskLevelParameters: {
    VERY_HIGH: { transactionsLimit: 2, timeWindow: { units: 7, granularity: 'day', rollingBasis: true } },
    HIGH: { transactionsLimit: 3, timeWindow: { units: 3, granularity: 'day', rollingBasis: true } },
    MEDIUM: { transactionsLimit: 4, timeWindow: { units: 2, granularity: 'day', rollingBasis: true } },
    LOW: { transactionsLimit: 5, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
    VERY_LOW: { transactionsLimit: 6, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
  },
};
