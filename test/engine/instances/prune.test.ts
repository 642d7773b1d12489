/**
 * `engine.pruneSeries` (retention of windowed-aggregate entries) on every repository adapter:
 * pruning never changes an answer for a transaction within the late-arrival margin, an instance
 * that starts reading further back refills what was pruned, and a dry run drops nothing.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRepositories, type Repositories } from '../../../src/index.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from '../../postgres/fixtures.js';
import { DAY, HOUR, T0, testEngine, type TransactionInput } from '../../helpers.js';

const LATE_MS = 12 * HOUR;
const USERS = ['u1', 'u2', 'u3'];

const velocity = (days: number) => ({
  ruleId: 'R-30',
  parameters: { transactionsLimit: 1, timeWindow: { units: days, granularity: 'day', rollingBasis: true }, checkSender: 'all', checkReceiver: 'all' },
});
const INSTANCES = [
  velocity(1),
  {
    ruleId: 'R-69',
    parameters: {
      transactionVolumeThreshold: { EUR: 250 },
      timeWindow: { units: 2, granularity: 'day', rollingBasis: true },
      checkSender: 'sending',
      checkReceiver: 'receiving',
    },
  },
  { ruleId: 'R-1' },
  { ruleId: 'R-119', parameters: { transactionsLimit: 1, timeWindow: { units: 6, granularity: 'hour', rollingBasis: true } } },
];

type Step =
  | { kind: 'transaction'; advance: number; late: number; from: number; to: number; amount: number }
  | { kind: 'prune' }
  | { kind: 'widen'; days: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('transaction' as const),
      advance: fc.integer({ min: 0, max: 30 * HOUR }),
      late: fc.integer({ min: 0, max: LATE_MS }),
      from: fc.nat(2),
      to: fc.nat(2),
      amount: fc.integer({ min: 1, max: 200 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('prune' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('widen' as const), days: fc.integer({ min: 1, max: 10 }) }) },
);

interface Target {
  readonly name: string;
  readonly runs: number;
  open(): Promise<{ fresh(): Promise<Repositories>; close(): Promise<void> }>;
}
const targets: Target[] = [
  { name: 'memory', runs: 40, open: async () => ({ fresh: async () => createMemoryRepositories(), close: async () => undefined }) },
  { name: 'PGlite', runs: 8, open: pgliteDatabase },
  { name: 'PostgreSQL', runs: 8, open: postgresDatabase },
];

/** One engine over `repositories` with the instances, and the clock it runs on. */
async function engineOn(repositories: Repositories) {
  const { engine, clock } = testEngine({ repositories, lateArrivalMs: LATE_MS });
  const ids: string[] = [];
  for (const request of INSTANCES) ids.push((await engine.createRuleInstance(request)).id);
  return { engine, clock, velocityId: ids[0] as string };
}

describe.each(targets)('pruneSeries on $name', (target) => {
  let pruned: TestDatabase | { fresh(): Promise<Repositories>; close(): Promise<void> };
  let whole: TestDatabase | { fresh(): Promise<Repositories>; close(): Promise<void> };
  beforeAll(async () => {
    pruned = await target.open();
    whole = await target.open();
  }, 60_000);
  afterAll(async () => {
    await pruned.close();
    await whole.close();
  });

  test.prop([fc.array(stepArb, { minLength: 5, maxLength: 30 })], { numRuns: target.runs })(
    'answers for transactions within the late-arrival margin equal those of an engine that never prunes, whatever is pruned and widened in between',
    async (steps) => {
      const a = await engineOn(await pruned.fresh());
      const b = await engineOn(await whole.fresh());
      let n = 0;
      for (const step of steps) {
        if (step.kind === 'prune') {
          await a.engine.pruneSeries();
          continue;
        }
        if (step.kind === 'widen') {
          const request = velocity(step.days);
          expect(await a.engine.updateRuleInstance(a.velocityId, request)).toEqual(await b.engine.updateRuleInstance(b.velocityId, request));
          continue;
        }
        a.clock.advance(step.advance);
        b.clock.advance(step.advance);
        const body = {
          type: 'TRANSFER',
          transactionId: `t-${n++}`,
          timestamp: a.clock.now() - step.late,
          originUserId: USERS[step.from],
          destinationUserId: USERS[step.to],
          originAmountDetails: { transactionAmount: step.amount, transactionCurrency: 'EUR', country: 'DE' },
        } as TransactionInput;
        expect(await a.engine.createTransaction(body)).toEqual(await b.engine.createTransaction(body));
      }
      expect(await a.engine.listRuleInstances()).toEqual(await b.engine.listRuleInstances());
    },
  );

  it('drops old entries of windowed series, keeps what R-1 reads from the beginning, and a dry run drops nothing', async () => {
    const { engine, clock } = await engineOn(await pruned.fresh());
    for (let i = 0; i < 6; i++) {
      clock.set(T0 + i * DAY);
      await engine.createTransaction({
        type: 'TRANSFER',
        transactionId: `d-${i}`,
        timestamp: clock.now(),
        originUserId: 'u1',
        destinationUserId: 'u2',
        originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
      });
    }
    const before = await engine.repositories.aggregates.listEntries('user-receiving', 'u2');
    const preview = await engine.pruneSeries({ dryRun: true });
    expect(preview.removed).toBe(0);
    expect(await engine.repositories.aggregates.listEntries('user-receiving', 'u2')).toEqual(before);
    const result = await engine.pruneSeries();
    expect(result.series).toEqual(preview.series);
    expect(result.removed).toBeGreaterThan(0);
    // R-69 reads user-receiving furthest, over 2 days (+ a day's margin + 12 h late arrivals).
    const horizon = result.series.find((s) => s.name === 'user-receiving')?.prunedBefore as number;
    expect(horizon).toBe(clock.now() - LATE_MS - 3 * DAY);
    expect((await engine.repositories.aggregates.listEntries('user-receiving', 'u2')).map((e) => e.id)).toEqual(
      before.filter((e) => e.timestamp >= horizon).map((e) => e.id),
    );
    // R-1 reads user-sending from the beginning: kept whole.
    expect(result.series.find((s) => s.name === 'user-sending')?.prunedBefore).toBeNull();
    expect(await engine.repositories.aggregates.listEntries('user-sending', 'u1')).toHaveLength(6);
    // The transactions themselves are kept.
    expect((await engine.getTransaction('d-0')).transactionId).toBe('d-0');
  });
});
