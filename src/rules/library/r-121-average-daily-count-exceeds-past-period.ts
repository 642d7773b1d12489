import { Type } from '@sinclair/typebox';
import { MONEY_SCALE } from '../../domain/money.js';
import { averageComparisonDefaults, defineTwoPeriodRule, isRatioInRange, PERCENT_UNIT, perDay } from '../kits/two-periods.js';

/** A count as 10^-8 units, so per-day counts share the exact comparisons of amounts. */
function scaledCount(count: number): bigint {
  return BigInt(count) * MONEY_SCALE;
}

/** A per-day rate (10^-8 units) as a decimal with two places, rounded down (descriptions only). */
function formatRate(num: bigint, den: bigint): string {
  const hundredths = (num * 100n) / (den * MONEY_SCALE);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

/**
 * R-121 Average transactions number exceed past period average number: the user's number of
 * transactions per day in period 1 (including this transaction) is at least `multiplierThreshold`
 * % of the number per day in period 2 (≥, per docs/wire-format.md#rule-library). A period's days
 * are its length, as for R-122: the nominal units × unit for fixed-length rolling windows, else the
 * elapsed time end − start / 86 400 000 ms; with `excludePeriod1`, period 2 lasts its length minus
 * period 1's. Compared exactly: n1 × len2 × 100 ≥ m × n2 × len1. Guards as R-27; no hit when
 * period 1 has length 0, when period 2 does not start before period 1 or holds no transaction
 * before it. A velocity comparison for sudden bursts of activity (account takeover, mule activation).
 */
export const r121AverageDailyCountExceedsPastPeriod = defineTwoPeriodRule({
  id: 'R-121',
  name: 'Average transactions number exceed past period average number',
  description: "A user's average number of transactions per day in a recent period is at or above a multiple of the daily average in a past reference period.",
  descriptionTemplate:
    '{{side}} made {{rate1}} transactions per day in {{period1}}, {{ratio}} of the {{rate2}} per day in {{period2}}, at or above {{multiplier}}%.',
  multiplierThreshold: Type.Number({
    minimum: 0,
    maximum: 1_000_000,
    title: 'Multiplier (%)',
    description: `The rule hits when the average number of transactions per day in period 1 is at or above this percentage of the average per day in period 2. ${PERCENT_UNIT}`,
  }),
  valueThresholdPeriod1: {
    title: 'Daily transactions range (period 1)',
    description: 'No hit when the average number of transactions per day in period 1 is outside this range.',
  },
  defaultParameters: averageComparisonDefaults(200),
  checksFor: ['No. of transactions'],
  types: ['Velocity comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  readsVolumes: false,
  percentOf: (parameters) => parameters.multiplierThreshold,
  comparisonOf: (parameters) => ({
    compare(period1, period2) {
      if (period1.lengthMs <= 0n || period2.lengthMs <= 0n || period2.count <= 0) return null;
      const stat1 = perDay(scaledCount(period1.count), period1.lengthMs);
      if (!isRatioInRange(stat1, parameters.valueThresholdPeriod1)) return null;
      return { stat1, stat2: perDay(scaledCount(period2.count), period2.lengthMs) };
    },
    vars: ['rate1', 'rate2'],
    format: (stat) => formatRate(stat.num, stat.den),
  }),
});
