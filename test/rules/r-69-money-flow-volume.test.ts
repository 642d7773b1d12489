import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';
import { fc, test as fcTest } from '@fast-check/vitest';
import { deepFreeze } from '../../src/domain/json.js';
import { createFixedRateProvider, formatMoney } from '../../src/domain/money.js';
import { createSideNames, receiverReads, senderReads, sumAmounts, sumCounts, type SideRead } from '../../src/rules/kits/directions.js';
import { r69MoneyFlowVolume } from '../../src/rules/library/r-69-money-flow-volume.js';
import { resolveThreshold } from '../../src/rules/parameters.js';
import type { AggregateValue } from '../../src/aggregation/aggregate-store.js';
import type { LibraryRuleParameters } from '../../src/rules/registry.js';
import type { RuleHit } from '../../src/rules/types.js';
import { CURRENCIES, type money, thresholdsArb } from './threshold-fixtures.js';

/**
 * R-69 boundary table, through the engine. Each row sends the sender's amounts in arrival order
 * (1 ms apart unless a row says otherwise) and names which transactions hit. Money is exact
 * (docs/wire-format.md#money): thresholds and sums are exact (decimal, never accumulated binary
 * floats) — so a volume that equals the threshold in the threshold's own currency must hit, and
 * one minor unit less must not.
 */

const ROLLING_DAY = { units: 1, granularity: 'day', rollingBasis: true };

interface Row {
  name: string;
  currency: string;
  threshold: number;
  upper?: number;
  initialTransactions?: number;
  amounts: number[];
  /** Offsets from T0 of each transaction (default: 0, 1, 2, …). */
  at?: number[];
  hits: boolean[];
}

const exactRows: Row[] = [];
for (const currency of ['USD', 'EUR', 'GBP', 'CHF']) {
  exactRows.push(
    { name: `${currency}: 0.1 + 0.2 reaches a threshold of 0.3 exactly`, currency, threshold: 0.3, amounts: [0.1, 0.2], hits: [false, true] },
    { name: `${currency}: 0.1 + 0.19 stays below 0.3`, currency, threshold: 0.3, amounts: [0.1, 0.19], hits: [false, false] },
    {
      name: `${currency}: 3 × 3333.33 + 0.01 reaches 10000 exactly`,
      currency,
      threshold: 10000,
      amounts: [3333.33, 3333.33, 3333.33, 0.01],
      hits: [false, false, false, true],
    },
    { name: `${currency}: a single transaction exactly at 10000 hits (≥)`, currency, threshold: 10000, amounts: [10000], hits: [true] },
    { name: `${currency}: a single transaction 0.01 below 10000 does not hit`, currency, threshold: 10000, amounts: [9999.99], hits: [false] },
    {
      name: `${currency}: a volume 0.01 below a large threshold (1e9) does not hit`,
      currency,
      threshold: 1e9,
      amounts: [500_000_000, 499_999_999.99],
      hits: [false, false],
    },
    {
      name: `${currency}: a volume exactly at a large threshold (1e9) hits`,
      currency,
      threshold: 1e9,
      amounts: [500_000_000, 500_000_000],
      hits: [false, true],
    },
  );
}

// JPY has no minor unit: whole amounts only.
exactRows.push(
  { name: 'JPY: 3333 + 3333 + 3334 reaches 10000 exactly', currency: 'JPY', threshold: 10000, amounts: [3333, 3333, 3334], hits: [false, false, true] },
  { name: 'JPY: 3333 + 3333 + 3333 stays below 10000', currency: 'JPY', threshold: 10000, amounts: [3333, 3333, 3333], hits: [false, false, false] },
  { name: 'JPY: a single transaction exactly at 10000 hits (≥)', currency: 'JPY', threshold: 10000, amounts: [10000], hits: [true] },
);

const rows: Row[] = [
  ...exactRows,
  {
    name: 'upper bound: a volume exactly at the upper bound still hits (inclusive)',
    currency: 'USD',
    threshold: 100,
    upper: 200,
    amounts: [200],
    hits: [true],
  },
  { name: 'upper bound: a volume 0.01 above the upper bound does not hit', currency: 'USD', threshold: 100, upper: 200, amounts: [200.01], hits: [false] },
  { name: 'upper bound: a volume exactly at the lower threshold hits', currency: 'USD', threshold: 100, upper: 200, amounts: [100], hits: [true] },
  {
    name: 'upper bound: crossing the upper bound in steps stops the hits',
    currency: 'USD',
    threshold: 100,
    upper: 200,
    amounts: [60, 60, 60, 60],
    hits: [false, true, true, false],
  },
  {
    name: 'upper bound: exact decimals at the upper bound (0.1 + 0.2 ≤ 0.3)',
    currency: 'USD',
    threshold: 0.2,
    upper: 0.3,
    amounts: [0.1, 0.2],
    hits: [false, true],
  },
  {
    name: 'initialTransactions 3: the first two transactions never hit, the third does',
    currency: 'USD',
    threshold: 10,
    initialTransactions: 3,
    amounts: [100, 100, 100],
    hits: [false, false, true],
  },
  { name: 'initialTransactions 1 behaves like none', currency: 'USD', threshold: 10, initialTransactions: 1, amounts: [100], hits: [true] },
  { name: 'initialTransactions 0 behaves like none', currency: 'USD', threshold: 10, initialTransactions: 0, amounts: [100], hits: [true] },
  { name: 'rolling day: an amount exactly at the window start counts', currency: 'USD', threshold: 100, amounts: [50, 50], at: [-DAY, 0], hits: [false, true] },
  {
    name: 'rolling day: an amount 1 ms before the window start does not count',
    currency: 'USD',
    threshold: 100,
    amounts: [50, 50],
    at: [-DAY - 1, 0],
    hits: [false, false],
  },
  {
    name: 'an amount after the current timestamp (arrived earlier) does not count',
    currency: 'USD',
    threshold: 100,
    amounts: [50, 50],
    at: [HOUR, 0],
    hits: [false, false],
  },
];

describe('R-69 money flow volume', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: {
          transactionVolumeThreshold: { [row.currency]: row.threshold },
          ...(row.upper !== undefined ? { transactionVolumeUpperThreshold: { [row.currency]: row.upper } } : {}),
          ...(row.initialTransactions !== undefined ? { initialTransactions: row.initialTransactions } : {}),
          timeWindow: ROLLING_DAY,
          checkSender: 'sending',
          checkReceiver: 'none',
        },
      });
      const hits: boolean[] = [];
      for (const [i, amount] of row.amounts.entries()) {
        const r = await engine.createTransaction(
          tx({
            timestamp: T0 + (row.at?.[i] ?? i),
            originAmountDetails: { transactionAmount: amount, transactionCurrency: row.currency },
            destinationAmountDetails: undefined,
          }),
        );
        hits.push(r.hitRules.length > 0);
        if (r.hitRules.length > 0) expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN']);
      }
      expect(hits).toEqual(row.hits);
    });
  }

  it("sums the receiver's received volume on the receiver side", async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-69',
      parameters: { transactionVolumeThreshold: { USD: 100 }, timeWindow: ROLLING_DAY, checkSender: 'none', checkReceiver: 'receiving' },
    });
    await engine.createTransaction(
      tx({
        timestamp: T0 - 1,
        originUserId: 'carol',
        originAmountDetails: { transactionAmount: 60, transactionCurrency: 'USD' },
        destinationAmountDetails: undefined,
      }),
    );
    const r = await engine.createTransaction(
      tx({ timestamp: T0, originAmountDetails: { transactionAmount: 40, transactionCurrency: 'USD' }, destinationAmountDetails: undefined }),
    );
    expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['DESTINATION']);
  });

  it("checkSender 'all' adds the sender's received volume", async () => {
    const { engine } = testEngine();
    const params = (checkSender: string) => ({
      ruleId: 'R-69',
      parameters: { transactionVolumeThreshold: { USD: 100 }, timeWindow: ROLLING_DAY, checkSender, checkReceiver: 'none' },
    });
    const all = await engine.createRuleInstance(params('all'));
    const sending = await engine.createRuleInstance(params('sending'));
    await engine.createTransaction(
      tx({
        timestamp: T0 - 1,
        originUserId: 'carol',
        destinationUserId: 'alice',
        originAmountDetails: { transactionAmount: 60, transactionCurrency: 'USD' },
        destinationAmountDetails: undefined,
      }),
    );
    const r = await engine.createTransaction(
      tx({ timestamp: T0, originAmountDetails: { transactionAmount: 40, transactionCurrency: 'USD' }, destinationAmountDetails: undefined }),
    );
    const hitIds = r.hitRules.map((h) => h.ruleInstanceId);
    expect(hitIds).toContain(all.id);
    expect(hitIds).not.toContain(sending.id);
  });

  it('an amount lowered by an event of a past transaction is replaced in the volume, not added', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-69',
      parameters: { transactionVolumeThreshold: { USD: 100 }, timeWindow: ROLLING_DAY, checkSender: 'sending', checkReceiver: 'none' },
    });
    const past = tx({ timestamp: T0 - 10, originAmountDetails: { transactionAmount: 90, transactionCurrency: 'USD' }, destinationAmountDetails: undefined });
    await engine.createTransaction(past);
    await engine.createTransactionEvent({
      transactionId: past.transactionId,
      timestamp: T0 - 5,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 89.99, transactionCurrency: 'USD' } },
    });
    const r = await engine.createTransaction(
      tx({ timestamp: T0, originAmountDetails: { transactionAmount: 10, transactionCurrency: 'USD' }, destinationAmountDetails: undefined }),
    );
    // 89.99 + 10 = 99.99 < 100 (the old 90 must be gone, and never counted twice).
    expect(r.hitRules).toEqual([]);
  });
});

const VOLUME = createSideNames('v');
const HISTORY = createSideNames('h');
/** A reference R-69 check: resolve each threshold, then compare. */
function referenceR69(transaction: never, parameters: LibraryRuleParameters['R-69'], aggregates: Record<string, AggregateValue>, m: typeof money): RuleHit[] {
  const hits: RuleHit[] = [];
  const t = transaction as { timestamp: number };
  const side = (direction: 'ORIGIN' | 'DESTINATION', volume: readonly SideRead[] | null, history: readonly SideRead[] | null) => {
    if (!volume) return;
    if (parameters.initialTransactions !== undefined && parameters.initialTransactions > 0) {
      if (sumCounts(aggregates, history ?? []) < parameters.initialTransactions) return;
    }
    const total = sumAmounts(aggregates, volume);
    const resolved = resolveThreshold(parameters.transactionVolumeThreshold, total, m.baseCurrency, m, t.timestamp);
    if (!resolved || resolved.amount < resolved.threshold) return;
    const upper = parameters.transactionVolumeUpperThreshold;
    if (upper && Object.keys(upper).length > 0) {
      const bound = resolveThreshold(upper, total, m.baseCurrency, m, t.timestamp);
      if (bound && bound.amount > bound.threshold) return;
    }
    hits.push({
      direction,
      vars: {
        side: direction === 'ORIGIN' ? 'Sender' : 'Receiver',
        window: '1 day',
        volume: formatMoney(resolved.amount, resolved.currency),
        threshold: formatMoney(resolved.threshold, resolved.currency),
      },
    });
  };
  side('ORIGIN', senderReads(transaction, parameters.checkSender, VOLUME), senderReads(transaction, parameters.checkSender, HISTORY));
  side('DESTINATION', receiverReads(transaction, parameters.checkReceiver, VOLUME), receiverReads(transaction, parameters.checkReceiver, HISTORY));
  return hits;
}

describe('R-69 against a resolve-then-compare reference', () => {
  fcTest.prop([
    fc.dictionary(
      fc.constantFrom(...CURRENCIES),
      fc.integer({ min: 0, max: 2_000_000 }).map((n) => n / 100),
      { minKeys: 1, maxKeys: 3 },
    ),
    fc.option(thresholdsArb, { nil: undefined }),
    fc.constantFrom('sending', 'all', 'none'),
    fc.constantFrom('receiving', 'all', 'none'),
    fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    fc.array(fc.bigInt({ min: 0n, max: 3_000_000_000_000_000n }), { minLength: 8, maxLength: 8 }),
    fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 8, maxLength: 8 }),
    fc.constantFrom('USD', 'EUR', 'JPY'),
  ])(
    'with upper thresholds and initial transactions, hits and describes as the resolve-then-compare reference',
    (lower, upper, checkSender, checkReceiver, initialTransactions, sums, counts, base) => {
      const t = tx({ timestamp: T0 }) as never;
      const parameters: LibraryRuleParameters['R-69'] = deepFreeze({
        transactionVolumeThreshold: lower,
        ...(upper !== undefined ? { transactionVolumeUpperThreshold: upper } : {}),
        timeWindow: { units: 1, granularity: 'day' as const, rollingBasis: true },
        checkSender,
        checkReceiver,
        ...(initialTransactions !== undefined ? { initialTransactions } : {}),
      });
      const needs = r69MoneyFlowVolume.aggregates?.({ transaction: t, parameters: parameters as never }) ?? [];
      const aggregates: Record<string, AggregateValue> = {};
      for (const [i, n] of needs.entries()) aggregates[n.name] = (n.fn === 'sum' ? sums[i % 8] : n.fn === 'count' ? counts[i % 8] : []) as AggregateValue;
      const m = { rates: createFixedRateProvider(), baseCurrency: base };
      const got = r69MoneyFlowVolume.check({ transaction: t, parameters, originUser: null, destinationUser: null, aggregates, money: m } as never);
      // The decision and its description (the evidence is pinned by test/rules/evidence-oracle.test.ts).
      expect(got.map(({ evidence: _evidence, ...hit }) => hit)).toEqual(referenceR69(t, parameters, aggregates, m));
    },
  );
});
