import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { r122AverageDailyAmountExceedsPastPeriod } from '../../src/rules/library/r-122-average-daily-amount-exceeds-past-period.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';
import { CAL_1, CAL_3, D0, describeTwoPeriodRule, ONE_DAY, P2, pct, THREE_DAYS, usd, type Past, type TwoPeriodRow } from './kits/two-periods-suite.js';

const engineFor = () => testEngine().engine;

/**
 * R-122 boundary table, through the engine (base currency USD, amounts in USD: exact sums).
 * Period 1 = [T0 − 1 day, T0] (1 day long), period 2 = [T0 − 3 days, T0] (3 days), or with
 * `excludePeriod1` [T0 − 3 days, T0 − 1 day) (2 days). Calendar rows: T0 is 12:00 UTC, so a
 * calendar day has lasted 0.5 days and 3 calendar days 2.5 days. Each row sends `past` (default
 * alice → bob), then alice → bob at `now` (default T0) for `amount`.
 */

const one50: Past[] = [{ at: P2, amount: 50 }];

const rows: TwoPeriodRow[] = [
  { name: 'the first transaction never hits (no history), even at 0 %', parameters: pct(0), past: [], amount: 100, directions: [] },
  { name: 'excluded: 50/day vs 50 over 2 days (25/day) is exactly 200 % and hits', past: one50, amount: 50, directions: ['ORIGIN'] },
  { name: 'excluded: one minor unit below does not hit (49.99/day)', past: one50, amount: 49.99, directions: [] },
  { name: 'excluded: one minor unit above hits (50.01/day)', past: one50, amount: 50.01, directions: ['ORIGIN'] },
  {
    name: 'a fractional percentage: 50.25/day vs 25/day is exactly 201 % and hits at 201',
    parameters: pct(201),
    past: one50,
    amount: 50.25,
    directions: ['ORIGIN'],
  },
  { name: 'a fractional percentage: 201.01 % is one hundredth above and does not hit', parameters: pct(201.01), past: one50, amount: 50.25, directions: [] },
  {
    name: 'included: 50/day vs 100 over 3 days is exactly 150 % and hits',
    parameters: { ...pct(150), excludePeriod1: false },
    past: one50,
    amount: 50,
    directions: ['ORIGIN'],
  },
  {
    name: 'included: one minor unit below 150 % does not hit (49.99 vs 99.99 / 3)',
    parameters: { ...pct(150), excludePeriod1: false },
    past: one50,
    amount: 49.99,
    directions: [],
  },
  {
    name: 'calendar days: 100 in 0.5 day vs 200 in 2.5 days is exactly 250 % and hits',
    parameters: { ...pct(250), excludePeriod1: false, period1: CAL_1, period2: CAL_3 },
    past: [{ at: D0 - DAY, amount: 100 }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'calendar days: one minor unit below 250 % does not hit',
    parameters: { ...pct(250), excludePeriod1: false, period1: CAL_1, period2: CAL_3 },
    past: [{ at: D0 - DAY, amount: 100 }],
    amount: 99.99,
    directions: [],
  },
  {
    name: 'calendar days: a current transaction at exactly 00:00 UTC (period 1 of length 0) never hits',
    parameters: { ...pct(0), period1: CAL_1, period2: CAL_3 },
    past: [{ at: D0 - DAY, amount: 100 }],
    amount: 100,
    now: D0,
    directions: [],
  },
  {
    name: 'calendar days: 00:00 UTC today is period 1, 1 ms before is period 2 (excluded: 100/0.5 vs 100/2 = 400 %)',
    parameters: { ...pct(400), period1: CAL_1, period2: CAL_3 },
    past: [
      { at: D0 - 1, amount: 100 },
      { at: D0, amount: 50 },
    ],
    amount: 50,
    directions: ['ORIGIN'],
  },
  {
    name: 'period1/period2 boundary: an amount exactly at period 1 start is in period 1',
    past: [
      { at: P2, amount: 50 },
      { at: T0 - DAY, amount: 25 },
    ],
    amount: 25,
    directions: ['ORIGIN'],
  },
  {
    name: 'period1/period2 boundary: 1 ms before period 1 start is in period 2',
    past: [
      { at: P2, amount: 50 },
      { at: T0 - DAY - 1, amount: 25 },
    ],
    amount: 25,
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
  { name: 'a zero volume in period 2 never hits', parameters: pct(0), past: [{ at: P2, amount: 0 }], amount: 100, directions: [] },
  {
    name: 'transactionsNumberThreshold2 min one above count2 does not hit',
    parameters: { transactionsNumberThreshold2: { min: 2 } },
    past: one50,
    amount: 50,
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 min exactly at the daily volume hits',
    parameters: { valueThresholdPeriod1: { min: 50 } },
    past: one50,
    amount: 50,
    directions: ['ORIGIN'],
  },
  {
    name: 'valueThresholdPeriod1 min one minor unit above does not hit',
    parameters: { valueThresholdPeriod1: { min: 50.01 } },
    past: one50,
    amount: 50,
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 is per day: 100 in a 0.5-day calendar period is 200/day',
    parameters: { ...pct(0), period1: CAL_1, period2: CAL_3, valueThresholdPeriod1: { min: 200 } },
    past: [{ at: D0 - DAY, amount: 1 }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: "checkReceiver 'receiving': the receiver's daily volume hits DESTINATION",
    parameters: { checkSender: 'none', checkReceiver: 'receiving' },
    past: [{ at: P2, amount: 50, origin: 'carol', destination: 'bob' }],
    amount: 50,
    directions: ['DESTINATION'],
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
  rule: r122AverageDailyAmountExceedsPastPeriod,
  base: BASE,
  rows,
  description: {
    name: 'names both daily volumes and the ratio in the description',
    past: [{ at: P2, amount: 50 }],
    amount: 50,
    text: 'Sender daily volume in 1 day (50.00 USD per day) is 200.00% of the daily volume in 3 days (25.00 USD per day), at or above 200%.',
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
    { name: 'an unknown period granularity', parameters: { period2: { units: 2, granularity: 'fortnight' } }, path: '/parameters/period2/granularity' },
    { name: 'a negative daily-volume bound', parameters: { valueThresholdPeriod1: { min: -0.01 } }, path: '/parameters/valueThresholdPeriod1/min' },
  ],
});

describe('properties', () => {
  const pastArb = fc.array(fc.record({ offset: fc.integer({ min: -4 * DAY, max: HOUR }), cents: fc.integer({ min: 0, max: 10_000 }) }), { maxLength: 10 });
  test.prop([pastArb, fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 400 }), fc.boolean()], { numRuns: 60 })(
    'the sender side hits exactly when brute-force daily volumes over the two periods say so',
    async (past, currentCents, percent, exclude) => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-122', parameters: { ...BASE, ...pct(percent), excludePeriod1: exclude } });
      for (const p of past) await engine.createTransaction(tx({ timestamp: T0 + p.offset, ...usd(p.cents / 100) }));
      const r = await engine.createTransaction(tx({ timestamp: T0, ...usd(currentCents / 100) }));
      const counted = past.filter((p) => p.offset <= 0);
      const inPeriod1 = counted.filter((p) => p.offset >= -DAY);
      const before = counted.filter((p) => p.offset >= -3 * DAY && p.offset < -DAY);
      const total = (ps: typeof past) => ps.reduce((a, p) => a + BigInt(p.cents), 0n);
      const sum1 = BigInt(currentCents) + total(inPeriod1);
      const sum2 = exclude ? total(before) : total(before) + sum1;
      const days1 = 1n;
      const days2 = exclude ? 2n : 3n;
      const expected = before.length > 0 && sum2 > 0n && sum1 * days2 * 100n >= BigInt(percent) * sum2 * days1;
      expect(r.hitRules.length > 0).toBe(expected);
    },
  );
});
