import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { r120AverageAmountExceedsPastPeriod } from '../../src/rules/library/r-120-average-amount-exceeds-past-period.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';
import { describeTwoPeriodRule, ONE_DAY, P2, pct, THREE_DAYS, usd, type Past, type TwoPeriodRow } from './kits/two-periods-suite.js';

const engineFor = () => testEngine().engine;

/**
 * R-120 boundary table, through the engine (base currency USD, amounts in USD: exact sums).
 * Period 1 = [T0 − 1 day, T0], period 2 = [T0 − 3 days, T0] (or [T0 − 3 days, T0 − 1 day) with
 * `excludePeriod1`). Each row sends `past` (default alice → bob), then alice → bob at T0 for `amount`.
 */

const two50: Past[] = [
  { at: P2, amount: 50 },
  { at: P2 + 1, amount: 50 },
];

const rows: TwoPeriodRow[] = [
  { name: 'the first transaction never hits (no history), even at 0 %', parameters: pct(0), past: [], amount: 100, directions: [] },
  { name: 'excluded: an average exactly 200 % of period 2 hits (100 vs 50)', past: two50, amount: 100, directions: ['ORIGIN'] },
  { name: 'excluded: one minor unit below does not hit (99.99)', past: two50, amount: 99.99, directions: [] },
  { name: 'excluded: one minor unit above hits (100.01)', past: two50, amount: 100.01, directions: ['ORIGIN'] },
  {
    name: 'excluded: averages are exact below the minor unit (avg 99.995 vs 50 does not hit)',
    past: [...two50, { at: T0 - HOUR, amount: 150 }],
    amount: 49.99,
    directions: [],
  },
  { name: 'excluded: two period-1 amounts averaging exactly 100 hit', past: [...two50, { at: T0 - HOUR, amount: 150 }], amount: 50, directions: ['ORIGIN'] },
  {
    name: 'included: exactly 150 % hits (150 vs (50 + 150) / 2)',
    parameters: { ...pct(150), excludePeriod1: false },
    past: [{ at: P2, amount: 50 }],
    amount: 150,
    directions: ['ORIGIN'],
  },
  {
    name: 'included: one minor unit below 150 % does not hit (149.99 vs 99.995)',
    parameters: { ...pct(150), excludePeriod1: false },
    past: [{ at: P2, amount: 50 }],
    amount: 149.99,
    directions: [],
  },
  {
    name: 'period1/period2 boundary: an amount exactly at period 1 start is in period 1 (avg 100 vs 50)',
    past: [
      { at: P2, amount: 50 },
      { at: T0 - DAY, amount: 150 },
    ],
    amount: 50,
    directions: ['ORIGIN'],
  },
  {
    name: 'period1/period2 boundary: 1 ms before period 1 start is in period 2 (avg 50 vs 100)',
    past: [
      { at: P2, amount: 50 },
      { at: T0 - DAY - 1, amount: 150 },
    ],
    amount: 50,
    directions: [],
  },
  {
    name: 'period 2 start: an amount exactly at T0 − 3 days counts',
    parameters: pct(0),
    past: [{ at: T0 - 3 * DAY, amount: 10 }],
    amount: 1,
    directions: ['ORIGIN'],
  },
  { name: 'period 2 start: 1 ms earlier is outside (no history)', parameters: pct(0), past: [{ at: T0 - 3 * DAY - 1, amount: 10 }], amount: 1, directions: [] },
  { name: 'a zero average in period 2 never hits', parameters: pct(0), past: [{ at: P2, amount: 0 }], amount: 100, directions: [] },
  {
    name: 'transactionsNumberThreshold2 min equal to count2 hits',
    parameters: { transactionsNumberThreshold2: { min: 2 } },
    past: two50,
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'transactionsNumberThreshold2 min one above count2 does not hit',
    parameters: { transactionsNumberThreshold2: { min: 3 } },
    past: two50,
    amount: 100,
    directions: [],
  },
  {
    name: 'the default transactionsNumberThreshold2 (min 5) blocks a 2-transaction history',
    parameters: { transactionsNumberThreshold2: { min: 5 } },
    past: two50,
    amount: 1000,
    directions: [],
  },
  {
    name: 'transactionsNumberThreshold min one above count1 does not hit',
    parameters: { transactionsNumberThreshold: { min: 2 } },
    past: two50,
    amount: 100,
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 min exactly at the period-1 average hits',
    parameters: { valueThresholdPeriod1: { min: 100 } },
    past: two50,
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'valueThresholdPeriod1 min one minor unit above does not hit',
    parameters: { valueThresholdPeriod1: { min: 100.01 } },
    past: two50,
    amount: 100,
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 max one minor unit below does not hit',
    parameters: { valueThresholdPeriod1: { max: 99.99 } },
    past: two50,
    amount: 100,
    directions: [],
  },
  {
    name: 'period 2 not longer than period 1 never hits',
    parameters: { ...pct(0), period2: ONE_DAY },
    past: [{ at: T0 - HOUR, amount: 10 }],
    amount: 100,
    directions: [],
  },
  {
    name: "checkReceiver 'receiving': the receiver's averages hit DESTINATION",
    parameters: { checkSender: 'none', checkReceiver: 'receiving' },
    past: [{ at: P2, amount: 50, origin: 'carol', destination: 'bob' }],
    amount: 100,
    directions: ['DESTINATION'],
  },
  {
    name: "checkSender 'sending': amounts the sender received do not count",
    parameters: { ...pct(0), checkSender: 'sending' },
    past: [{ at: P2, amount: 50, origin: 'carol', destination: 'alice' }],
    amount: 100,
    directions: [],
  },
];

const BASE = {
  period1: ONE_DAY,
  period2: THREE_DAYS,
  ...pct(200),
  excludePeriod1: true,
  transactionsNumberThreshold2: {},
  checkSender: 'sending',
  checkReceiver: 'none',
};

describeTwoPeriodRule({
  rule: r120AverageAmountExceedsPastPeriod,
  base: BASE,
  rows,
  description: {
    name: 'names both averages and the ratio in the description',
    past: two50,
    amount: 100,
    text: 'Sender average amount in 1 day (100.00 USD) is 200.00% of the average in 3 days (50.00 USD), at or above 200%.',
  },
  defaults: {
    name: 'uses the source defaults (docs/wire-format.md#rule-library)',
    expected: {
      period1: { units: 1, granularity: 'day' },
      period2: { units: 2, granularity: 'day' },
      transactionsNumberThreshold2: { min: 5 },
      multiplierThreshold: { currency: 'USD', value: 200 },
    },
  },
  invalid: [
    { name: 'a negative multiplier', parameters: { multiplierThreshold: { currency: 'USD', value: -1 } }, path: '/parameters/multiplierThreshold/value' },
    { name: 'a multiplier as a bare number', parameters: { multiplierThreshold: 200 }, path: '/parameters/multiplierThreshold' },
    { name: 'a negative average bound', parameters: { valueThresholdPeriod1: { max: -1 } }, path: '/parameters/valueThresholdPeriod1/max' },
    {
      name: 'an unknown count-range property',
      parameters: { transactionsNumberThreshold2: { minimum: 5 } },
      path: '/parameters/transactionsNumberThreshold2/minimum',
    },
  ],
});

describe('properties', () => {
  const pastArb = fc.array(fc.record({ offset: fc.integer({ min: -4 * DAY, max: HOUR }), cents: fc.integer({ min: 0, max: 10_000 }) }), { maxLength: 10 });
  test.prop([pastArb, fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 400 }), fc.boolean()], { numRuns: 60 })(
    'the sender side hits exactly when brute-force averages over the two periods say so',
    async (past, currentCents, percent, exclude) => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-120', parameters: { ...BASE, ...pct(percent), excludePeriod1: exclude } });
      for (const p of past) await engine.createTransaction(tx({ timestamp: T0 + p.offset, ...usd(p.cents / 100) }));
      const r = await engine.createTransaction(tx({ timestamp: T0, ...usd(currentCents / 100) }));
      const counted = past.filter((p) => p.offset <= 0);
      const inPeriod1 = counted.filter((p) => p.offset >= -DAY);
      const before = counted.filter((p) => p.offset >= -3 * DAY && p.offset < -DAY);
      const total = (ps: typeof past) => ps.reduce((a, p) => a + BigInt(p.cents), 0n);
      const sum1 = BigInt(currentCents) + total(inPeriod1);
      const n1 = BigInt(inPeriod1.length + 1);
      const sum2 = exclude ? total(before) : total(before) + sum1;
      const n2 = exclude ? BigInt(before.length) : BigInt(before.length) + n1;
      const expected = before.length > 0 && sum2 > 0n && sum1 * n2 * 100n >= BigInt(percent) * sum2 * n1;
      expect(r.hitRules.length > 0).toBe(expected);
    },
  );
});
