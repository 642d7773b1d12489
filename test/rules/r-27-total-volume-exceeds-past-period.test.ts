import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { r27TotalVolumeExceedsPastPeriod } from '../../src/rules/library/r-27-total-volume-exceeds-past-period.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';
import { describeTwoPeriodRule, ONE_DAY, P2, pct, THREE_DAYS, usd, type TwoPeriodRow } from './kits/two-periods-suite.js';

const engineFor = () => testEngine().engine;

/**
 * R-27 boundary table, through the engine (base currency USD, amounts in USD, so sums are exact).
 * Period 1 = [T0 − 1 day, T0], period 2 = [T0 − 3 days, T0] (closed, ending at the current
 * transaction); with `excludePeriod1` period 2 is [T0 − 3 days, T0 − 1 day). Each row sends `past`
 * transactions (default alice → bob), then the current one alice → bob at T0 for `amount`.
 */

const rows: TwoPeriodRow[] = [
  { name: 'the first transaction never hits (no history), even at 0 %', parameters: pct(0), past: [], amount: 100, directions: [] },
  {
    name: 'history only inside period 1 never hits (nothing before period 1)',
    parameters: pct(0),
    past: [{ at: T0 - HOUR, amount: 10 }],
    amount: 100,
    directions: [],
  },
  { name: 'excluded: exactly 500 % of period 2 hits (100 ≥ 5 × 20)', past: [{ at: P2, amount: 20 }], amount: 100, directions: ['ORIGIN'] },
  { name: 'excluded: one minor unit below 500 % does not hit (99.99)', past: [{ at: P2, amount: 20 }], amount: 99.99, directions: [] },
  { name: 'excluded: one minor unit above 500 % hits (100.01)', past: [{ at: P2, amount: 20 }], amount: 100.01, directions: ['ORIGIN'] },
  { name: 'excluded: period 2 one minor unit higher does not hit (100 vs 5 × 20.01)', past: [{ at: P2, amount: 20.01 }], amount: 100, directions: [] },
  {
    name: 'included: period 1 exactly 50 % of period 2 (which contains it) hits',
    parameters: { ...pct(50), excludePeriod1: false },
    past: [{ at: P2, amount: 100 }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'included: one minor unit below 50 % does not hit (99.99 vs 0.5 × 199.99)',
    parameters: { ...pct(50), excludePeriod1: false },
    past: [{ at: P2, amount: 100 }],
    amount: 99.99,
    directions: [],
  },
  {
    name: 'included: the default 500 % can never hit (period 1 ≤ period 2)',
    parameters: { excludePeriod1: false },
    past: [{ at: P2, amount: 0.01 }],
    amount: 1000,
    directions: [],
  },
  {
    name: 'period1/period2 boundary: an amount exactly at period 1 start counts in period 1 (100 ≥ 2 × 50)',
    parameters: pct(200),
    past: [
      { at: P2, amount: 50 },
      { at: T0 - DAY, amount: 50 },
    ],
    amount: 50,
    directions: ['ORIGIN'],
  },
  {
    name: 'period1/period2 boundary: 1 ms before period 1 start counts in period 2 (50 vs 2 × 100)',
    parameters: pct(200),
    past: [
      { at: P2, amount: 50 },
      { at: T0 - DAY - 1, amount: 50 },
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
  { name: 'an amount after the current timestamp counts nowhere', parameters: pct(0), past: [{ at: T0 + HOUR, amount: 10 }], amount: 1, directions: [] },
  { name: 'a zero volume in period 2 never hits (no infinite spike)', parameters: pct(0), past: [{ at: P2, amount: 0 }], amount: 100, directions: [] },
  {
    name: 'transactionsNumberThreshold min equal to count1 hits',
    parameters: { transactionsNumberThreshold: { min: 1 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'transactionsNumberThreshold min one above count1 does not hit',
    parameters: { transactionsNumberThreshold: { min: 2 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: [],
  },
  {
    name: 'transactionsNumberThreshold max below count1 does not hit',
    parameters: { transactionsNumberThreshold: { max: 0 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: [],
  },
  {
    name: 'transactionsNumberThreshold2 max equal to count2 hits',
    parameters: { transactionsNumberThreshold2: { max: 1 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'transactionsNumberThreshold2 min one above count2 does not hit',
    parameters: { transactionsNumberThreshold2: { min: 2 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: [],
  },
  {
    name: 'transactionsNumberThreshold2 counts period 1 too when it is included (2 > max 1)',
    parameters: { ...pct(50), excludePeriod1: false, transactionsNumberThreshold2: { max: 1 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 min exactly at the period-1 volume hits',
    parameters: { valueThresholdPeriod1: { min: 100 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'valueThresholdPeriod1 min one minor unit above does not hit',
    parameters: { valueThresholdPeriod1: { min: 100.01 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 max exactly at the period-1 volume hits',
    parameters: { valueThresholdPeriod1: { max: 100 } },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: 'valueThresholdPeriod1 max one minor unit below does not hit',
    parameters: { valueThresholdPeriod1: { max: 99.99 } },
    past: [{ at: P2, amount: 20 }],
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
    name: "checkSender 'sending': a volume the sender received does not count",
    parameters: { ...pct(0), checkSender: 'sending' },
    past: [{ at: P2, amount: 20, origin: 'carol', destination: 'alice' }],
    amount: 100,
    directions: [],
  },
  {
    name: "checkSender 'all': a volume the sender received counts",
    parameters: { checkSender: 'all' },
    past: [{ at: P2, amount: 20, origin: 'carol', destination: 'alice' }],
    amount: 100,
    directions: ['ORIGIN'],
  },
  {
    name: "checkReceiver 'receiving': the receiver's volume hits DESTINATION",
    parameters: { checkSender: 'none', checkReceiver: 'receiving' },
    past: [{ at: P2, amount: 20, origin: 'carol', destination: 'bob' }],
    amount: 100,
    directions: ['DESTINATION'],
  },
  {
    name: 'both sides hit when both have history',
    parameters: { checkReceiver: 'receiving' },
    past: [{ at: P2, amount: 20 }],
    amount: 100,
    directions: ['ORIGIN', 'DESTINATION'],
  },
];

const BASE = { period1: ONE_DAY, period2: THREE_DAYS, ...pct(500), excludePeriod1: true, checkSender: 'sending', checkReceiver: 'none' };

describeTwoPeriodRule({
  rule: r27TotalVolumeExceedsPastPeriod,
  base: BASE,
  rows,
  description: {
    name: 'names both volumes, the ratio and the multiplier in the description',
    past: [{ at: P2, amount: 20 }],
    amount: 101,
    text: 'Sender volume in 1 day (101.00 USD) is 505.00% of the volume in 3 days (20.00 USD), at or above 500%.',
  },
  defaults: {
    name: 'uses the source defaults (docs/wire-format.md#rule-library; excludePeriod1 on, as recommended)',
    expected: {
      period1: { units: 7, granularity: 'day' },
      period2: { units: 30, granularity: 'day' },
      multiplierThreshold: { currency: 'USD', value: 500 },
      excludePeriod1: true,
    },
  },
  invalid: [
    { name: 'a multiplier without currency', parameters: { multiplierThreshold: { value: 100 } }, path: '/parameters/multiplierThreshold/currency' },
    {
      name: 'an unknown multiplier currency',
      parameters: { multiplierThreshold: { currency: 'XXQ', value: 100 } },
      path: '/parameters/multiplierThreshold/currency',
    },
    { name: 'a negative multiplier', parameters: { multiplierThreshold: { currency: 'USD', value: -1 } }, path: '/parameters/multiplierThreshold/value' },
    { name: 'a negative count bound', parameters: { transactionsNumberThreshold: { min: -1 } }, path: '/parameters/transactionsNumberThreshold/min' },
    { name: 'a fractional count bound', parameters: { transactionsNumberThreshold2: { max: 1.5 } }, path: '/parameters/transactionsNumberThreshold2/max' },
    { name: 'a negative value bound', parameters: { valueThresholdPeriod1: { min: -1 } }, path: '/parameters/valueThresholdPeriod1/min' },
    { name: 'an unknown period property', parameters: { period1: { units: 1, granularity: 'day', x: 1 } }, path: '/parameters/period1/x' },
    { name: 'an unknown parameter', parameters: { period3: ONE_DAY }, path: '/parameters/period3' },
  ],
});

describe('properties', () => {
  const pastArb = fc.array(
    fc.record({ offset: fc.integer({ min: -4 * DAY, max: HOUR }), cents: fc.integer({ min: 0, max: 10_000 }), received: fc.boolean() }),
    { maxLength: 10 },
  );
  test.prop([pastArb, fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 400 }), fc.boolean(), fc.constantFrom('sending', 'all')], { numRuns: 60 })(
    'the sender side hits exactly when brute-force sums over the two periods say so',
    async (past, currentCents, percent, exclude, checkSender) => {
      const engine = engineFor();
      await engine.createRuleInstance({
        ruleId: 'R-27',
        parameters: { ...BASE, ...pct(percent), excludePeriod1: exclude, checkSender },
      });
      for (const p of past) {
        await engine.createTransaction(
          tx({
            timestamp: T0 + p.offset,
            originUserId: p.received ? 'carol' : 'alice',
            destinationUserId: p.received ? 'alice' : 'bob',
            ...usd(p.cents / 100),
          }),
        );
      }
      const r = await engine.createTransaction(tx({ timestamp: T0, ...usd(currentCents / 100) }));
      const counted = past.filter((p) => (checkSender === 'all' || !p.received) && p.offset <= 0);
      const inPeriod1 = counted.filter((p) => p.offset >= -DAY);
      const before = counted.filter((p) => p.offset >= -3 * DAY && p.offset < -DAY);
      const total = (ps: typeof past) => ps.reduce((a, p) => a + BigInt(p.cents), 0n);
      const sum1 = BigInt(currentCents) + total(inPeriod1);
      const sum2 = exclude ? total(before) : total(before) + sum1;
      const expected = before.length > 0 && sum2 > 0n && sum1 * 100n >= BigInt(percent) * sum2;
      expect(r.hitRules.length > 0).toBe(expected);
    },
  );
});
