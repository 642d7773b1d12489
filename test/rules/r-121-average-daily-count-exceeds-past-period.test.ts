import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { r121AverageDailyCountExceedsPastPeriod } from '../../src/rules/library/r-121-average-daily-count-exceeds-past-period.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';
import { CAL_1, CAL_3, D0, describeTwoPeriodRule, ONE_DAY, P2, THREE_DAYS, type Past, type TwoPeriodRow } from './kits/two-periods-suite.js';

const engineFor = () => testEngine().engine;

/**
 * R-121 boundary table, through the engine. Period 1 = [T0 − 1 day, T0] (1 day long), period 2 =
 * [T0 − 3 days, T0] (3 days), or with `excludePeriod1` [T0 − 3 days, T0 − 1 day) (2 days). Calendar
 * rows: T0 is 12:00 UTC, so a calendar day has lasted 0.5 days and 3 calendar days 2.5 days. Each
 * row sends `past` (default alice → bob), then alice → bob at `now` (default T0).
 */

const at = (...ts: number[]): Past[] => ts.map((t) => ({ at: t }));

const rows: TwoPeriodRow[] = [
  { name: 'the first transaction never hits (no history), even at 0 %', parameters: { multiplierThreshold: 0 }, past: [], directions: [] },
  { name: 'excluded: 1/day vs 1 in 2 days is exactly 200 % and hits', past: at(P2), directions: ['ORIGIN'] },
  { name: 'excluded: a multiplier of 200.01 % does not hit', parameters: { multiplierThreshold: 200.01 }, past: at(P2), directions: [] },
  { name: 'excluded: one transaction fewer in period 1 does not hit (1/day vs 2 in 2 days)', past: at(P2, P2 + 1), directions: [] },
  { name: 'excluded: one more in period 1 hits (2/day vs 2 in 2 days)', past: at(P2, P2 + 1, T0 - HOUR), directions: ['ORIGIN'] },
  {
    name: 'included: 1/day vs 2 in 3 days is exactly 150 % and hits',
    parameters: { multiplierThreshold: 150, excludePeriod1: false },
    past: at(P2),
    directions: ['ORIGIN'],
  },
  { name: 'included: 150.01 % does not hit', parameters: { multiplierThreshold: 150.01, excludePeriod1: false }, past: at(P2), directions: [] },
  {
    name: 'calendar days: 1 in 0.5 day vs 2 in 2.5 days is exactly 250 % and hits',
    parameters: { multiplierThreshold: 250, excludePeriod1: false, period1: CAL_1, period2: CAL_3 },
    past: at(D0 - DAY),
    directions: ['ORIGIN'],
  },
  {
    name: 'calendar days: 250.01 % does not hit',
    parameters: { multiplierThreshold: 250.01, excludePeriod1: false, period1: CAL_1, period2: CAL_3 },
    past: at(D0 - DAY),
    directions: [],
  },
  {
    name: 'calendar days: a current transaction at exactly 00:00 UTC (period 1 of length 0) never hits',
    parameters: { multiplierThreshold: 0, period1: CAL_1, period2: CAL_3 },
    past: at(D0 - DAY),
    now: D0,
    directions: [],
  },
  {
    name: 'period1/period2 boundary: exactly at period 1 start is in period 1 (2/day vs 1 in 2 days)',
    parameters: { multiplierThreshold: 400 },
    past: at(P2, T0 - DAY),
    directions: ['ORIGIN'],
  },
  {
    name: 'period1/period2 boundary: 1 ms before is in period 2 (1/day vs 2 in 2 days)',
    parameters: { multiplierThreshold: 100 },
    past: at(P2, T0 - DAY - 1),
    directions: ['ORIGIN'],
  },
  { name: 'period1/period2 boundary: 1 ms before misses 101 %', parameters: { multiplierThreshold: 101 }, past: at(P2, T0 - DAY - 1), directions: [] },
  { name: 'period 2 start: exactly at T0 − 3 days counts', parameters: { multiplierThreshold: 0 }, past: at(T0 - 3 * DAY), directions: ['ORIGIN'] },
  { name: 'period 2 start: 1 ms earlier is outside (no history)', parameters: { multiplierThreshold: 0 }, past: at(T0 - 3 * DAY - 1), directions: [] },
  {
    name: 'transactionsNumberThreshold2 min equal to count2 hits',
    parameters: { transactionsNumberThreshold2: { min: 1 } },
    past: at(P2),
    directions: ['ORIGIN'],
  },
  {
    name: 'transactionsNumberThreshold2 min one above count2 does not hit',
    parameters: { transactionsNumberThreshold2: { min: 2 } },
    past: at(P2),
    directions: [],
  },
  {
    name: 'transactionsNumberThreshold max below count1 does not hit',
    parameters: { transactionsNumberThreshold: { max: 1 } },
    past: at(P2, T0 - HOUR),
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 min exactly at the daily count hits',
    parameters: { valueThresholdPeriod1: { min: 2 } },
    past: at(P2, T0 - HOUR),
    directions: ['ORIGIN'],
  },
  {
    name: 'valueThresholdPeriod1 min just above the daily count does not hit',
    parameters: { valueThresholdPeriod1: { min: 2.01 } },
    past: at(P2, T0 - HOUR),
    directions: [],
  },
  {
    name: 'valueThresholdPeriod1 is per day: 1 transaction in a 0.5-day calendar period is 2/day',
    parameters: { multiplierThreshold: 0, period1: CAL_1, period2: CAL_3, valueThresholdPeriod1: { min: 2 } },
    past: at(D0 - DAY),
    directions: ['ORIGIN'],
  },
  {
    name: "checkReceiver 'receiving': the receiver's daily counts hit DESTINATION",
    parameters: { checkSender: 'none', checkReceiver: 'receiving' },
    past: [{ at: P2, origin: 'carol', destination: 'bob' }],
    directions: ['DESTINATION'],
  },
  {
    name: "checkSender 'all': a transaction the sender received counts",
    parameters: { multiplierThreshold: 0, checkSender: 'all' },
    past: [{ at: P2, origin: 'carol', destination: 'alice' }],
    directions: ['ORIGIN'],
  },
];

const BASE = {
  period1: ONE_DAY,
  period2: THREE_DAYS,
  multiplierThreshold: 200,
  excludePeriod1: true,
  transactionsNumberThreshold2: {},
  checkSender: 'sending',
  checkReceiver: 'none',
};

describeTwoPeriodRule({
  rule: r121AverageDailyCountExceedsPastPeriod,
  base: BASE,
  rows,
  description: {
    name: 'names both daily counts and the ratio in the description',
    past: at(P2),
    text: 'Sender made 1.00 transactions per day in 1 day, 200.00% of the 0.50 per day in 3 days, at or above 200%.',
  },
  defaults: {
    name: 'uses the source defaults (docs/wire-format.md#rule-library; a plain percentage multiplier)',
    expected: { multiplierThreshold: 200, transactionsNumberThreshold2: { min: 5 } },
  },
  invalid: [
    {
      name: 'a multiplier object (R-121 takes a number)',
      parameters: { multiplierThreshold: { currency: 'USD', value: 200 } },
      path: '/parameters/multiplierThreshold',
    },
    { name: 'a negative multiplier', parameters: { multiplierThreshold: -1 }, path: '/parameters/multiplierThreshold' },
    { name: 'a non-boolean excludePeriod1', parameters: { excludePeriod1: 'yes' }, path: '/parameters/excludePeriod1' },
  ],
});

describe('properties', () => {
  const pastArb = fc.array(fc.integer({ min: -4 * DAY, max: HOUR }), { maxLength: 12 });
  test.prop([pastArb, fc.integer({ min: 0, max: 600 }), fc.boolean()], { numRuns: 60 })(
    'the sender side hits exactly when brute-force daily counts over the two periods say so',
    async (offsets, percent, exclude) => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: 'R-121', parameters: { ...BASE, multiplierThreshold: percent, excludePeriod1: exclude } });
      for (const o of offsets) await engine.createTransaction(tx({ timestamp: T0 + o }));
      const r = await engine.createTransaction(tx({ timestamp: T0 }));
      const counted = offsets.filter((o) => o <= 0);
      const n1 = BigInt(1 + counted.filter((o) => o >= -DAY).length);
      const before = BigInt(counted.filter((o) => o >= -3 * DAY && o < -DAY).length);
      const n2 = exclude ? before : before + n1;
      const days2 = exclude ? 2n : 3n;
      const expected = before > 0n && n1 * days2 * 100n >= BigInt(percent) * n2 * 1n;
      expect(r.hitRules.length > 0).toBe(expected);
    },
  );
});
