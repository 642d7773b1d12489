import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createFixedRateProvider } from '../../src/index.js';
import { toScaled } from '../../src/domain/money.js';
import { twiceMedian, unusualSide } from '../../src/rules/library/txm-3-unusual-amount.js';
import { DAY, HOUR, T0, errorOf, testEngine } from '../helpers.js';

/** One EUR is two USD: conversions in these tests are exact. */
const HALF_EUR = createFixedRateProvider({ USD: '1', EUR: '0.5' });

const BASE = {
  checkDirection: 'sending',
  timeWindow: { units: 90, granularity: 'day', rollingBasis: true },
  historyTransactions: 20,
  minimumHistory: 5,
  aboveMultiplier: 5,
  belowMultiplier: 10,
};

async function engineWith(parameters: Record<string, unknown> = {}) {
  const { engine } = testEngine({ rates: HALF_EUR });
  await engine.createRuleInstance({ ruleId: 'TXM-3', parameters: { ...BASE, ...parameters } });
  return engine;
}

let n = 0;
function payment(at: number, sender: string | undefined, receiver: string | undefined, amount: number, currency = 'USD') {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `txm3-${String(n).padStart(6, '0')}`,
    timestamp: at,
    ...(sender === undefined ? {} : { originUserId: sender }),
    ...(receiver === undefined ? {} : { destinationUserId: receiver }),
    originAmountDetails: { transactionAmount: amount, transactionCurrency: currency },
    destinationAmountDetails: { transactionAmount: amount, transactionCurrency: currency },
  };
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'TXM-3').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** Alice sends `history` (one a day), then `amount` a day later; the hit directions of that last one. */
async function judge(parameters: Record<string, unknown>, history: readonly number[], amount: number, options: { gap?: number; currency?: string } = {}) {
  const engine = await engineWith(parameters);
  let at = T0;
  for (const h of history) {
    await engine.createTransaction(payment(at, 'alice', 'bob', h));
    at += DAY;
  }
  return hitsOf(await engine.createTransaction(payment(at - DAY + (options.gap ?? DAY), 'alice', 'bob', amount, options.currency)));
}

const FIVE = [100, 100, 100, 100, 100];

/** `num / den` as decimal text at a fixed 12 places, trailing zeros trimmed (the test's own formatting; exact for these inputs). */
function decimal(num: bigint, den: bigint): string {
  const scale = 10n ** 12n;
  expect((num * scale) % den).toBe(0n);
  const units = (num * scale) / den;
  const fraction = (units % scale).toString().padStart(12, '0').replace(/0+$/, '');
  return fraction ? `${units / scale}.${fraction}` : `${units / scale}`;
}

describe('TXM-3 Amount unusual for this user (both directions)', () => {
  const rows: { name: string; parameters?: Record<string, unknown>; history: number[]; amount: number; gap?: number; currency?: string; expected: string[] }[] =
    [
      { name: 'exactly 5 × the median hits the sender', history: FIVE, amount: 500, expected: ['ORIGIN'] },
      { name: 'one minor unit below 5 × the median does not', history: FIVE, amount: 499.99, expected: [] },
      { name: 'exactly the median ÷ 10 hits', history: FIVE, amount: 10, expected: ['ORIGIN'] },
      { name: 'one minor unit above the median ÷ 10 does not', history: FIVE, amount: 10.01, expected: [] },
      { name: 'four earlier transactions are below minimumHistory 5', history: [100, 100, 100, 100], amount: 1000, expected: [] },
      { name: 'the median, not the mean: one earlier outlier does not move it', history: [100, 100, 100, 100, 100_000], amount: 500, expected: ['ORIGIN'] },
      {
        name: 'an even count takes the mean of the two middle amounts (100 and 200 → 150; 750 is 5 ×)',
        history: [100, 100, 100, 200, 200, 200],
        amount: 750,
        expected: ['ORIGIN'],
      },
      { name: 'an even count: 749.99 is below 5 × 150', history: [100, 100, 100, 200, 200, 200], amount: 749.99, expected: [] },
      { name: 'a fractional factor is exact: 2.5 × 100 = 250 hits', parameters: { aboveMultiplier: 2.5 }, history: FIVE, amount: 250, expected: ['ORIGIN'] },
      { name: 'a fractional factor is exact: 249.99 does not', parameters: { aboveMultiplier: 2.5 }, history: FIVE, amount: 249.99, expected: [] },
      { name: 'aboveMultiplier null: no check above', parameters: { aboveMultiplier: null }, history: FIVE, amount: 100_000, expected: [] },
      { name: 'belowMultiplier null: no check below', parameters: { belowMultiplier: null }, history: FIVE, amount: 0.01, expected: [] },
      {
        name: 'historyTransactions 5: only the latest five count (median 100)',
        parameters: { historyTransactions: 5 },
        history: [1000, 1000, 1000, 1000, 1000, 100, 100, 100, 100, 100],
        amount: 500,
        expected: ['ORIGIN'],
      },
      {
        name: 'historyTransactions 20: all ten count (median 550)',
        history: [1000, 1000, 1000, 1000, 1000, 100, 100, 100, 100, 100],
        amount: 500,
        expected: [],
      },
      {
        name: 'window: a transaction exactly the window (2 days) before is read',
        parameters: { timeWindow: { units: 2, granularity: 'day', rollingBasis: true }, minimumHistory: 1 },
        history: [100],
        amount: 500,
        gap: 2 * DAY,
        expected: ['ORIGIN'],
      },
      {
        name: 'window: one 1 ms further back is not',
        parameters: { timeWindow: { units: 2, granularity: 'day', rollingBasis: true }, minimumHistory: 1 },
        history: [100],
        amount: 500,
        gap: 2 * DAY + 1,
        expected: [],
      },
      { name: 'currencies: EUR 250 is USD 500, 5 × the median', history: FIVE, amount: 250, currency: 'EUR', expected: ['ORIGIN'] },
      { name: 'currencies: EUR 249.99 is USD 499.98', history: FIVE, amount: 249.99, currency: 'EUR', expected: [] },
      { name: 'a median of zero never decides', history: [0, 0, 0, 0, 0], amount: 1000, expected: [] },
    ];
  for (const row of rows) {
    it(row.name, async () => {
      const options = { ...(row.gap === undefined ? {} : { gap: row.gap }), ...(row.currency === undefined ? {} : { currency: row.currency }) };
      expect(await judge(row.parameters ?? {}, row.history, row.amount, options)).toEqual(row.expected);
    });
  }

  it('gives the exact comparison and the transactions the median is of as evidence (below: amount × factor ≤ median)', async () => {
    const engine = await engineWith({ timeWindow: { units: 10, granularity: 'day', rollingBasis: true } });
    const ids: string[] = [];
    for (const [i, amount] of [100, 100, 101, 100, 100].entries()) {
      const t = payment(T0 + i * HOUR, 'alice', 'bob', amount);
      ids.push(t.transactionId);
      await engine.createTransaction(t);
    }
    const result = await engine.createTransaction(payment(T0 + DAY, 'alice', 'bob', 9.99));
    expect(result.hitRules.find((h) => h.ruleId === 'TXM-3')?.ruleHitMeta?.evidence).toEqual([
      { direction: 'ORIGIN', kind: 'amountBelowMedian', value: '99.9', comparison: '<=', limit: '100', currency: 'USD', amount: '9.99', multiplier: 10 },
      {
        direction: 'ORIGIN',
        kind: 'history',
        value: 5,
        comparison: '>=',
        limit: 5,
        window: { start: T0 + DAY - 10 * DAY, end: T0 + DAY, units: 10, granularity: 'day', rolling: true },
        transactionCount: 5,
        transactionIds: ids.reverse(),
      },
    ]);
  });

  it("'receiving' judges the receiver against what it usually receives and hits DESTINATION", async () => {
    const engine = await engineWith({ checkDirection: 'receiving' });
    for (let i = 0; i < 5; i++) await engine.createTransaction(payment(T0 + i * HOUR, undefined, 'carol', 100));
    expect(hitsOf(await engine.createTransaction(payment(T0 + DAY, 'alice', 'carol', 600)))).toEqual(['DESTINATION']);
  });

  it("'all' judges each side against its own direction", async () => {
    const engine = await engineWith({ checkDirection: 'all' });
    for (let i = 0; i < 5; i++) {
      await engine.createTransaction(payment(T0 + i * HOUR, 'alice', undefined, 100));
      await engine.createTransaction(payment(T0 + i * HOUR, undefined, 'carol', 1000));
    }
    // 600 is 6 × what alice sends and 0.6 × what carol receives.
    expect(hitsOf(await engine.createTransaction(payment(T0 + DAY, 'alice', 'carol', 600)))).toEqual(['ORIGIN']);
    // 50 is half of what alice sends and 1/20 of what carol receives.
    expect(hitsOf(await engine.createTransaction(payment(T0 + DAY + 1, 'alice', 'carol', 50)))).toEqual(['DESTINATION']);
  });

  const badRows = [
    { name: 'both multipliers null', parameters: { aboveMultiplier: null, belowMultiplier: null }, path: '/parameters/aboveMultiplier' },
    { name: 'a multiplier below 1', parameters: { aboveMultiplier: 0.5 }, path: '/parameters/aboveMultiplier' },
    { name: 'minimumHistory above historyTransactions', parameters: { historyTransactions: 3, minimumHistory: 4 }, path: '/parameters/minimumHistory' },
    { name: 'historyTransactions above 1,000', parameters: { historyTransactions: 1001 }, path: '/parameters/historyTransactions' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const { engine } = testEngine();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'TXM-3', parameters: { ...BASE, ...row.parameters } }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('unusualSide', () => {
  const rows = [
    { name: 'at the upper bound', input: { amount: 500n, twice: 200n, above: 5, below: 10 }, expected: 'above' },
    { name: 'one unit under it', input: { amount: 499n, twice: 200n, above: 5, below: 10 }, expected: null },
    { name: 'at the lower bound', input: { amount: 10n, twice: 200n, above: 5, below: 10 }, expected: 'below' },
    { name: 'one unit over it', input: { amount: 11n, twice: 200n, above: 5, below: 10 }, expected: null },
    {
      name: 'a half-unit median (twice odd): 5 × 50.5 = 252.5, 253 reaches it',
      input: { amount: 253n, twice: 101n, above: 5, below: null },
      expected: 'above',
    },
    { name: 'a half-unit median: 252 does not', input: { amount: 252n, twice: 101n, above: 5, below: null }, expected: null },
  ] as const;
  it.each(rows)('$name', ({ input, expected }) => {
    expect(unusualSide(input.amount, input.twice, input.above, input.below)).toBe(expected);
  });
});

describe('properties', () => {
  const amounts = fc.constantFrom(0.01, 1, 10, 20, 99.99, 100, 100.01, 200, 500, 1000);
  const parameters = fc.record({
    historyTransactions: fc.integer({ min: 1, max: 8 }),
    minimumHistory: fc.integer({ min: 1, max: 8 }),
    aboveMultiplier: fc.constantFrom(null, 1, 2.5, 5),
    belowMultiplier: fc.constantFrom(null, 1, 3, 10),
    days: fc.constantFrom(1, 3),
  });
  const step = fc.record({ amount: amounts, gapMs: fc.constantFrom(0, 1, HOUR, DAY, DAY + 1), receiving: fc.boolean() });
  test.prop([fc.array(step, { minLength: 1, maxLength: 30 }), parameters], { numRuns: 60 })(
    'hits exactly when the median of the last N amounts in the window, recomputed by brute force, says so, with those values and transactions as evidence',
    async (steps, p) => {
      fc.pre(p.minimumHistory <= p.historyTransactions && (p.aboveMultiplier !== null || p.belowMultiplier !== null));
      const engine = await engineWith({
        checkDirection: 'all',
        historyTransactions: p.historyTransactions,
        minimumHistory: p.minimumHistory,
        aboveMultiplier: p.aboveMultiplier,
        belowMultiplier: p.belowMultiplier,
        timeWindow: { units: p.days, granularity: 'day', rollingBasis: true },
      });
      const history: { id: string; at: number; sender: string | undefined; receiver: string | undefined; amount: bigint }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapMs;
        const [sender, receiver] = s.receiving ? [undefined, 'alice'] : ['alice', undefined];
        const t = payment(at, sender, receiver, s.amount);
        const r = await engine.createTransaction(t);
        const amount = toScaled(s.amount);
        const direction = s.receiving ? 'DESTINATION' : 'ORIGIN';
        /** The evidence a hit must carry, `null`: no hit. */
        const verdict = (side: 'sender' | 'receiver'): unknown[] | null => {
          const read = history
            .filter((h) => h[side] === 'alice' && h.at >= at - p.days * DAY)
            .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
            .slice(-p.historyTransactions);
          const earlier = read.map((h) => h.amount).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          if (earlier.length < p.minimumHistory) return null;
          // Median × 2, compared with amount × 2: no fractions.
          const twice = (earlier[Math.floor((earlier.length - 1) / 2)] as bigint) + (earlier[Math.floor(earlier.length / 2)] as bigint);
          if (twice <= 0n) return null;
          const k = (m: number) => BigInt(Math.round(m * 100)); // factors to 10^-2: 2.5 → 250
          const median = decimal(twice, 2n * 10n ** 8n);
          const historyItem = {
            direction,
            kind: 'history',
            value: read.length,
            comparison: '>=',
            limit: p.minimumHistory,
            window: { start: at - p.days * DAY, end: at, units: p.days, granularity: 'day', rolling: true },
            transactionCount: read.length,
            transactionIds: read.map((h) => h.id).reverse(),
          };
          const base = { direction, currency: 'USD' };
          if (p.aboveMultiplier !== null && 2n * amount * 100n >= k(p.aboveMultiplier) * twice) {
            const limit = decimal(k(p.aboveMultiplier) * twice, 200n * 10n ** 8n);
            return [
              { ...base, kind: 'amountAboveMedian', value: decimal(amount, 10n ** 8n), comparison: '>=', limit, median, multiplier: p.aboveMultiplier },
              historyItem,
            ];
          }
          if (p.belowMultiplier !== null && 2n * amount * k(p.belowMultiplier) <= twice * 100n) {
            const value = decimal(amount * k(p.belowMultiplier), 100n * 10n ** 8n);
            return [
              { ...base, kind: 'amountBelowMedian', value, comparison: '<=', limit: median, amount: decimal(amount, 10n ** 8n), multiplier: p.belowMultiplier },
              historyItem,
            ];
          }
          return null;
        };
        const evidence = verdict(s.receiving ? 'receiver' : 'sender');
        expect(hitsOf(r), `step at ${at - T0} ms`).toEqual(evidence === null ? [] : [direction]);
        // The values compared, exact, and the transactions the median is of, newest first.
        if (evidence !== null) expect(r.hitRules.find((h) => h.ruleId === 'TXM-3')?.ruleHitMeta?.evidence).toEqual(evidence);
        history.push({ id: t.transactionId, at, sender, receiver, amount });
      }
    },
  );

  test.prop([fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 15 })])(
    'twiceMedian is twice the median of a sorted copy',
    (values) => {
      const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const n = sorted.length;
      const expected = n % 2 === 1 ? 2n * (sorted[(n - 1) / 2] as bigint) : (sorted[n / 2 - 1] as bigint) + (sorted[n / 2] as bigint);
      expect(twiceMedian(values)).toBe(expected);
    },
  );
});
